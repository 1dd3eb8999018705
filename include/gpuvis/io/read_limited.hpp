#pragma once
// Reading whole input files with a ceiling, so that a device file (/dev/zero), a pipe or an absurd
// file cannot exhaust memory before its contents are even looked at.
#include <cstddef>
#include <string>

namespace gpuvis {

// The file's bytes; throws ErrorCode::io when it cannot be opened and ErrorCode::format, naming
// `what` and the limit, when it holds more than `max_bytes`.
std::string read_limited(const std::string& path, std::size_t max_bytes, const std::string& what);

}  // namespace gpuvis

#pragma once
// Reading whole input files with a ceiling, so that a device file (/dev/zero), a pipe or an absurd
// file cannot exhaust memory before its contents are even looked at.
#include <cstddef>
#include <string>

namespace gpuvis {

// Throws ErrorCode::io, naming `what` and what `path` is instead, unless it is a regular file:
// "does not exist", "is a folder", "is a device (like /dev/zero)", "is a named pipe (FIFO)", "is a socket".
void require_regular_file(const std::string& path, const std::string& what);

// The file's bytes. Throws as require_regular_file does, and ErrorCode::format, naming `what` and the
// limit, when the file is larger than `max_bytes` (before reading any of it).
std::string read_limited(const std::string& path, std::size_t max_bytes, const std::string& what);

}  // namespace gpuvis

#pragma once
// Writing small text outputs (calibration grids, settings) the way images are written: through a
// temporary file beside the target, renamed into place once complete.
#include <string>

namespace gpuvis {

// A failed write (a full disk) leaves `path` as it was and no temporary behind; errors are
// ErrorCode::io naming `path`.
void write_file_atomically(const std::string& path, const std::string& contents);

}  // namespace gpuvis

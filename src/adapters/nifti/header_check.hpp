#pragma once
// A NIfTI header checked by gpuvis before nifticlib reads it: Debian's nifticlib 3.0 crashes on
// some damaged NIfTI-2 headers (tests/fuzz/regressions/nifti), so its reader only ever sees a
// header whose size, magic, dimensions, sample type and data offset make sense.
#include <string>

namespace gpuvis::nifti {

// Throws ErrorCode::format naming the file and the first field that is wrong.
void check_header(const std::string& path);

}  // namespace gpuvis::nifti

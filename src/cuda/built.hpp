#pragma once
// Whether this build has the CUDA backend. Host code reaches the CUDA entry points only inside
// `if constexpr (cuda::kBuilt)`: a function named only in a discarded statement is not odr-used, so a
// build without CUDA needs no definition (no link-time stand-ins), and not_built() says why.
#include <string>

#include "gpuvis_build_config.hpp"

namespace gpuvis::cuda {

inline constexpr bool kBuilt = GPUVIS_WITH_CUDA != 0;

// ErrorCode::unsupported: "WHAT requested but " + unavailable_reason() (gpuvis/cuda/runtime.hpp).
[[noreturn]] void not_built(const std::string& what);

}  // namespace gpuvis::cuda

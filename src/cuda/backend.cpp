// The one resolution of Backend::automatic, used by every operation that takes a Backend.
#include "gpuvis/core/error.hpp"
#include "cuda/built.hpp"
#include "gpuvis/cuda/runtime.hpp"

namespace gpuvis {

Backend resolve_backend(Backend requested, const std::function<void(const std::string&)>& notice) {
  if (requested == Backend::cpu) return Backend::cpu;
  if (requested == Backend::opencl) return Backend::opencl;  // its device is chosen, or refused, where an operation first uses it
  const bool usable = cuda::device_count() > 0;
  if (requested == Backend::cuda) {
    if (!usable)
      fail(ErrorCode::unsupported, "--backend cuda requested but " + cuda::unavailable_reason() +
                                       "; use --backend cpu or --backend auto");
    return Backend::cuda;
  }
  if (usable) return Backend::cuda;
  if (notice) notice(cuda::unavailable_reason() + ", using the CPU backend");
  return Backend::cpu;
}

}  // namespace gpuvis

namespace gpuvis::cuda {
void not_built(const std::string& what) { fail(ErrorCode::unsupported, what + " requested but " + unavailable_reason()); }
}  // namespace gpuvis::cuda

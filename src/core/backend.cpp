#include "gpuvis/core/backend.hpp"

#include "gpuvis/core/error.hpp"
#include "gpuvis/cuda/runtime.hpp"

namespace gpuvis {

Backend parse_backend(std::string_view name) {
  if (name == "auto") return Backend::automatic;
  if (name == "cpu") return Backend::cpu;
  if (name == "cuda") return Backend::cuda;
  fail(ErrorCode::invalid_argument, "unknown backend '" + std::string(name) + "' (use auto, cpu or cuda)");
}

std::string_view to_string(Backend backend) {
  switch (backend) {
    case Backend::automatic: return "auto";
    case Backend::cpu: return "cpu";
    case Backend::cuda: return "cuda";
  }
  return "?";
}

Backend resolve_backend(Backend requested, const std::function<void(const std::string&)>& notice) {
  if (requested == Backend::cpu) return Backend::cpu;
  const bool usable = cuda::device_count() > 0;
  if (requested == Backend::cuda) {
    if (!usable)
      fail(ErrorCode::unsupported, "--backend cuda requested but " + cuda::unavailable_reason() +
                                       "; use --backend cpu or auto");
    return Backend::cuda;
  }
  if (usable) return Backend::cuda;
  if (notice) notice(cuda::unavailable_reason() + ", using the CPU backend");
  return Backend::cpu;
}

}  // namespace gpuvis

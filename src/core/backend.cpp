#include "gpuvis/core/backend.hpp"

#include "gpuvis/core/error.hpp"

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

}  // namespace gpuvis

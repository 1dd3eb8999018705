#include "gpuvis/core/backend.hpp"

#include "gpuvis/core/error.hpp"

namespace gpuvis {

Backend parse_backend(std::string_view name) {
  if (name == "auto") return Backend::automatic;
  if (name == "cpu") return Backend::cpu;
  if (name == "cuda") return Backend::cuda;
  if (name == "opencl") return Backend::opencl;
  fail(ErrorCode::invalid_argument, "unknown backend '" + std::string(name) + "' (use auto, cpu, cuda or opencl)");
}

void refuse_opencl(Backend backend, std::string_view operation) {
  if (backend == Backend::opencl)
    fail(ErrorCode::unsupported, std::string(operation) + " is not on the OpenCL backend yet (OpenCL has the thresholds, convolution, the bilateral filter, mean shift and Life): use --backend cpu or cuda");
}

std::string_view to_string(Backend backend) {
  switch (backend) {
    case Backend::automatic: return "auto";
    case Backend::cpu: return "cpu";
    case Backend::cuda: return "cuda";
    case Backend::opencl: return "opencl";
  }
  return "?";
}

}  // namespace gpuvis

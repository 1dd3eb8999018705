// Built instead of src/pipeline/cuda when gpuvis is configured without CUDA.
#include "gpuvis/core/error.hpp"
#include "gpuvis/cuda/runtime.hpp"
#include "pipeline/engine.hpp"

namespace gpuvis::pipeline {
std::unique_ptr<Engine> make_cuda_engine(const DetectorParams&, const decode::TreeSet&) {
  fail(ErrorCode::unsupported, "CUDA detection requested but " + cuda::unavailable_reason());
}
}  // namespace gpuvis::pipeline

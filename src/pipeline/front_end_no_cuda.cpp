// Built instead of front_end_cuda.cu and detector_cuda.cu when gpuvis is configured without CUDA.
#include "gpuvis/cuda/runtime.hpp"
#include "gpuvis/pipeline/front_end.hpp"

namespace gpuvis::pipeline {
std::unique_ptr<FrontEnd> make_cuda_front_end(const threshold::Params&) {
  fail(ErrorCode::unsupported, "CUDA detection requested but " + cuda::unavailable_reason());
}
std::unique_ptr<DeviceDetector> make_cuda_detector(const threshold::Params&, const decode::TreeSet&, const decode::FingerParams&,
                                                   const decode::BlobParams&) {
  fail(ErrorCode::unsupported, "CUDA detection requested but " + cuda::unavailable_reason());
}
}  // namespace gpuvis::pipeline

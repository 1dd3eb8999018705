#include "gpuvis/cuda/runtime.hpp"
#include "gpuvis/threshold/device.hpp"
#include "gpuvis/threshold/threshold.hpp"

namespace gpuvis::threshold {
std::unique_ptr<Thresholder> make_cuda_thresholder(const Params&) {
  fail(ErrorCode::unsupported, "CUDA thresholding requested but " + cuda::unavailable_reason());
}
void threshold(DeviceView<const std::uint8_t>, DeviceView<std::uint8_t>, const Params&, cuda::StreamHandle) {
  fail(ErrorCode::unsupported, "thresholding device memory requested but " + cuda::unavailable_reason());
}
}  // namespace gpuvis::threshold

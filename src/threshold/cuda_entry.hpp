#pragma once
// The CUDA backend's entry points of the threshold stage (threshold/cuda/thresholder_cuda.cu),
// called only where cuda::kBuilt (cuda/built.hpp).
#include <cstdint>
#include <memory>

#include "gpuvis/cuda/device_memory.hpp"
#include "gpuvis/threshold/threshold.hpp"

namespace gpuvis::threshold {

std::unique_ptr<Thresholder> make_cuda_thresholder(const Params& params);
// The public threshold on device memory (gpuvis/threshold/device.hpp): the caller's memory and stream.
void threshold_on_device(DeviceView<const std::uint8_t> src, DeviceView<std::uint8_t> dst, const Params& params,
                         cuda::StreamHandle stream);

}  // namespace gpuvis::threshold

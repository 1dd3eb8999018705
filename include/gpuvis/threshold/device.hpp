#pragma once
// The threshold on frames already in device memory (CUDA backend): see gpuvis/filters/device.hpp
// for the rules (queued on `stream`, returns when done, device memory of the current device).
#include <cstdint>

#include "gpuvis/cuda/device_memory.hpp"
#include "gpuvis/threshold/threshold.hpp"

namespace gpuvis::threshold {

void threshold(DeviceView<const std::uint8_t> src, DeviceView<std::uint8_t> dst, const Params& params,
               cuda::StreamHandle stream = nullptr);

}  // namespace gpuvis::threshold

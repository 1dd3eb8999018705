#pragma once
// Device-level mean shift (mean_shift.cu), for the host entry point and the device-view one
// (gpuvis/filters/device.hpp). Waits for `stream` before returning: the rounds of climbs read how
// many climbs are left after each.
#include <cuda_runtime_api.h>

#include <vector>

#include "filters/mean_shift_common.hpp"
#include "gpuvis/filters/mean_shift.hpp"

namespace gpuvis::filters::cuda_impl {

template <class T>
void mean_shift(DeviceView<const T> src, DeviceView<T> dst, VolumeShape shape, const MeanShiftParams& params,
                std::vector<float>* modes, const mean_shift_detail::Tuning& tuning, cudaStream_t stream);

}  // namespace gpuvis::filters::cuda_impl

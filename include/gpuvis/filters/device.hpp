#pragma once
// The filters on images already in device memory (CUDA backend), for pipelines that keep their
// images on the GPU (CuPy, PyTorch, the Python module's device path): nothing crosses the bus.
// Results equal the host entry points' (convolve, bilateral, mean_shift_filter). The work is queued on `stream` and
// the call returns once it is done, so `dst` can be used on any stream afterwards. Both views must
// be device memory of the current device (cuda::is_device_pointer) with the same size and channel
// count; without the CUDA backend these throw ErrorCode::unsupported.
#include "gpuvis/cuda/device_memory.hpp"
#include "gpuvis/filters/bilateral.hpp"
#include "gpuvis/filters/convolve.hpp"
#include "gpuvis/filters/mean_shift.hpp"

#include <vector>

namespace gpuvis::filters {

template <class T>
void convolve(DeviceView<const T> src, DeviceView<T> dst, const Kernel& kernel, const ConvolveParams& options = {},
              cuda::StreamHandle stream = nullptr);

template <class T>
void bilateral(DeviceView<const T> src, DeviceView<T> dst, const BilateralParams& params, cuda::StreamHandle stream = nullptr);

// Mean shift of an image, or of a volume / sequence stacked as `shape` says (results equal
// mean_shift_filter_volume's). params.backend is ignored; params.progress is called on this thread.
template <class T>
void mean_shift_filter(DeviceView<const T> src, DeviceView<T> dst, VolumeShape shape, const MeanShiftParams& params,
                       cuda::StreamHandle stream = nullptr);

// mean_shift_modes (mean_shift_segment.hpp) of a device image or stacked volume: `filtered` in
// device memory, every voxel's mode in `modes` on the host, ready for
// mean_shift_segment_from_modes; the same values as from a host image.
template <class T>
void mean_shift_modes(DeviceView<const T> src, DeviceView<T> filtered, std::vector<float>& modes, VolumeShape shape,
                      const MeanShiftParams& params, cuda::StreamHandle stream = nullptr);

}  // namespace gpuvis::filters

// The filters on device memory (gpuvis/filters/device.hpp): the CUDA backend's, or one line saying
// that this build has none.
#include "cuda/built.hpp"
#include "gpuvis/core/error.hpp"
#include "filters/filter_backends.hpp"
#include "gpuvis/filters/device.hpp"

namespace gpuvis::filters {

template <class T>
void convolve(DeviceView<const T> src, DeviceView<T> dst, const Kernel& kernel, const ConvolveParams& options,
              cuda::StreamHandle stream) {
  if constexpr (cuda::kBuilt) convolve_on_device(src, dst, kernel, options, stream);
  else cuda::not_built("convolution on device memory");
}

template <class T>
void bilateral(DeviceView<const T> src, DeviceView<T> dst, const BilateralParams& params, cuda::StreamHandle stream) {
  if constexpr (cuda::kBuilt) bilateral_on_device(src, dst, params, stream);
  else cuda::not_built("bilateral filter on device memory");
}

template <class T>
void mean_shift_filter(DeviceView<const T> src, DeviceView<T> dst, VolumeShape shape, const MeanShiftParams& params,
                       cuda::StreamHandle stream) {
  if constexpr (cuda::kBuilt) mean_shift_on_device(src, dst, shape, params, stream);
  else cuda::not_built("mean shift on device memory");
}

template <class T>
void mean_shift_modes(DeviceView<const T> src, DeviceView<T> filtered, std::vector<float>& modes, VolumeShape shape,
                      const MeanShiftParams& params, cuda::StreamHandle stream) {
  require(static_cast<long long>(src.width) * src.height < (1ll << 31), "meanshift segment takes at most 2^31 voxels");
  if constexpr (cuda::kBuilt) mean_shift_on_device(src, filtered, shape, params, stream, &modes);
  else cuda::not_built("mean shift segmentation on device memory");
}

#define GPUVIS_DEVICE_FILTERS(T)                                                                                          \
  template void convolve<T>(DeviceView<const T>, DeviceView<T>, const Kernel&, const ConvolveParams&, cuda::StreamHandle); \
  template void bilateral<T>(DeviceView<const T>, DeviceView<T>, const BilateralParams&, cuda::StreamHandle);              \
  template void mean_shift_filter<T>(DeviceView<const T>, DeviceView<T>, VolumeShape, const MeanShiftParams&, cuda::StreamHandle); \
  template void mean_shift_modes<T>(DeviceView<const T>, DeviceView<T>, std::vector<float>&, VolumeShape, const MeanShiftParams&, \
                                    cuda::StreamHandle);
GPUVIS_DEVICE_FILTERS(std::uint8_t)
GPUVIS_DEVICE_FILTERS(std::uint16_t)
GPUVIS_DEVICE_FILTERS(float)
#undef GPUVIS_DEVICE_FILTERS

}  // namespace gpuvis::filters

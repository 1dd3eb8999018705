// Built instead of cuda/convolve_*.cu without CUDA.
#include "gpuvis/cuda/runtime.hpp"
#include "gpuvis/filters/bilateral.hpp"
#include "gpuvis/filters/convolve.hpp"
#include "gpuvis/filters/mean_shift.hpp"
#include "filters/filter_backends.hpp"
#include "gpuvis/filters/device.hpp"

namespace gpuvis::filters {
template <class T>
void convolve_cuda(HostView<const T>, HostView<T>, const Kernel&, const ConvolveParams&) {
  fail(ErrorCode::unsupported, "CUDA convolution requested but " + cuda::unavailable_reason());
}
template void convolve_cuda<std::uint8_t>(HostView<const std::uint8_t>, HostView<std::uint8_t>, const Kernel&, const ConvolveParams&);
template void convolve_cuda<std::uint16_t>(HostView<const std::uint16_t>, HostView<std::uint16_t>, const Kernel&, const ConvolveParams&);
template void convolve_cuda<float>(HostView<const float>, HostView<float>, const Kernel&, const ConvolveParams&);
template <class T>
void bilateral_cuda(HostView<const T>, HostView<T>, const BilateralParams&) {
  fail(ErrorCode::unsupported, "CUDA bilateral filter requested but " + cuda::unavailable_reason());
}
template void bilateral_cuda<std::uint8_t>(HostView<const std::uint8_t>, HostView<std::uint8_t>, const BilateralParams&);
template void bilateral_cuda<std::uint16_t>(HostView<const std::uint16_t>, HostView<std::uint16_t>, const BilateralParams&);
template void bilateral_cuda<float>(HostView<const float>, HostView<float>, const BilateralParams&);
template <class T>
void mean_shift_filter_cuda(HostView<const T>, HostView<T>, VolumeShape, const MeanShiftParams&, std::vector<float>*,
                            const mean_shift_detail::Tuning&) {
  fail(ErrorCode::unsupported, "CUDA mean shift requested but " + cuda::unavailable_reason());
}
template <class T>
void mean_shift_filter(DeviceView<const T>, DeviceView<T>, VolumeShape, const MeanShiftParams&, cuda::StreamHandle) {
  fail(ErrorCode::unsupported, "mean shift on device memory requested but " + cuda::unavailable_reason());
}
template <class T>
void convolve(DeviceView<const T>, DeviceView<T>, const Kernel&, const ConvolveParams&, cuda::StreamHandle) {
  fail(ErrorCode::unsupported, "convolution on device memory requested but " + cuda::unavailable_reason());
}
template <class T>
void bilateral(DeviceView<const T>, DeviceView<T>, const BilateralParams&, cuda::StreamHandle) {
  fail(ErrorCode::unsupported, "bilateral filter on device memory requested but " + cuda::unavailable_reason());
}
#define GPUVIS_DEVICE_FILTERS(T)                                                                                     \
  template void convolve<T>(DeviceView<const T>, DeviceView<T>, const Kernel&, const ConvolveParams&, cuda::StreamHandle); \
  template void bilateral<T>(DeviceView<const T>, DeviceView<T>, const BilateralParams&, cuda::StreamHandle); \
  template void mean_shift_filter<T>(DeviceView<const T>, DeviceView<T>, VolumeShape, const MeanShiftParams&, cuda::StreamHandle); \
  template void mean_shift_filter_cuda<T>(HostView<const T>, HostView<T>, VolumeShape, const MeanShiftParams&, std::vector<float>*, \
                                          const mean_shift_detail::Tuning&);
GPUVIS_DEVICE_FILTERS(std::uint8_t)
GPUVIS_DEVICE_FILTERS(std::uint16_t)
GPUVIS_DEVICE_FILTERS(float)
#undef GPUVIS_DEVICE_FILTERS
}  // namespace gpuvis::filters

// The CUDA filters on the caller's device memory and stream, waited for before returning: what the
// public device entry points (gpuvis/filters/device.hpp, src/filters/device_filters.cpp) call.
#include <string>

#include "cuda/memory.hpp"
#include "filters/cuda/filters_cuda.hpp"
#include "filters/cuda/mean_shift_cuda.hpp"
#include "filters/filter_backends.hpp"
#include "gpuvis/filters/device.hpp"

namespace gpuvis {
namespace {

template <class View>
void require_device(const View& v, const char* what) {
  if (!cuda::is_device_pointer(v.data))
    fail(ErrorCode::invalid_argument, std::string(what) + " is not device memory of the current CUDA device");
}

}  // namespace

namespace filters {

template <class T>
void convolve_on_device(DeviceView<const T> src, DeviceView<T> dst, const Kernel& kernel, const ConvolveParams& options,
                        cuda::StreamHandle stream) {
  require_device(src, "convolve: the source");
  require_device(dst, "convolve: the destination");
  gpuvis::cuda::DeviceBuffer workspace;
  cuda_impl::convolve<T>(src, dst, kernel, options, workspace, stream);
  cuda::synchronize(stream);  // the workspace is freed on return
}

template <class T>
void bilateral_on_device(DeviceView<const T> src, DeviceView<T> dst, const BilateralParams& params, cuda::StreamHandle stream) {
  validate(params);
  require_device(src, "bilateral: the source");
  require_device(dst, "bilateral: the destination");
  cuda_impl::bilateral<T>(src, dst, params, stream);
  cuda::synchronize(stream);
}

template <class T>
void mean_shift_on_device(DeviceView<const T> src, DeviceView<T> dst, VolumeShape shape, const MeanShiftParams& params,
                          cuda::StreamHandle stream, std::vector<float>* modes) {
  mean_shift_detail::prepare(src, dst, shape, params);
  require_device(src, "mean shift: the source");
  require_device(dst, "mean shift: the destination");
  cuda_impl::mean_shift<T>(src, dst, shape, params, modes, {}, stream);  // waits for the stream
}

#define GPUVIS_DEVICE_FILTERS(T)                                                                                     \
  template void convolve_on_device<T>(DeviceView<const T>, DeviceView<T>, const Kernel&, const ConvolveParams&, cuda::StreamHandle); \
  template void bilateral_on_device<T>(DeviceView<const T>, DeviceView<T>, const BilateralParams&, cuda::StreamHandle); \
  template void mean_shift_on_device<T>(DeviceView<const T>, DeviceView<T>, VolumeShape, const MeanShiftParams&, cuda::StreamHandle, \
                                        std::vector<float>*);
GPUVIS_DEVICE_FILTERS(std::uint8_t)
GPUVIS_DEVICE_FILTERS(std::uint16_t)
GPUVIS_DEVICE_FILTERS(float)
#undef GPUVIS_DEVICE_FILTERS

}  // namespace filters

}  // namespace gpuvis

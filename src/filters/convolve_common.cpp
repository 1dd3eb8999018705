// The filters' public entry points choose a backend; the kernel preparation both backends share.
#include "filters/convolve_common.hpp"

#include "filters/filter_backends.hpp"
#include "filters/opencl/filters_opencl.hpp"
#include "gpuvis/cuda/runtime.hpp"
#include "gpuvis/opencl/devices.hpp"
#include "cuda/built.hpp"

#include <string>

namespace gpuvis::filters::detail {

PreparedKernel prepare(const Kernel& kernel, const ConvolveParams& options) {
  require(kernel.width > 0 && kernel.height > 0 && !kernel.weights.empty(), "convolve: empty kernel");
  require(kernel.width % 2 == 1 && kernel.height % 2 == 1, "convolve: kernel sides must be odd, got " +
                                                               std::to_string(kernel.width) + "x" + std::to_string(kernel.height));
  PreparedKernel p{options.flip ? flipped(kernel) : kernel, {}};
  if (options.allow_separable) p.separable = separate(p.kernel);
  const std::string size = std::to_string(kernel.width) + "x" + std::to_string(kernel.height);
  if (p.separable.separable) {
    require(kernel.width <= kMaxKernel1D && kernel.height <= kMaxKernel1D,
            "convolve: separable kernel " + size + " exceeds " + std::to_string(kMaxKernel1D) + " taps");
  } else {
    require(kernel.width <= kMaxKernel2D && kernel.height <= kMaxKernel2D,
            "convolve: kernel " + size + " is not separable and exceeds " + std::to_string(kMaxKernel2D) + "x" +
                std::to_string(kMaxKernel2D));
  }
  return p;
}

}  // namespace gpuvis::filters::detail

namespace gpuvis::filters {

template <class T>
void convolve(HostView<const T> src, HostView<T> dst, const Kernel& kernel, const ConvolveParams& options) {
  const Backend backend = opencl::prefer_opencl_gpu(options.backend, resolve_backend(options.backend));
  if (backend == Backend::cuda) {
    if constexpr (cuda::kBuilt) convolve_cuda(src, dst, kernel, options);
    else cuda::not_built("CUDA convolution");
  } else if (backend == Backend::opencl) convolve_opencl(src, dst, kernel, options);
  else convolve_cpu(src, dst, kernel, options);
}

template <class T>
void bilateral(HostView<const T> src, HostView<T> dst, const BilateralParams& params) {
  const Backend backend = opencl::prefer_opencl_gpu(params.backend, resolve_backend(params.backend));
  if (backend == Backend::cuda) {
    if constexpr (cuda::kBuilt) bilateral_cuda(src, dst, params);
    else cuda::not_built("CUDA bilateral filter");
  } else if (backend == Backend::opencl) bilateral_opencl(src, dst, params);
  else bilateral_cpu(src, dst, params);
}

#define GPUVIS_FILTER_ENTRY_POINTS(T)                                                                             \
  template void convolve<T>(HostView<const T>, HostView<T>, const Kernel&, const ConvolveParams&);             \
  template void bilateral<T>(HostView<const T>, HostView<T>, const BilateralParams&);
GPUVIS_FILTER_ENTRY_POINTS(std::uint8_t)
GPUVIS_FILTER_ENTRY_POINTS(std::uint16_t)
GPUVIS_FILTER_ENTRY_POINTS(float)
#undef GPUVIS_FILTER_ENTRY_POINTS

}  // namespace gpuvis::filters

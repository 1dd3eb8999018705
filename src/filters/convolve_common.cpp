// The filters' public entry points choose a backend; the kernel preparation both backends share.
#include "filters/convolve_common.hpp"

#include "filters/auto_backend.hpp"
#include "filters/filter_backends.hpp"
#include "filters/opencl/filters_opencl.hpp"
#include "gpuvis/cuda/device_memory.hpp"
#include "gpuvis/cuda/runtime.hpp"
#include "gpuvis/opencl/devices.hpp"
#include "cuda/built.hpp"

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

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
namespace {

// The kind of a host-image call for Backend::automatic (auto_backend.hpp): what its time on either
// backend depends on. `filter` names the filter and its settings.
template <class T>
std::string call_kind(std::string filter, HostView<const T> src, HostView<T> dst, Backend gpu) {
  const bool page_locked = gpu == Backend::cuda && cuda::is_page_locked(src.data) && cuda::is_page_locked(dst.data);
  const char* type = std::is_same_v<T, float> ? "f32" : std::is_same_v<T, std::uint8_t> ? "u8" : "u16";
  return filter + " " + type + "x" + std::to_string(src.channels) + " " + std::to_string(src.width) + "x" + std::to_string(src.height) +
         (page_locked ? " page-locked" : " pageable");
}

// A convolution's settings as call_kind's `filter`: the kernel's size and a hash of its weights
// (a different kernel of one size may be separable or not), and the options that change the work.
std::string convolve_kind(const Kernel& kernel, const ConvolveParams& options) {
  std::uint64_t hash = 1469598103934665603ull;  // FNV-1a over the weights' bits
  for (const float w : kernel.weights) {
    std::uint32_t bits;
    std::memcpy(&bits, &w, sizeof bits);
    hash = (hash ^ bits) * 1099511628211ull;
  }
  return "convolve " + std::to_string(kernel.width) + "x" + std::to_string(kernel.height) + " #" + std::to_string(hash % 100000) + " " +
         to_string(options.border) + (options.flip ? " flip" : "") + (options.allow_separable ? "" : " 2d") +
         (options.fixed_point ? "" : " float-sums");
}

}  // namespace

template <class T>
void convolve(HostView<const T> src, HostView<T> dst, const Kernel& kernel, const ConvolveParams& options) {
  const Backend resolved = opencl::prefer_opencl_gpu(options.backend, resolve_backend(options.backend));
  const auto kind = [&] { return call_kind(convolve_kind(kernel, options), src, dst, resolved); };
  detail::run_automatic(options.backend, resolved, kind, [&](Backend backend) {
    if (backend == Backend::cuda) {
      if constexpr (cuda::kBuilt) convolve_cuda(src, dst, kernel, options);
      else cuda::not_built("CUDA convolution");
    } else if (backend == Backend::opencl) convolve_opencl(src, dst, kernel, options);
    else convolve_cpu(src, dst, kernel, options);
  });
}

template <class T>
void bilateral(HostView<const T> src, HostView<T> dst, const BilateralParams& params) {
  const Backend resolved = opencl::prefer_opencl_gpu(params.backend, resolve_backend(params.backend));
  const auto kind = [&] {
    const std::string settings = "bilateral r" + std::to_string(params.radius) +
                                 (params.mode == RangeMode::per_channel ? " per-channel" : "") +
                                 (params.distance == ColourDistance::l1 ? " l1" : "") + (params.adaptive ? " adaptive" : "") + " " +
                                 to_string(params.border);
    return call_kind(settings, src, dst, resolved);
  };
  detail::run_automatic(params.backend, resolved, kind, [&](Backend backend) {
    if (backend == Backend::cuda) {
      if constexpr (cuda::kBuilt) bilateral_cuda(src, dst, params);
      else cuda::not_built("CUDA bilateral filter");
    } else if (backend == Backend::opencl) bilateral_opencl(src, dst, params);
    else bilateral_cpu(src, dst, params);
  });
}

#define GPUVIS_FILTER_ENTRY_POINTS(T)                                                                             \
  template void convolve<T>(HostView<const T>, HostView<T>, const Kernel&, const ConvolveParams&);             \
  template void bilateral<T>(HostView<const T>, HostView<T>, const BilateralParams&);
GPUVIS_FILTER_ENTRY_POINTS(std::uint8_t)
GPUVIS_FILTER_ENTRY_POINTS(std::uint16_t)
GPUVIS_FILTER_ENTRY_POINTS(float)
#undef GPUVIS_FILTER_ENTRY_POINTS

}  // namespace gpuvis::filters

#pragma once
// Checks and conversions shared by the CPU and CUDA convolution.
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "filters/border_index.hpp"
#include "gpuvis/filters/convolve.hpp"

namespace gpuvis::filters::detail {

// The kernel actually applied (flipped for true convolution) and its separable form, validated
// against the size limits. Throws ErrorCode::invalid_argument with the reason.
struct PreparedKernel {
  Kernel kernel;
  SeparableKernel separable;
};
PreparedKernel prepare(const Kernel& kernel, const ConvolveParams& options);

template <class T, class U, MemorySpace S1, MemorySpace S2>
void check_images(const ImageView<T, S1>& src, const ImageView<U, S2>& dst) {
  check_image_shape(src.width, src.height, src.channels);
  require(same_shape(src, dst), "convolve: source " + describe_size(src.width, src.height, src.channels) +
                                    " and destination " + describe_size(dst.width, dst.height, dst.channels) +
                                    " differ; they must have the same size and channel count");
}

// Round to nearest (ties to even) and saturate for integer types; identity for float.
template <class T>
#if defined(__CUDACC__)
__host__ __device__
#endif
inline T saturate(float v) {
  if constexpr (std::is_same_v<T, float>) {
    return v;
  } else {
#if defined(__CUDA_ARCH__)
    const float r = rintf(v);
#else
    const float r = std::nearbyint(v);
#endif
    constexpr float hi = static_cast<float>(std::numeric_limits<T>::max());
    return static_cast<T>(r < 0.0f ? 0.0f : (r > hi ? hi : r));
  }
}

}  // namespace gpuvis::filters::detail

#pragma once
// The bilateral filter's per-pixel computation for the CPU and CUDA backends: the C rule that the
// OpenCL backend compiles too (bilateral_rule.h), wrapped for C++. `fetch(dx, dy, ch)` returns the
// neighbour's value (border already applied).
#include <cmath>
#include <cstring>

#include "filters/convolve_common.hpp"
#include "gpuvis/filters/bilateral.hpp"

#if defined(__CUDACC__)
#define GPUVIS_BL_HD __host__ __device__
#else
#define GPUVIS_BL_HD
#endif

#if defined(__CUDA_ARCH__)
#define GPUVIS_BL_RINT(x) rintf(x)
#define GPUVIS_BL_BITS_TO_FLOAT(b) __int_as_float(b)
#define GPUVIS_BL_SQRT(x) sqrtf(x)
#else
#define GPUVIS_BL_RINT(x) std::nearbyint(x)  // to nearest even, as rintf and hn::Round
#define GPUVIS_BL_BITS_TO_FLOAT(b) gpuvis::filters::detail::bits_to_float(b)
#define GPUVIS_BL_SQRT(x) std::sqrt(x)
#endif

namespace gpuvis::filters::detail {
GPUVIS_BL_HD inline float bits_to_float(int bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}
}  // namespace gpuvis::filters::detail

#define GPUVIS_RULE GPUVIS_BL_HD static inline
#include "filters/bilateral_rule.h"
#undef GPUVIS_RULE

namespace gpuvis::filters::detail {

// The weight exponential's constants, for the CPU's vector loops that mirror it
// (row_kernels_hwy.cpp, WeightExp).
struct WeightExpConstants {
  static constexpr float kMin = GPUVIS_WEXP_MIN;
  static constexpr float kLog2e = GPUVIS_WEXP_LOG2E;
  static constexpr float kLn2Hi = GPUVIS_WEXP_LN2_HI;
  static constexpr float kLn2Lo = GPUVIS_WEXP_LN2_LO;
  static constexpr float kC6 = GPUVIS_WEXP_C6, kC5 = GPUVIS_WEXP_C5, kC4 = GPUVIS_WEXP_C4, kC3 = GPUVIS_WEXP_C3, kC2 = GPUVIS_WEXP_C2;
};

// exp(x) for the filter's weights (x <= 0), the same float on every backend (bilateral_rule.h).
GPUVIS_BL_HD inline float weight_exp(float x) { return gpuvis_weight_exp(x); }

// exp(d2 * coeff), computed directly. The CPU substitutes a table for 8-bit images, whose d2 are
// small integers; the table holds exactly these values.
struct ExpWeight {
  GPUVIS_BL_HD float operator()(float d2, float coeff) const { return weight_exp(d2 * coeff); }
};

// Computes the C output channels of one pixel (bilateral_rule.h's GPUVIS_BILATERAL_PIXEL).
// `space(dx, dy)` gives exp(r² · space_coeff); `range(d2, coeff)` gives exp(d2 · coeff).
template <int C, class Fetch, class Space, class Range>
GPUVIS_BL_HD inline void bilateral_pixel(const Fetch& fetch, int radius, const Space& space, const Range& range,
                                         float sigma_range, bool adaptive, RangeMode mode, ColourDistance distance, float out[C]) {
#define GPUVIS_BL_FETCH(dx, dy, ch) fetch(dx, dy, ch)
#define GPUVIS_BL_SPACE(dx, dy) space(dx, dy)
#define GPUVIS_BL_RANGE(d2, coeff) range(d2, coeff)
  GPUVIS_BILATERAL_PIXEL(C, radius, sigma_range, adaptive, mode == RangeMode::colour, distance == ColourDistance::l1, out);
#undef GPUVIS_BL_FETCH
#undef GPUVIS_BL_SPACE
#undef GPUVIS_BL_RANGE
}

}  // namespace gpuvis::filters::detail

#pragma once
// The bilateral filter's per-pixel computation, shared verbatim by the CPU and CUDA backends.
// `fetch(dx, dy, ch)` returns the neighbour's value (border already applied).
#include <cmath>

#include "convolve_common.hpp"
#include "gpuvis/filters/bilateral.hpp"

namespace gpuvis::filters::detail {

#if defined(__CUDACC__)
#define GPUVIS_BL_HD __host__ __device__
#else
#define GPUVIS_BL_HD
#endif

GPUVIS_BL_HD inline float bl_exp(float x) {
#if defined(__CUDA_ARCH__)
  return expf(x);
#else
  return std::exp(x);
#endif
}

GPUVIS_BL_HD inline float bl_sqrt(float x) {
#if defined(__CUDA_ARCH__)
  return sqrtf(x);
#else
  return std::sqrt(x);
#endif
}

// exp(d2 * coeff), computed directly. The CPU substitutes a table for 8-bit images, whose d2 are
// small integers; the table holds exactly these values.
struct ExpWeight {
  GPUVIS_BL_HD float operator()(float d2, float coeff) const { return bl_exp(d2 * coeff); }
};

// Computes the C output channels of one pixel. Colour distances use the first three channels of
// RGBA (alpha is filtered but not compared). `space(dx, dy)` gives exp(r² · space_coeff);
// `range(d2, coeff)` gives exp(d2 · coeff).
template <int C, class Fetch, class Space, class Range>
GPUVIS_BL_HD inline void bilateral_pixel(const Fetch& fetch, int radius, const Space& space, const Range& range,
                                         float sigma_range, bool adaptive, RangeMode mode, ColourDistance distance, float out[C]) {
  float centre[C];
  for (int c = 0; c < C; ++c) centre[c] = fetch(0, 0, c);
  const int cc = C == 4 ? 3 : C;
  // Range coefficient(s): fixed, or from the window's standard deviation (pooled over the
  // compared channels in colour mode, per channel otherwise).
  float range_coeff[C];
  if (adaptive) {
    float s[C], s2[C];
    int n = 0;
    for (int c = 0; c < C; ++c) s[c] = s2[c] = 0.0f;
    for (int dy = -radius; dy <= radius; ++dy)
      for (int dx = -radius; dx <= radius; ++dx) {
        if (dx * dx + dy * dy > radius * radius) continue;
        ++n;
        for (int c = 0; c < C; ++c) {
          const float v = fetch(dx, dy, c) - centre[c];  // centred for accuracy
          s[c] += v;
          s2[c] += v * v;
        }
      }
    float pooled_s = 0, pooled_s2 = 0;
    for (int c = 0; c < cc; ++c) pooled_s += s[c], pooled_s2 += s2[c];
    for (int c = 0; c < C; ++c) {
      const float ps = mode == RangeMode::colour ? pooled_s : s[c], ps2 = mode == RangeMode::colour ? pooled_s2 : s2[c];
      const float m = mode == RangeMode::colour ? static_cast<float>(n * cc) : static_cast<float>(n);
      float var = ps2 / m - (ps / m) * (ps / m);
      var = var > 0.0f ? var : 0.0f;
      float sr = 2.0f * bl_sqrt(var);
      sr = sr > 0.5f ? sr : 0.5f;  // a flat window: any small σ gives the same result
      range_coeff[c] = -0.5f / (sr * sr);
    }
  } else {
    for (int c = 0; c < C; ++c) range_coeff[c] = -0.5f / (sigma_range * sigma_range);
  }
  float sum[C], wsum[C];
  for (int c = 0; c < C; ++c) sum[c] = wsum[c] = 0.0f;
  for (int dy = -radius; dy <= radius; ++dy)
    for (int dx = -radius; dx <= radius; ++dx) {
      const int r2 = dx * dx + dy * dy;
      if (r2 > radius * radius) continue;
      const float ws = space(dx, dy);
      float v[C];
      for (int c = 0; c < C; ++c) v[c] = fetch(dx, dy, c);
      if (mode == RangeMode::colour) {
        float d = 0;
        if (distance == ColourDistance::l2) {
          for (int c = 0; c < cc; ++c) d += (v[c] - centre[c]) * (v[c] - centre[c]);
        } else {
          for (int c = 0; c < cc; ++c) d += v[c] > centre[c] ? v[c] - centre[c] : centre[c] - v[c];
          d *= d;
        }
        const float w = ws * range(d, range_coeff[0]);
        for (int c = 0; c < C; ++c) {
          sum[c] += w * v[c];
          wsum[c] += w;
        }
      } else {
        for (int c = 0; c < C; ++c) {
          const float w = ws * range((v[c] - centre[c]) * (v[c] - centre[c]), range_coeff[c]);
          sum[c] += w * v[c];
          wsum[c] += w;
        }
      }
    }
  for (int c = 0; c < C; ++c) out[c] = sum[c] / wsum[c];
}

}  // namespace gpuvis::filters::detail

#pragma once
// The bilateral filter's per-pixel computation, shared verbatim by the CPU and CUDA backends.
// `fetch(dx, dy, ch)` returns the neighbour's value (border already applied).
#include <cmath>
#include <cstring>

#include "filters/convolve_common.hpp"
#include "gpuvis/filters/bilateral.hpp"

namespace gpuvis::filters::detail {

#if defined(__CUDACC__)
#define GPUVIS_BL_HD __host__ __device__
#else
#define GPUVIS_BL_HD
#endif

// exp(x) for the filter's weights (x <= 0), the same float on every backend: the CPU's scalar and
// Highway loops and the CUDA kernel run this exact sequence of IEEE operations (none fused: the
// files that use it are built without FMA contraction), where the libraries' exp functions differ
// in the last bit and would move an output by one level at rounding ties. Cody-Waite reduction
// x = n·ln2 + r, |r| <= ln2/2, then a degree-6 Taylor polynomial (relative error < 2e-7) scaled by
// 2^n through the exponent bits. Below -87 the weight is held at exp(-87) ~ 1.6e-38, the smallest
// this scaling keeps normal; the centre's weight of 1 makes such weights immaterial.
// row_kernels_hwy.cpp (WeightExp) mirrors it operation for operation.
struct WeightExpConstants {
  static constexpr float kMin = -87.0f;
  static constexpr float kLog2e = 1.44269504088896341f;
  static constexpr float kLn2Hi = 0.693145751953125f;  // 15 significant bits: n·kLn2Hi is exact
  static constexpr float kLn2Lo = 1.42860682030941723212e-6f;
  static constexpr float kC6 = 1.0f / 720, kC5 = 1.0f / 120, kC4 = 1.0f / 24, kC3 = 1.0f / 6, kC2 = 0.5f;
};

GPUVIS_BL_HD inline float weight_exp(float x) {
  using K = WeightExpConstants;
  x = x > K::kMin ? x : K::kMin;
#if defined(__CUDA_ARCH__)
  const float n = rintf(x * K::kLog2e);
#else
  const float n = std::nearbyint(x * K::kLog2e);  // to nearest even, as rintf and hn::Round
#endif
  const float r = (x - n * K::kLn2Hi) - n * K::kLn2Lo;
  float p = K::kC6;
  p = p * r + K::kC5;
  p = p * r + K::kC4;
  p = p * r + K::kC3;
  p = p * r + K::kC2;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const int bits = (static_cast<int>(n) + 127) << 23;  // 2^n, n in [-126, 0]
#if defined(__CUDA_ARCH__)
  return p * __int_as_float(bits);
#else
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return p * scale;
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
  GPUVIS_BL_HD float operator()(float d2, float coeff) const { return weight_exp(d2 * coeff); }
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
        for (int c = 0; c < C; ++c) sum[c] += w * v[c];
        wsum[0] += w;  // one weight for every channel: their sums of weights are this one
      } else {
        for (int c = 0; c < C; ++c) {
          const float w = ws * range((v[c] - centre[c]) * (v[c] - centre[c]), range_coeff[c]);
          sum[c] += w * v[c];
          wsum[c] += w;
        }
      }
    }
  for (int c = 0; c < C; ++c) out[c] = sum[c] / (mode == RangeMode::colour ? wsum[0] : wsum[c]);
}

}  // namespace gpuvis::filters::detail

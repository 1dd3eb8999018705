#pragma once
// One output element of each row kernel, in plain C++: all of row_kernels_portable.cpp, and the
// tails of rows shorter than a vector in row_kernels_hwy.cpp. The summation order is the one both
// implementations use.
#include <cmath>
#include <cstddef>
#include <limits>

#include "filters/bilateral_rules.hpp"
#include "filters/convolve_common.hpp"
#include "filters/cpu/row_kernels.hpp"

namespace gpuvis::filters::cpu_rows::scalar {

// The weight of one channel's difference d (grey, per-channel mode).
inline float channel_weight(const BilateralRow& r, float d) {
  return r.abs_table ? r.abs_table[static_cast<std::size_t>(std::abs(d))] : detail::weight_exp(d * d * r.range_coeff);
}
// The weight of a colour distance d².
inline float colour_weight(const BilateralRow& r, float d2) {
  return r.d2_table ? r.d2_table[static_cast<std::size_t>(d2)] : detail::weight_exp(d2 * r.range_coeff);
}

template <class T>
void to_float(const T* src, std::size_t n, float* dst) {
  for (std::size_t i = 0; i < n; ++i) dst[i] = static_cast<float>(src[i]);
}
// detail::saturate's result, in a form the compiler vectorises: clamped first (which changes no
// result), then rounded to nearest even by adding and subtracting 1.5 * 2^23, exact for
// |v| < 2^22 in the default rounding mode.
template <class T>
void from_float(const float* src, std::size_t n, T* dst) {
  constexpr float hi = static_cast<float>(std::numeric_limits<T>::max()), magic = 12582912.0f;
  for (std::size_t i = 0; i < n; ++i) {
    const float v = src[i] < 0.0f ? 0.0f : (src[i] > hi ? hi : src[i]);
    dst[i] = static_cast<T>((v + magic) - magic);
  }
}

// Pixel x of a bilateral row: out[c * width + x] for each channel. C channels; kPerChannel: each
// channel weighs by its own difference (so does grey); kL1: (Σ|d|)² for colour.
template <int C, bool kPerChannel, bool kL1>
inline void bilateral_at(const BilateralRow& r, int width, int x, float* out) {
  constexpr int kCompared = C == 4 ? 3 : C;
  const std::size_t centre_at = static_cast<std::size_t>(x + r.radius);
  float centre[C], sum[C], wsum[C];
  for (int c = 0; c < C; ++c) centre[c] = r.rows[r.radius * C + c][centre_at], sum[c] = wsum[c] = 0.0f;
  for (int t = 0; t < r.tap_count; ++t) {
    const float* const* row = r.rows + (r.tap_dy[t] + r.radius) * C;
    const std::size_t at = centre_at + r.tap_dx[t];
    float v[C];
    for (int c = 0; c < C; ++c) v[c] = row[c][at];
    if constexpr (kPerChannel) {
      for (int c = 0; c < C; ++c) {
        const float w = r.tap_weight[t] * channel_weight(r, v[c] - centre[c]);
        sum[c] += w * v[c];
        wsum[c] += w;
      }
    } else {
      float d2 = 0.0f;
      if constexpr (kL1) {
        for (int c = 0; c < kCompared; ++c) d2 += std::abs(v[c] - centre[c]);
        d2 *= d2;
      } else {
        for (int c = 0; c < kCompared; ++c) d2 += (v[c] - centre[c]) * (v[c] - centre[c]);
      }
      const float w = r.tap_weight[t] * colour_weight(r, d2);
      for (int c = 0; c < C; ++c) {
        sum[c] += w * v[c];
        wsum[c] += w;
      }
    }
  }
  for (int c = 0; c < C; ++c) out[static_cast<std::size_t>(c) * width + x] = sum[c] / wsum[c];
}

}  // namespace gpuvis::filters::cpu_rows::scalar

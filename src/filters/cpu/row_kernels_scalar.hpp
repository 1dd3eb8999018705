#pragma once
// One output element of each row kernel, in plain C++: all of row_kernels_portable.cpp, and the
// tails of rows shorter than a vector in row_kernels_hwy.cpp. The summation order is the one both
// implementations use.
#include <cmath>
#include <cstddef>

#include "../convolve_common.hpp"
#include "row_kernels.hpp"

namespace gpuvis::filters::cpu_rows::scalar {

inline float correlate_at(const float* const* taps, const float* weights, int tap_count, std::size_t x) {
  float acc = 0.0f;
  for (int t = 0; t < tap_count; ++t) acc += weights[t] * taps[t][x];
  return acc;
}

// The weight of one channel's difference d (grey, per-channel mode).
inline float channel_weight(const BilateralRow& r, float d) {
  return r.abs_table ? r.abs_table[static_cast<std::size_t>(std::abs(d))] : std::exp(d * d * r.range_coeff);
}
// The weight of a colour distance d².
inline float colour_weight(const BilateralRow& r, float d2) {
  return r.d2_table ? r.d2_table[static_cast<std::size_t>(d2)] : std::exp(d2 * r.range_coeff);
}

template <class T>
void to_float(const T* src, std::size_t n, float* dst) {
  for (std::size_t i = 0; i < n; ++i) dst[i] = static_cast<float>(src[i]);
}
template <class T>
void from_float(const float* src, std::size_t n, T* dst) {
  for (std::size_t i = 0; i < n; ++i) dst[i] = detail::saturate<T>(src[i]);
}

// Pixel x of a bilateral row: out[c * width + x] for each channel.
inline void bilateral_at(const BilateralRow& r, int width, int x, float* out) {
  const int C = r.channels, compared = C == 4 ? 3 : C;
  const std::size_t centre_at = static_cast<std::size_t>(x + r.radius);
  float centre[4], sum[4] = {0, 0, 0, 0}, wsum[4] = {0, 0, 0, 0};
  for (int c = 0; c < C; ++c) centre[c] = r.rows[r.radius * C + c][centre_at];
  for (int t = 0; t < r.tap_count; ++t) {
    const float* const* row = r.rows + (r.tap_dy[t] + r.radius) * C;
    const std::size_t at = centre_at + r.tap_dx[t];
    float v[4];
    for (int c = 0; c < C; ++c) v[c] = row[c][at];
    if (r.per_channel || C == 1) {
      for (int c = 0; c < C; ++c) {
        const float w = r.tap_weight[t] * channel_weight(r, v[c] - centre[c]);
        sum[c] += w * v[c];
        wsum[c] += w;
      }
    } else {
      float d2 = 0.0f;
      if (r.l1) {
        for (int c = 0; c < compared; ++c) d2 += std::abs(v[c] - centre[c]);
        d2 *= d2;
      } else {
        for (int c = 0; c < compared; ++c) d2 += (v[c] - centre[c]) * (v[c] - centre[c]);
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

// The row kernels without a SIMD library: plain loops the compiler vectorises for the baseline
// instruction set.
#include <algorithm>

#include "filters/cpu/row_kernels_scalar.hpp"

namespace gpuvis::filters::cpu_rows {

void correlate(const float* const* taps, const float* weights, int tap_count, std::size_t n, float* out) {
  // Tap by tap along the whole row: the loop the compiler vectorises best (measured: 3x faster
  // than the same sums over blocks of a small stack array).
  std::fill_n(out, n, 0.0f);
  for (int t = 0; t < tap_count; ++t) {
    const float w = weights[t], *p = taps[t];
    for (std::size_t x = 0; x < n; ++x) out[x] += w * p[x];
  }
}

void correlate_rows(const float* const* rows, const float* weights, int kernel_rows, int kernel_cols, const std::ptrdiff_t* offsets, int count,
                    std::size_t n, float* const* out) {
  std::vector<const float*> taps;
  std::vector<float> tap_weights;
  for (int j = 0; j < count; ++j) {
    taps.clear();
    tap_weights.clear();
    append_row_taps(rows, weights, kernel_rows, kernel_cols, offsets, j, taps, &tap_weights);
    correlate(taps.data(), tap_weights.data(), static_cast<int>(taps.size()), n, out[j]);
  }
}

namespace {
template <int C, bool kPerChannel, bool kL1>
void bilateral_row(const BilateralRow& row, int width, float* out) {
  for (int x = 0; x < width; ++x) scalar::bilateral_at<C, kPerChannel, kL1>(row, width, x, out);
}
template <int C>
void bilateral_mode(const BilateralRow& row, int width, float* out) {
  if (row.per_channel) bilateral_row<C, true, false>(row, width, out);
  else if (row.l1) bilateral_row<C, false, true>(row, width, out);
  else bilateral_row<C, false, false>(row, width, out);
}
}  // namespace

void bilateral(const BilateralRow& row, int width, float* out) {
  switch (row.channels) {
    case 1: return bilateral_row<1, true, false>(row, width, out);
    case 3: return bilateral_mode<3>(row, width, out);
    default: return bilateral_mode<4>(row, width, out);
  }
}

void to_float(const std::uint8_t* src, std::size_t n, float* dst) { scalar::to_float(src, n, dst); }
void to_float(const std::uint16_t* src, std::size_t n, float* dst) { scalar::to_float(src, n, dst); }
void from_float(const float* src, std::size_t n, std::uint8_t* dst) { scalar::from_float(src, n, dst); }
void from_float(const float* src, std::size_t n, std::uint16_t* dst) { scalar::from_float(src, n, dst); }

bool bilateral_uses_colour_table() { return true; }

bool bilateral_reuses_weights() { return false; }

void set_bilateral_lookup(WeightLookup) {}  // the portable loops always look up

WeightLookup bilateral_lookup() { return WeightLookup::gather; }
const char* bilateral_lookup_name() { return "gathered"; }

const char* implementation() { return "portable"; }

}  // namespace gpuvis::filters::cpu_rows

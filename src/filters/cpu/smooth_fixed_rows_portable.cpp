// Fixed-point smoothing rows without a SIMD library: each pass tap by tap along the whole row, in
// 16-bit sums (no pass passes 2^15 before its rounding, smooth_fixed_rule.h), the loop order the
// compiler vectorises for the baseline instruction set (per output, over its taps, it did not:
// 2.3x slower than the float path on a 16-thread Xeon, 2026-12-03). The same integers as the scalar
// rule (smooth_fixed_rows.hpp).
#include <algorithm>
#include <vector>

#include "filters/cpu/smooth_fixed_rows.hpp"

namespace gpuvis::filters::fixed_rows {

void to_samples(const std::uint8_t* src, std::size_t n, std::uint16_t* dst) { scalar::to_samples(src, n, dst); }

void row_pass(const std::uint16_t* centre, std::ptrdiff_t step, const std::uint16_t* w, int m, std::size_t n, std::uint16_t* out) {
  const auto bias = static_cast<std::uint16_t>(gpuvis_smooth_bias(m));
  for (std::size_t x = 0; x < n; ++x) out[x] = static_cast<std::uint16_t>(bias + gpuvis_smooth_tap(centre[x], w[0]));
  for (int k = 1; k <= m; ++k) {
    const std::uint16_t* left = centre - k * step;
    const std::uint16_t* right = centre + k * step;
    const unsigned wk = w[k];
    for (std::size_t x = 0; x < n; ++x)
      out[x] = static_cast<std::uint16_t>(out[x] + gpuvis_smooth_tap(static_cast<unsigned>(left[x]) + right[x], wk));
  }
}

void column_pass(const std::uint16_t* const* rows, const std::uint16_t* w, int m, std::size_t n, std::uint8_t* out) {
  thread_local std::vector<std::uint16_t> acc;
  acc.resize(n);
  const auto bias = static_cast<std::uint16_t>(gpuvis_smooth_bias(m));
  const std::uint16_t* centre = rows[m];
  for (std::size_t x = 0; x < n; ++x) acc[x] = static_cast<std::uint16_t>(bias + gpuvis_smooth_tap(centre[x], w[0]));
  for (int k = 1; k <= m; ++k) {
    const std::uint16_t* up = rows[m - k];
    const std::uint16_t* down = rows[m + k];
    const unsigned wk = w[k];
    for (std::size_t x = 0; x < n; ++x)
      acc[x] = static_cast<std::uint16_t>(acc[x] + gpuvis_smooth_tap(static_cast<unsigned>(up[x]) + down[x], wk));
  }
  for (std::size_t x = 0; x < n; ++x) out[x] = static_cast<std::uint8_t>(gpuvis_smooth_output(acc[x]));
}

const char* implementation() { return "scalar"; }

}  // namespace gpuvis::filters::fixed_rows

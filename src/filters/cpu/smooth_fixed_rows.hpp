#pragma once
// The CPU's loops of 8-bit smoothing in 16-bit fixed point (filters/smooth_fixed_rule.h), one row at
// a time: smooth_fixed_rows_hwy.cpp (Google Highway, 16-bit lanes, the best vector unit of the
// running CPU chosen at the first call) when the build found Highway, else the scalar loops below.
// Every implementation computes the rule's integers, so all give the same bytes.
#include <cstddef>
#include <cstdint>

#include "filters/smooth_fixed.hpp"  // the rule

namespace gpuvis::filters::fixed_rows {

// 8-bit samples as the row pass takes them (gpuvis_smooth_sample).
void to_samples(const std::uint8_t* src, std::size_t n, std::uint16_t* dst);

// The row pass over n samples of interleaved pixels: out[x] = bias + Σ_k tap(centre[x - k·step] +
// centre[x + k·step], w[k]) (the centre tap once), centre: sample 0's place in a row padded by m
// pixels each side; step: the channel count.
void row_pass(const std::uint16_t* centre, std::ptrdiff_t step, const std::uint16_t* w, int m, std::size_t n, std::uint16_t* out);

// The column pass: rows[0 .. 2m] are the row-pass results of source rows y - m .. y + m; out: row y
// as grey levels (gpuvis_smooth_output).
void column_pass(const std::uint16_t* const* rows, const std::uint16_t* w, int m, std::size_t n, std::uint8_t* out);

// "highway AVX3" and the like, or "scalar".
const char* implementation();

namespace scalar {
inline void to_samples(const std::uint8_t* src, std::size_t n, std::uint16_t* dst) {
  for (std::size_t i = 0; i < n; ++i) dst[i] = static_cast<std::uint16_t>(gpuvis_smooth_sample(src[i]));
}
inline void row_pass(const std::uint16_t* centre, std::ptrdiff_t step, const std::uint16_t* w, int m, std::size_t first, std::size_t n,
                     std::uint16_t* out) {
  for (std::size_t x = first; x < n; ++x) {
    const std::uint16_t* c = centre + x;
    unsigned acc = gpuvis_smooth_bias(m) + gpuvis_smooth_tap(c[0], w[0]);
    for (int k = 1; k <= m; ++k) acc += gpuvis_smooth_tap(unsigned{c[-k * step]} + c[k * step], w[k]);
    out[x] = static_cast<std::uint16_t>(acc);
  }
}
inline void column_pass(const std::uint16_t* const* rows, const std::uint16_t* w, int m, std::size_t first, std::size_t n,
                        std::uint8_t* out) {
  for (std::size_t x = first; x < n; ++x) {
    unsigned acc = gpuvis_smooth_bias(m) + gpuvis_smooth_tap(rows[m][x], w[0]);
    for (int k = 1; k <= m; ++k) acc += gpuvis_smooth_tap(unsigned{rows[m - k][x]} + rows[m + k][x], w[k]);
    out[x] = static_cast<std::uint8_t>(gpuvis_smooth_output(acc));
  }
}
}  // namespace scalar

}  // namespace gpuvis::filters::fixed_rows

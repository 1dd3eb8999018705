// The row kernels without a SIMD library: blocks of outputs kept in a small array the compiler
// holds in vector registers, so each tap costs one load per output, not a load and a store.
#include <algorithm>

#include "row_kernels_scalar.hpp"

namespace gpuvis::filters::cpu_rows {

void correlate(const float* const* taps, const float* weights, int tap_count, std::size_t n, float* out) {
  constexpr std::size_t block = 32;
  std::size_t x = 0;
  for (; x + block <= n; x += block) {
    float acc[block] = {};
    for (int t = 0; t < tap_count; ++t) {
      const float w = weights[t], *p = taps[t] + x;
      for (std::size_t k = 0; k < block; ++k) acc[k] += w * p[k];
    }
    std::copy_n(acc, block, out + x);
  }
  for (; x < n; ++x) out[x] = scalar::correlate_at(taps, weights, tap_count, x);
}

void bilateral(const BilateralRow& row, int width, float* out) {
  for (int x = 0; x < width; ++x) scalar::bilateral_at(row, width, x, out);
}

void to_float(const std::uint8_t* src, std::size_t n, float* dst) { scalar::to_float(src, n, dst); }
void to_float(const std::uint16_t* src, std::size_t n, float* dst) { scalar::to_float(src, n, dst); }
void from_float(const float* src, std::size_t n, std::uint8_t* dst) { scalar::from_float(src, n, dst); }
void from_float(const float* src, std::size_t n, std::uint16_t* dst) { scalar::from_float(src, n, dst); }

const char* implementation() { return "portable"; }

}  // namespace gpuvis::filters::cpu_rows

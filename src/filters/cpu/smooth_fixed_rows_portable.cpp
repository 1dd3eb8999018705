// Fixed-point smoothing rows without a SIMD library: the scalar loops of smooth_fixed_rows.hpp,
// which the compiler vectorises for the baseline instruction set.
#include "filters/cpu/smooth_fixed_rows.hpp"

namespace gpuvis::filters::fixed_rows {

void to_samples(const std::uint8_t* src, std::size_t n, std::uint16_t* dst) { scalar::to_samples(src, n, dst); }
void row_pass(const std::uint16_t* centre, std::ptrdiff_t step, const std::uint16_t* w, int m, std::size_t n, std::uint16_t* out) {
  scalar::row_pass(centre, step, w, m, 0, n, out);
}
void column_pass(const std::uint16_t* const* rows, const std::uint16_t* w, int m, std::size_t n, std::uint8_t* out) {
  scalar::column_pass(rows, w, m, 0, n, out);
}
const char* implementation() { return "scalar"; }

}  // namespace gpuvis::filters::fixed_rows

// The fixed-point form of an 8-bit separable convolution (smooth_fixed.hpp): the weights rounded to
// 1/65536 and the error bound that decides whether it is taken.
#include "filters/smooth_fixed.hpp"

#include <algorithm>
#include <cmath>

namespace gpuvis::filters::detail {
namespace {

// Half a symmetric vector (centre first), or none when it is not symmetric, not odd, too short or
// has a negative weight.
std::optional<std::vector<double>> half_of(const std::vector<float>& v) {
  const std::size_t n = v.size();
  if (n < 3 || n % 2 == 0 || n > static_cast<std::size_t>(kFixedMaxTaps)) return std::nullopt;
  const std::size_t m = n / 2;
  std::vector<double> half(m + 1);
  for (std::size_t k = 0; k <= m; ++k) {
    if (v[m - k] != v[m + k] || !(v[m + k] >= 0.0f)) return std::nullopt;
    half[k] = v[m + k];
  }
  return half;
}

double sum_of(const std::vector<double>& half) {
  double s = half[0];
  for (std::size_t k = 1; k < half.size(); ++k) s += 2 * half[k];
  return s;
}

// One pass's weights times 65536, rounded, the centre taking the rounding so that they sum to
// round(sum · 65536) (at most 65536); its bound in grey levels for samples in [0, top]: the
// weights' rounding (positive and negative parts apart: samples are not negative) plus the
// truncation of m + 1 products against the bias. None when a weight does not fit 16 bits.
struct Quantised {
  std::vector<std::uint16_t> w;
  double bound;
};
std::optional<Quantised> quantise(const std::vector<double>& half, double sum, double top) {
  const int m = static_cast<int>(half.size()) - 1;
  const long target = std::lround(std::min(sum, 1.0) * 65536.0);
  Quantised q{std::vector<std::uint16_t>(half.size()), 0};
  long sides = 0;
  for (int k = 1; k <= m; ++k) {
    const long wk = std::lround(half[k] * 65536.0);
    if (wk > 65535) return std::nullopt;
    q.w[k] = static_cast<std::uint16_t>(wk);
    sides += 2 * wk;
  }
  const long centre = target - sides;
  if (centre < 0 || centre > 65535) return std::nullopt;
  q.w[0] = static_cast<std::uint16_t>(centre);
  double over = 0, under = 0;  // the rounded weights' excess and shortfall, taps counted singly
  for (int k = 0; k <= m; ++k) {
    const double d = q.w[k] / 65536.0 - half[k], taps = k == 0 ? 1 : 2;
    (d > 0 ? over : under) += taps * std::fabs(d);
  }
  const double bias = gpuvis_smooth_bias(m), truncation = std::max(bias, (m + 1) - bias) / (1 << GPUVIS_SMOOTH_FRACTION_BITS);
  q.bound = top * std::max(over, under) + truncation;
  return q;
}

}  // namespace

std::optional<FixedSmoothing> fixed_smoothing(const SeparableKernel& kernel, const Border& border) {
  if (!kernel.separable) return std::nullopt;
  if (border.mode == BorderMode::constant && !(border.value >= 0 && border.value <= 255 && border.value == std::floor(border.value)))
    return std::nullopt;
  auto row = half_of(kernel.row), column = half_of(kernel.column);
  if (!row || !column) return std::nullopt;
  const double row_sum = sum_of(*row), column_sum = sum_of(*column);
  if (!(row_sum > 0) || row_sum * column_sum > 1.0 + 1e-6) return std::nullopt;
  // The row vector scaled to sum 1 and the column vector by as much, the same kernel.
  for (double& v : *row) v /= row_sum;
  for (double& v : *column) v *= row_sum;
  const auto r = quantise(*row, 1.0, 255.0);
  if (!r) return std::nullopt;
  const auto c = quantise(*column, column_sum * row_sum, 255.0 + r->bound);  // the row pass's results may pass 255 by its bound
  if (!c) return std::nullopt;
  FixedSmoothing f{r->w, c->w, std::min(1.0, column_sum * row_sum) * r->bound + c->bound};
  if (f.error_bound > 0.5) return std::nullopt;
  return f;
}

}  // namespace gpuvis::filters::detail

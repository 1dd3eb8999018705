#pragma once
// When an 8-bit image's separable convolution runs in 16-bit fixed point (filters/smooth_fixed_rule.h)
// instead of float sums, and its weights there. The CPU, CUDA and OpenCL backends take it for the
// same kernels and compute the same bytes.
//
// A kernel is taken when both of its vectors are symmetric (each weight equal to its mirror's),
// have 3 to 33 taps (kFixedMaxTaps: a CUDA block's tile fits the shared memory of every GPU the
// build targets) and no negative weight, the kernel's weights sum to at most 1, a constant border
// is a whole grey level, and the error bound below is at most half a grey level: smoothing kernels
// (Gaussian up to σ 5.3, box, binomial). Then every output is within one grey level of the float
// sums' output (both round values less than one grey level apart), and equal to it except where
// the exact value lies within the bound of a half grey level.
#include <cstdint>
#include <optional>
#include <vector>

#include "gpuvis/core/image.hpp"  // GPUVIS_HD
#include "gpuvis/filters/convolve.hpp"

#define GPUVIS_RULE GPUVIS_HD static inline
#include "filters/smooth_fixed_rule.h"
#undef GPUVIS_RULE

namespace gpuvis::filters::detail {

inline constexpr int kFixedMaxTaps = 33;

struct FixedSmoothing {
  std::vector<std::uint16_t> row, column;  // w[0] (the centre) .. w[m], per smooth_fixed_rule.h
  // How far the fixed-point value can be from the exact one, in grey levels, before the rounding to
  // a grey level: the truncations of both passes plus the weights' rounding, for any image.
  double error_bound = 0;
  int row_half() const { return static_cast<int>(row.size()) - 1; }
  int column_half() const { return static_cast<int>(column.size()) - 1; }
};

// The fixed-point form of a separable kernel for 8-bit images under `border`, or none when the
// float sums must be kept (see above).
std::optional<FixedSmoothing> fixed_smoothing(const SeparableKernel& kernel, const Border& border);

}  // namespace gpuvis::filters::detail

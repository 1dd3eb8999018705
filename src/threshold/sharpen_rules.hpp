#pragma once
// The sharpening before the threshold (threshold::Params::sharpen), one pixel at a time, compiled
// for the CPU and CUDA backends from the rule the OpenCL kernel compiles too (sharpen_rule.h), so
// that all three give the same frame bit for bit.
#include <cstdint>

#include "gpuvis/core/image.hpp"

#define GPUVIS_RULE GPUVIS_HD static inline
#include "threshold/sharpen_rule.h"
#undef GPUVIS_RULE

namespace gpuvis::threshold::detail {

// One pixel from its value and its four neighbours (defined once in C for the three backends:
// sharpen_rule.h).
GPUVIS_HD inline std::uint8_t sharpened(int g, int n, int s, int w, int e, int k) { return gpuvis_sharpened(g, n, s, w, e, k); }

// Pixel (x, y) of the sharpened view; neighbours outside the frame repeat the edge.
template <class View>
GPUVIS_HD inline std::uint8_t sharpened_at(const View& src, int x, int y, int k) {
  const int g = src(x, y);
  const int n = y > 0 ? src(x, y - 1) : g, s = y + 1 < src.height ? src(x, y + 1) : g;
  const int w = x > 0 ? src(x - 1, y) : g, e = x + 1 < src.width ? src(x + 1, y) : g;
  return sharpened(g, n, s, w, e, k);
}

}  // namespace gpuvis::threshold::detail

#pragma once
// The sharpening before the threshold (threshold::Params::sharpen), one pixel at a time, compiled
// for both backends so that they give the same frame bit for bit.
#include <cstdint>

#include "gpuvis/core/image.hpp"

namespace gpuvis::threshold::detail {

GPUVIS_HD inline int smaller(int a, int b) { return a < b ? a : b; }
GPUVIS_HD inline int larger(int a, int b) { return a > b ? a : b; }

// Pixels whose neighbourhood spans fewer grey levels are left alone: sharpening them would only
// amplify noise and the faint texture of low-contrast prints (measured: docs/benchmarks/detect.md).
inline constexpr int kSharpenMinRange = 48;

// g + k·(4g − n − s − w − e)/4 in integers (division truncated towards zero), kept within the
// range of g and its four neighbours, where that range is at least kSharpenMinRange. The limit
// matters: unlimited sharpening overshoots at every edge, and an overshoot just inside a Bernsen
// window whose edge lies just outside it makes a flat area look contrasted (black specks in large
// white leaves); limited, an edge only gets steeper.
GPUVIS_HD inline std::uint8_t sharpened(int g, int n, int s, int w, int e, int k) {
  const int lo = smaller(smaller(smaller(g, n), smaller(s, w)), e);
  const int hi = larger(larger(larger(g, n), larger(s, w)), e);
  if (hi - lo < kSharpenMinRange) return static_cast<std::uint8_t>(g);
  const int v = g + k * (4 * g - n - s - w - e) / 4;
  return static_cast<std::uint8_t>(v < lo ? lo : (v > hi ? hi : v));
}

// Pixel (x, y) of the sharpened view; neighbours outside the frame repeat the edge.
template <class View>
GPUVIS_HD inline std::uint8_t sharpened_at(const View& src, int x, int y, int k) {
  const int g = src(x, y);
  const int n = y > 0 ? src(x, y - 1) : g, s = y + 1 < src.height ? src(x, y + 1) : g;
  const int w = x > 0 ? src(x - 1, y) : g, e = x + 1 < src.width ? src(x + 1, y) : g;
  return sharpened(g, n, s, w, e, k);
}

}  // namespace gpuvis::threshold::detail

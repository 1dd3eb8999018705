// Full per-pixel Bernsen threshold on the CPU, O(1) work per pixel for any window.
//
// Max and min over a square window are separable. The frame is cut into one band of rows per
// thread, and each band does both passes: the vertical one (van Herk over strips of 64 columns,
// vectorised across the strip, its k-row scratch in L1) over the band's rows and the r rows beyond
// each side, into the band's rows of column extrema; then per row the horizontal pass and the
// decision. A band of n <= 2r+1 rows reads its n + 2r rows once forwards and once backwards, as the
// whole frame does per row, so the cut costs no extra work; one pass over the pool and one wait, and
// each band's intermediate rows stay in its own core's cache. Each output pixel depends only on the
// source, so the output never depends on the thread count.
#include <algorithm>
#include <vector>

#include "threshold/rules.hpp"
#include "gpuvis/core/parallel.hpp"
#include "gpuvis/threshold/threshold.hpp"
#include "threshold/cpu/threshold_cpu.hpp"
#include "threshold/cpu/running_extrema.hpp"

namespace gpuvis::threshold {

namespace {
constexpr int kLanes = 64;  // columns per vertical strip

// Scratch of one thread, kept between frames (the pool's threads are persistent).
struct BandScratch {
  std::vector<std::uint8_t> vertical, pad, column_max, column_min, mx, mn;
  std::vector<std::uint8_t> zeros = std::vector<std::uint8_t>(kLanes, 0), full = std::vector<std::uint8_t>(kLanes, 255);
};

void bernsen_band(HostView<const std::uint8_t> src, HostView<std::uint8_t> dst, int r, int gate, int y0, int y1) {
  static thread_local BandScratch s;
  const int w = src.width, h = src.height, n = y1 - y0;
  const auto uw = static_cast<std::size_t>(w);
  s.column_max.resize(uw * static_cast<std::size_t>(n));
  s.column_min.resize(uw * static_cast<std::size_t>(n));
  s.mx.resize(uw);
  s.mn.resize(uw);
  for (int c0 = 0; c0 < w; c0 += kLanes) {
    const int lanes = std::min(kLanes, w - c0);
    // Padded row i is frame row y0 - r + i; rows outside the frame are neutral.
    auto row_max = [&](int i) -> const std::uint8_t* {
      const int y = y0 - r + i;
      return (y < 0 || y >= h) ? s.zeros.data() : src.row(y) + c0;
    };
    auto row_min = [&](int i) -> const std::uint8_t* {
      const int y = y0 - r + i;
      return (y < 0 || y >= h) ? s.full.data() : src.row(y) + c0;
    };
    detail::running_extrema_rows(n, r, lanes, row_max, row_min,
                                 [&](int i, const std::uint8_t* mx, const std::uint8_t* mn) {
                                   std::copy_n(mx, lanes, s.column_max.data() + static_cast<std::size_t>(i) * uw + c0);
                                   std::copy_n(mn, lanes, s.column_min.data() + static_cast<std::size_t>(i) * uw + c0);
                                 },
                                 s.vertical);
  }
  for (int i = 0; i < n; ++i) {
    // The horizontal max of the column max, and the horizontal min of the column min.
    const std::size_t at = static_cast<std::size_t>(i) * uw;
    detail::running_extrema_line(s.column_max.data() + at, s.column_min.data() + at, w, r, s.mx.data(), s.mn.data(), s.pad);
    rules::bernsen_row(src.row(y0 + i), s.mx.data(), s.mn.data(), dst.row(y0 + i), w, gate);
  }
}
}  // namespace

void bernsen_cpu(HostView<const std::uint8_t> src, HostView<std::uint8_t> dst, const BernsenParams& p) {
  require(src.channels == 1 && same_shape(src, dst), "bernsen: source and destination must be one-channel images of equal size");
  check_image_shape(src.width, src.height, 1);
  const int h = src.height, r = p.half_window;
  // One band per thread, of at least 16 rows (a thinner band would spend its time on the halo).
  constexpr int kLeastBandRows = 16;
  const int bands = std::max(1, std::min(num_threads(), h / kLeastBandRows));
  parallel_for(0, bands, 1, [&](std::ptrdiff_t b0, std::ptrdiff_t b1) {
    for (std::ptrdiff_t b = b0; b < b1; ++b) {
      const int y0 = static_cast<int>(b * h / bands), y1 = static_cast<int>((b + 1) * h / bands);
      bernsen_band(src, dst, r, p.gate, y0, y1);
    }
  });
}

void bernsen_naive(HostView<const std::uint8_t> src, HostView<std::uint8_t> dst, const BernsenParams& p) {
  require(src.channels == 1 && same_shape(src, dst), "bernsen: source and destination must be one-channel images of equal size");
  const int w = src.width, h = src.height, r = p.half_window;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      unsigned mx = 0, mn = 255;
      for (int v = std::max(0, y - r); v <= std::min(h - 1, y + r); ++v)
        for (int u = std::max(0, x - r); u <= std::min(w - 1, x + r); ++u) {
          mx = std::max<unsigned>(mx, src(u, v));
          mn = std::min<unsigned>(mn, src(u, v));
        }
      dst(x, y) = rules::bernsen(src(x, y), mx, mn, p.gate);
    }
}

}  // namespace gpuvis::threshold

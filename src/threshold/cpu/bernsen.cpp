// Full per-pixel Bernsen threshold on the CPU, O(1) work per pixel for any window.
//
// Max and min over a square window are separable: a vertical pass (van Herk, vectorised across a
// strip of columns) produces the column-wise extrema, then a horizontal pass per row produces the
// window extrema and applies the decision rule in the same loop. Both passes are parallel over
// independent strips, so the output never depends on the thread count.
#include <algorithm>
#include <vector>

#include "threshold/rules.hpp"
#include "gpuvis/core/parallel.hpp"
#include "gpuvis/threshold/threshold.hpp"
#include "threshold/cpu/threshold_cpu.hpp"
#include "threshold/cpu/running_extrema.hpp"

namespace gpuvis::threshold {

void bernsen_cpu(HostView<const std::uint8_t> src, HostView<std::uint8_t> dst, const BernsenParams& p) {
  require(src.channels == 1 && same_shape(src, dst), "bernsen: source and destination must be one-channel images of equal size");
  check_image_shape(src.width, src.height, 1);
  const int w = src.width, h = src.height, r = p.half_window;

  // Column extrema, kept between calls: a fresh 2x frame-size allocation per call costs page
  // faults that dominate large frames.
  // (Named references: the worker threads must see this thread's buffers, not their own.)
  static thread_local Image<std::uint8_t> vmax_cache, vmin_cache;
  if (vmax_cache.width() != w || vmax_cache.height() != h) {
    vmax_cache = Image<std::uint8_t>(w, h);
    vmin_cache = Image<std::uint8_t>(w, h);
  }
  Image<std::uint8_t>& vmax = vmax_cache;
  Image<std::uint8_t>& vmin = vmin_cache;
  // Vertical pass over strips of columns: 64 lanes keep the k-row scratch in L1/L2.
  constexpr int kLanes = 64;
  const int strips = (w + kLanes - 1) / kLanes;
  parallel_for(0, strips, 1, [&](std::ptrdiff_t s0, std::ptrdiff_t s1) {
    std::vector<std::uint8_t> scratch;
    std::vector<std::uint8_t> zeros(kLanes, 0), full(kLanes, 255);
    for (std::ptrdiff_t s = s0; s < s1; ++s) {
      const int c0 = static_cast<int>(s) * kLanes;
      const int lanes = std::min(kLanes, w - c0);
      auto row_max = [&](int i) -> const std::uint8_t* {
        const int y = i - r;
        return (y < 0 || y >= h) ? zeros.data() : src.row(y) + c0;
      };
      auto row_min = [&](int i) -> const std::uint8_t* {
        const int y = i - r;
        return (y < 0 || y >= h) ? full.data() : src.row(y) + c0;
      };
      detail::running_extrema_rows(h, r, lanes, row_max, row_min,
                                   [&](int y, const std::uint8_t* mx, const std::uint8_t* mn) {
                                     std::copy_n(mx, lanes, vmax.row(y) + c0);
                                     std::copy_n(mn, lanes, vmin.row(y) + c0);
                                   },
                                   scratch);
    }
  });

  // Horizontal pass and decision, per row.
  parallel_for(0, h, 8, [&](std::ptrdiff_t y0, std::ptrdiff_t y1) {
    std::vector<std::uint8_t> pad, mx(static_cast<std::size_t>(w)), mn(static_cast<std::size_t>(w));
    for (std::ptrdiff_t yy = y0; yy < y1; ++yy) {
      const int y = static_cast<int>(yy);
      // The horizontal max of the vertical max, and the horizontal min of the vertical min.
      detail::running_extrema_line(vmax.row(y), vmin.row(y), w, r, mx.data(), mn.data(), pad);
      rules::bernsen_row(src.row(y), mx.data(), mn.data(), dst.row(y), w, p.gate);
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

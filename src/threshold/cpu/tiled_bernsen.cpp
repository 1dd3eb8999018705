// reacTIVision 1.6's tiled Bernsen threshold (spec §2.4) over the whole frame as one strip.
// Cell statistics and output rows are computed in parallel, but every value follows the one-strip
// definition, so the result does not depend on the thread count (reacTIVision's does: quirk Q3).
#include <vector>

#include "threshold/rules.hpp"
#include "gpuvis/core/parallel.hpp"
#include "gpuvis/threshold/threshold.hpp"
#include "threshold/cpu/threshold_cpu.hpp"

namespace gpuvis::threshold {

void tiled_bernsen_cpu(HostView<const std::uint8_t> src, HostView<std::uint8_t> dst, const TiledParams& p) {
  require(src.channels == 1 && same_shape(src, dst), "tiled: source and destination must be one-channel images of equal size");
  check_image_shape(src.width, src.height, 1);
  const int w = src.width, h = src.height, t = p.tile;
  const auto cx = rules::CellAxis::make(w, t), cy = rules::CellAxis::make(h, t);
  const int cells = cx.count * cy.count;

  // 1. Cell statistics, one sequential scan per cell (quirk Q1 makes the order matter).
  std::vector<unsigned> stats(static_cast<std::size_t>(cells));
  parallel_for(0, cy.count, 1, [&](std::ptrdiff_t r0, std::ptrdiff_t r1) {
    for (int j = static_cast<int>(r0); j < r1; ++j)
      for (int i = 0; i < cx.count; ++i)
        stats[static_cast<std::size_t>(j) * cx.count + i] =
            rules::cell_stats(src, cx.begin(i, w), cx.end(i, w), cy.begin(j, h), cy.end(j, h));
  });

  // 2. Tile thresholds from the 2x2 cell neighbourhood, addressed linearly as reacTIVision does:
  //    column Cx wraps to cell 0 of the next cell row, and rows past the grid read (0, 0) (quirk Q2).
  const int tiles_x = (w + t - 1) / t, tiles_y = (h + t - 1) / t;
  std::vector<std::uint8_t> thr(static_cast<std::size_t>(tiles_x) * tiles_y);
  auto cell = [&](int i, int j) -> unsigned {
    const long idx = static_cast<long>(j) * cx.count + i;
    return idx < cells ? stats[static_cast<std::size_t>(idx)] : 0u;
  };
  for (int ty = 0; ty < tiles_y; ++ty)
    for (int tx = 0; tx < tiles_x; ++tx) {
      int mn = 255, mx = 0;
      for (unsigned c : {cell(tx, ty), cell(tx + 1, ty), cell(tx, ty + 1), cell(tx + 1, ty + 1)}) {
        mn = std::min<int>(mn, static_cast<int>(c & 0xff));
        mx = std::max<int>(mx, static_cast<int>(c >> 8));
      }
      thr[static_cast<std::size_t>(ty) * tiles_x + tx] = static_cast<std::uint8_t>(rules::tiled_threshold(mn, mx, p.gradient));
    }

  // 3. Output: white iff v > tile threshold.
  parallel_for(0, h, 16, [&](std::ptrdiff_t y0, std::ptrdiff_t y1) {
    for (int y = static_cast<int>(y0); y < y1; ++y) {
      const std::uint8_t* tr = thr.data() + static_cast<std::size_t>(y / t) * tiles_x;
      const std::uint8_t* s = src.row(y);
      std::uint8_t* d = dst.row(y);
      for (int x = 0; x < w; ++x) d[x] = s[x] > tr[x / t] ? 255 : 0;
    }
  });
}

}  // namespace gpuvis::threshold

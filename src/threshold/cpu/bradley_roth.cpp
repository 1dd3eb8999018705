// reacTIVision 1.6's Bradley-Roth threshold (spec §2.5) on the whole frame. The window sums are
// exact integers, computed here as a vertical running sum per column (vectorised across columns)
// followed by a prefix sum along each row; any exact method gives the same sums, so the CUDA
// version matches bit for bit.
#include <vector>

#include "threshold/rules.hpp"
#include "gpuvis/core/parallel.hpp"
#include "gpuvis/threshold/threshold.hpp"
#include "threshold/cpu/threshold_cpu.hpp"

namespace gpuvis::threshold {

void bradley_roth_cpu(HostView<const std::uint8_t> src, HostView<std::uint8_t> dst, const BradleyRothParams& p) {
  require(src.channels == 1 && same_shape(src, dst), "bradley-roth: source and destination must be one-channel images of equal size");
  check_image_shape(src.width, src.height, 1);
  const int w = src.width, h = src.height;
  const rules::BradleyRothConst c = rules::bradley_roth_const(h, p.size, p.bias, p.contrast);
  const int r = c.r;

  // Column sums over rows [max(0,y-r), min(h,y+r+1)): at most 127 rows of 255, fits 16 bits.
  // Kept between calls (no per-frame page faults); a named reference so that the worker threads
  // use this thread's buffer.
  static thread_local Image<std::uint16_t> colsum_cache;
  if (colsum_cache.width() != w || colsum_cache.height() != h) colsum_cache = Image<std::uint16_t>(w, h);
  Image<std::uint16_t>& colsum = colsum_cache;
  constexpr int kLanes = 256;
  parallel_for(0, (w + kLanes - 1) / kLanes, 1, [&](std::ptrdiff_t s0, std::ptrdiff_t s1) {
    std::vector<std::uint16_t> acc(kLanes);
    for (std::ptrdiff_t s = s0; s < s1; ++s) {
      const int c0 = static_cast<int>(s) * kLanes, lanes = std::min(kLanes, w - c0);
      std::fill(acc.begin(), acc.end(), std::uint16_t{0});
      for (int y = 0; y < std::min(h, r); ++y)
        for (int i = 0; i < lanes; ++i) acc[i] = static_cast<std::uint16_t>(acc[i] + src.row(y)[c0 + i]);
      for (int y = 0; y < h; ++y) {
        if (y + r < h) {
          const std::uint8_t* in = src.row(y + r) + c0;
          for (int i = 0; i < lanes; ++i) acc[i] = static_cast<std::uint16_t>(acc[i] + in[i]);
        }
        if (y - r - 1 >= 0) {
          const std::uint8_t* out = src.row(y - r - 1) + c0;
          for (int i = 0; i < lanes; ++i) acc[i] = static_cast<std::uint16_t>(acc[i] - out[i]);
        }
        std::copy_n(acc.data(), lanes, colsum.row(y) + c0);
      }
    }
  });

  parallel_for(0, h, 8, [&](std::ptrdiff_t y0, std::ptrdiff_t y1) {
    std::vector<std::uint32_t> prefix(static_cast<std::size_t>(w) + 1);
    for (int y = static_cast<int>(y0); y < y1; ++y) {
      const std::uint16_t* cs = colsum.row(y);
      prefix[0] = 0;
      for (int x = 0; x < w; ++x) prefix[x + 1] = prefix[x] + cs[x];
      const int wy0 = std::max(0, y - r), wy1 = std::min(h, y + r + 1);
      const std::uint8_t* s = src.row(y);
      std::uint8_t* d = dst.row(y);
      for (int x = 0; x < w; ++x) {
        const int wx0 = std::max(0, x - r), wx1 = std::min(w, x + r + 1);
        d[x] = rules::bradley_roth(s[x], prefix[wx1] - prefix[wx0], x, w, wx0, wx1, wy0, wy1, c);
      }
    }
  });
}

}  // namespace gpuvis::threshold

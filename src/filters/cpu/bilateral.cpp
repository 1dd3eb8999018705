// Bilateral filter on the CPU: rows in parallel; each thread keeps the 2r+1 source rows it needs,
// converted to float and padded per the border mode, so neighbour reads need no bounds checks.
#include <vector>

#include "../bilateral_rules.hpp"
#include "gpuvis/core/parallel.hpp"

namespace gpuvis::filters {
namespace {

template <class T, int C>
void run(HostView<const T> src, HostView<T> dst, const BilateralParams& p) {
  const int w = src.width, h = src.height, r = p.radius;
  const std::size_t padded = static_cast<std::size_t>(w + 2 * r) * C;
  const float space_coeff = -0.5f / (p.sigma_space * p.sigma_space);
  parallel_for(0, h, 4, [&](std::ptrdiff_t y0, std::ptrdiff_t y1) {
    std::vector<float> rows(padded * (2 * r + 1));
    for (int y = static_cast<int>(y0); y < y1; ++y) {
      for (int j = 0; j < 2 * r + 1; ++j) {
        float* row = rows.data() + padded * j;
        const int yy = border_index(y + j - r, h, p.border.mode);
        for (int x = -r; x < w + r; ++x) {
          const int xx = border_index(x, w, p.border.mode);
          for (int c = 0; c < C; ++c)
            row[(x + r) * C + c] = (xx < 0 || yy < 0) ? p.border.value : static_cast<float>(src.row(yy)[xx * C + c]);
        }
      }
      T* out = dst.row(y);
      for (int x = 0; x < w; ++x) {
        auto fetch = [&](int dx, int dy, int c) { return rows[padded * (dy + r) + static_cast<std::size_t>(x + dx + r) * C + c]; };
        float o[C];
        detail::bilateral_pixel<C>(fetch, r, space_coeff, p.sigma_range, p.adaptive, p.mode, p.distance, o);
        for (int c = 0; c < C; ++c) out[x * C + c] = detail::saturate<T>(o[c]);
      }
    }
  });
}

}  // namespace

template <class T>
void bilateral_cpu(HostView<const T> src, HostView<T> dst, const BilateralParams& p) {
  validate(p);
  detail::check_images(src, dst);
  switch (src.channels) {
    case 1: return run<T, 1>(src, dst, p);
    case 3: return run<T, 3>(src, dst, p);
    default: return run<T, 4>(src, dst, p);
  }
}

template void bilateral_cpu<std::uint8_t>(HostView<const std::uint8_t>, HostView<std::uint8_t>, const BilateralParams&);
template void bilateral_cpu<std::uint16_t>(HostView<const std::uint16_t>, HostView<std::uint16_t>, const BilateralParams&);
template void bilateral_cpu<float>(HostView<const float>, HostView<float>, const BilateralParams&);

}  // namespace gpuvis::filters

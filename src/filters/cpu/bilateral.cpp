// Bilateral filter on the CPU: rows in parallel; each thread keeps the 2r+1 source rows it needs,
// converted to float and padded per the border mode, so neighbour reads need no bounds checks.
#include <cmath>
#include <type_traits>
#include <vector>

#include "../bilateral_rules.hpp"
#include "gpuvis/core/parallel.hpp"
#include "filters/filter_backends.hpp"

namespace gpuvis::filters {
namespace {

template <class T, int C>
void run(HostView<const T> src, HostView<T> dst, const BilateralParams& p) {
  const int w = src.width, h = src.height, r = p.radius, k = 2 * r + 1;
  const std::size_t padded = static_cast<std::size_t>(w + 2 * r) * C;
  const float space_coeff = -0.5f / (p.sigma_space * p.sigma_space);
  std::vector<float> space_table(static_cast<std::size_t>(k) * k);
  for (int dy = -r; dy <= r; ++dy)
    for (int dx = -r; dx <= r; ++dx) space_table[(dy + r) * k + dx + r] = std::exp(static_cast<float>(dx * dx + dy * dy) * space_coeff);
  auto space = [&](int dx, int dy) { return space_table[(dy + r) * k + dx + r]; };
  // 8-bit images with a fixed range sigma: squared distances are integers up to 3 * 255^2 (l2),
  // 765^2 (l1) or 255^2 (grey / per channel), so exp() becomes a table lookup.
  std::vector<float> range_table;
  const float range_coeff = -0.5f / (p.sigma_range * p.sigma_range);
  if (std::is_same_v<T, std::uint8_t> && !p.adaptive) {
    const int cc = C == 4 ? 3 : C;
    const int max_d2 = p.mode == RangeMode::per_channel || cc == 1 ? 255 * 255
                       : p.distance == ColourDistance::l2      ? cc * 255 * 255
                                                               : (cc * 255) * (cc * 255);
    range_table.resize(static_cast<std::size_t>(max_d2) + 1);
    for (int i = 0; i <= max_d2; ++i) range_table[i] = std::exp(static_cast<float>(i) * range_coeff);
  }
  parallel_for(0, h, 4, [&](std::ptrdiff_t y0, std::ptrdiff_t y1) {
    // A ring of the 2r+1 padded float rows around the current row; each source row is converted
    // once per thread.
    std::vector<float> ring(padded * k);
    std::vector<int> tag(k, -(1 << 30));
    auto row_ptr = [&](int sy) {
      const int slot = ((sy % k) + k) % k;
      float* row = ring.data() + padded * slot;
      if (tag[slot] != sy) {
        tag[slot] = sy;
        const int yy = border_index(sy, h, p.border.mode);
        for (int x = -r; x < w + r; ++x) {
          const int xx = border_index(x, w, p.border.mode);
          for (int c = 0; c < C; ++c)
            row[(x + r) * C + c] = (xx < 0 || yy < 0) ? p.border.value : static_cast<float>(src.row(yy)[xx * C + c]);
        }
      }
      return row;
    };
    std::vector<const float*> rows(static_cast<std::size_t>(k));
    for (int y = static_cast<int>(y0); y < y1; ++y) {
      for (int j = 0; j < k; ++j) rows[j] = row_ptr(y + j - r);
      T* out = dst.row(y);
      for (int x = 0; x < w; ++x) {
        auto fetch = [&](int dx, int dy, int c) { return rows[dy + r][static_cast<std::size_t>(x + dx + r) * C + c]; };
        float o[C];
        if (!range_table.empty()) {
          auto lut = [&](float d2, float) { return range_table[static_cast<std::size_t>(d2)]; };
          detail::bilateral_pixel<C>(fetch, r, space, lut, p.sigma_range, p.adaptive, p.mode, p.distance, o);
        } else {
          detail::bilateral_pixel<C>(fetch, r, space, detail::ExpWeight{}, p.sigma_range, p.adaptive, p.mode, p.distance, o);
        }
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

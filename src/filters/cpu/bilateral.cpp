// Bilateral filter on the CPU: rows in parallel; each thread keeps the 2r+1 source rows it needs,
// converted to float, split into planes and padded per the border mode, so neighbour reads need no
// bounds checks and a vector of neighbours is one load. A fixed σr runs cpu_rows::bilateral along
// the row, reusing for each tap above the weights that the row above computed for the opposite tap
// below (a weight depends only on the two pixels it joins); the adaptive σr, which needs each
// window's statistics first, runs bilateral_pixel per pixel as the CUDA backend does.
#include <algorithm>
#include <cmath>
#include <span>
#include <type_traits>
#include <vector>

#include "filters/bilateral_rules.hpp"
#include "gpuvis/core/parallel.hpp"
#include "filters/filter_backends.hpp"
#include "filters/cpu/row_kernels.hpp"
#include "filters/cpu/thread_scratch.hpp"

namespace gpuvis::filters {
namespace {

// The spatial weights of the (2r+1)² window, and for 8-bit images with a fixed range sigma the
// range weights by integer difference: differences are integers, so the range weight can be looked
// up, by |d| (up to 255) where one channel decides, by the colour distance d² (up to 3·255² for
// l2, 765² for l1) otherwise. The tables hold weight_exp's values, so a lookup gives what
// computing gives.
struct WeightTables {
  std::vector<float> space, abs, d2;
  float range_coeff = 0;
};

template <class T, int C>
WeightTables weight_tables(const BilateralParams& p) {
  WeightTables t;
  const int r = p.radius, k = 2 * r + 1;
  const float space_coeff = -0.5f / (p.sigma_space * p.sigma_space);
  t.space.resize(static_cast<std::size_t>(k) * k);
  for (int dy = -r; dy <= r; ++dy)
    for (int dx = -r; dx <= r; ++dx) t.space[(dy + r) * k + dx + r] = detail::weight_exp(static_cast<float>(dx * dx + dy * dy) * space_coeff);
  t.range_coeff = -0.5f / (p.sigma_range * p.sigma_range);
  if (std::is_same_v<T, std::uint8_t> && !p.adaptive) {
    t.abs.resize(256);
    for (int i = 0; i < 256; ++i) t.abs[i] = detail::weight_exp(static_cast<float>(i * i) * t.range_coeff);
    const int cc = C == 4 ? 3 : C;
    if (p.mode == RangeMode::colour && cc > 1 && cpu_rows::bilateral_uses_colour_table()) {
      const int max_d2 = p.distance == ColourDistance::l2 ? cc * 255 * 255 : (cc * 255) * (cc * 255);
      t.d2.resize(static_cast<std::size_t>(max_d2) + 1);
      for (int i = 0; i <= max_d2; ++i) t.d2[i] = detail::weight_exp(static_cast<float>(i) * t.range_coeff);
    }
  }
  return t;
}

// The window's taps in bilateral_pixel's order (dy, then dx), with their spatial weights. Taps
// below (dy > 0) store their weights for the rows below to reuse for the opposite tap
// (BilateralRow::store and reuse): below[t] numbers tap t's stored weights, above[t] is where tap
// t's opposite keeps them.
struct WindowTaps {
  std::vector<int> dx, dy, below, above;
  std::vector<float> weight;
  int count = 0, below_count = 0;
};

WindowTaps window_taps(int r, const std::vector<float>& space) {
  const int k = 2 * r + 1;
  WindowTaps w;
  for (int dy = -r; dy <= r; ++dy)
    for (int dx = -r; dx <= r; ++dx)
      if (dx * dx + dy * dy <= r * r) {
        w.dx.push_back(dx), w.dy.push_back(dy), w.weight.push_back(space[(dy + r) * k + dx + r]);
      }
  w.count = static_cast<int>(w.weight.size());
  w.below.assign(w.count, -1);
  w.above.assign(w.count, -1);
  std::vector<int> below_at(static_cast<std::size_t>(k) * k, -1);  // by (dy + r, dx + r)
  for (int t = 0; t < w.count; ++t)
    if (w.dy[t] > 0) below_at[(w.dy[t] + r) * k + w.dx[t] + r] = w.below[t] = w.below_count++;
  for (int t = 0; t < w.count; ++t)
    if (w.dy[t] < 0) w.above[t] = below_at[(r - w.dy[t]) * k + r - w.dx[t]];
  return w;
}

template <class T, int C>
void run(HostView<const T> src, HostView<T> dst, const BilateralParams& p) {
  const int w = src.width, h = src.height, r = p.radius, k = 2 * r + 1;
  const WeightTables tables = weight_tables<T, C>(p);
  auto space = [&](int dx, int dy) { return tables.space[(dy + r) * k + dx + r]; };
  const WindowTaps window = window_taps(r, tables.space);
  const std::vector<int>& tap_dx = window.dx;
  const std::vector<int>& tap_dy = window.dy;
  const std::vector<int>& below = window.below;
  const std::vector<int>& above = window.above;
  const std::vector<float>& tap_weight = window.weight;
  const std::vector<float>& abs_table = tables.abs;
  const std::vector<float>& d2_table = tables.d2;
  const float range_coeff = tables.range_coeff;
  const int taps = window.count, below_count = window.below_count;
  // One weight plane per tap (grey, or colour distance); per-channel colour would need three, whose
  // 2 MB per thread at 4K cost what they saved (EPYC, 2026-11-27).
  const int weight_planes = p.mode == RangeMode::per_channel || C == 1 ? C : 1;
  const bool reuse = cpu_rows::bilateral_reuses_weights() && !p.adaptive && below_count > 0 && weight_planes == 1;
  const std::size_t weight_stride = cpu_rows::cache_line_stride<float>(static_cast<std::size_t>(w));
  const std::size_t tap_floats = weight_stride * weight_planes, slot_floats = tap_floats * below_count;
  const std::size_t plane = static_cast<std::size_t>(w + 2 * r);
  parallel_for(0, h, 4, [&](std::ptrdiff_t y0, std::ptrdiff_t y1) {
    // A ring of the 2r+1 source rows around the current one, each as C padded planes; each source
    // row is converted once per thread.
    // (This thread's scratch, kept between calls: thread_scratch.hpp says why.)
    const std::size_t row_samples = static_cast<std::size_t>(w) * C;
    const std::span<float> ring = cpu_rows::thread_scratch<float, 0>(plane * C * k),
                           planar_out = cpu_rows::thread_scratch<float, 1>(row_samples),
                           samples = cpu_rows::thread_scratch<float, 2>(row_samples);
    const std::span<T> planar_samples = cpu_rows::thread_scratch<T, 3>(row_samples);
    const std::span<int> tag = cpu_rows::thread_scratch<int, 0>(k);
    std::fill(tag.begin(), tag.end(), -(1 << 30));
    auto row_ptr = [&](int sy) {
      const int slot = ((sy % k) + k) % k;
      float* row = ring.data() + plane * C * slot;
      if (tag[slot] != sy) {
        tag[slot] = sy;
        const int yy = border_index(sy, h, p.border.mode);
        // One channel converts straight into its plane; more convert the row's samples at once,
        // then split them into the planes' interiors.
        float* converted = C == 1 ? row + r : samples.data();
        if (yy >= 0) {
          cpu_rows::to_float(src.row(yy), static_cast<std::size_t>(w) * C, converted);
          if constexpr (C > 1)
            for (int x = 0; x < w; ++x)
              for (int c = 0; c < C; ++c) row[c * plane + x + r] = samples[static_cast<std::size_t>(x) * C + c];
        }
        for (int x = -r; x < w + r; ++x) {
          if (yy >= 0 && x >= 0 && x < w) continue;  // the interior is done
          const int xx = border_index(x, w, p.border.mode);
          for (int c = 0; c < C; ++c)
            row[c * plane + x + r] = (xx < 0 || yy < 0) ? p.border.value : converted[static_cast<std::size_t>(xx) * C + c];
        }
      }
      return row;
    };
    std::vector<const float*> planes(static_cast<std::size_t>(k) * C);
    cpu_rows::BilateralRow row{planes.data(), C, r, tap_dx.data(), tap_dy.data(), tap_weight.data(), taps,
                               p.mode == RangeMode::per_channel, p.distance == ColourDistance::l1,
                               abs_table.empty() ? nullptr : abs_table.data(), d2_table.empty() ? nullptr : d2_table.data(), range_coeff};
    // The stored weights of this thread's last r + 1 rows, one slot per row (slot_row: which).
    const int slots = r + 1;
    const std::span<float> stored = cpu_rows::thread_scratch<float, 4>(reuse ? slot_floats * slots : 0);
    const std::span<int> slot_row = cpu_rows::thread_scratch<int, 1>(slots);
    std::fill(slot_row.begin(), slot_row.end(), -(1 << 30));
    std::vector<float*> store(taps, nullptr);
    std::vector<const float*> reused(taps, nullptr);
    if (reuse) row.store = store.data(), row.reuse = reused.data(), row.weight_stride = weight_stride;
    auto slot_of = [&](int y) { return static_cast<std::size_t>(((y % slots) + slots) % slots); };
    for (int y = static_cast<int>(y0); y < y1; ++y) {
      if (reuse) {
        float* mine = stored.data() + slot_floats * slot_of(y);
        slot_row[slot_of(y)] = y;
        for (int t = 0; t < taps; ++t) {
          store[t] = below[t] >= 0 ? mine + tap_floats * below[t] : nullptr;
          const int from = y + tap_dy[t];
          reused[t] = above[t] >= 0 && slot_row[slot_of(from)] == from ? stored.data() + slot_floats * slot_of(from) + tap_floats * above[t]
                                                                        : nullptr;
        }
      }
      for (int j = 0; j < k; ++j) {
        const float* source = row_ptr(y + j - r);
        for (int c = 0; c < C; ++c) planes[static_cast<std::size_t>(j) * C + c] = source + c * plane;
      }
      if (p.adaptive) {
        for (int x = 0; x < w; ++x) {
          auto fetch = [&](int dx, int dy, int c) { return planes[static_cast<std::size_t>(dy + r) * C + c][x + dx + r]; };
          float o[C];
          detail::bilateral_pixel<C>(fetch, r, space, detail::ExpWeight{}, p.sigma_range, p.adaptive, p.mode, p.distance, o);
          for (int c = 0; c < C; ++c) planar_out[c * static_cast<std::size_t>(w) + x] = o[c];
        }
      } else {
        cpu_rows::bilateral(row, w, planar_out.data());
      }
      T* out = dst.row(y);
      if constexpr (C == 1) {
        cpu_rows::from_float(planar_out.data(), planar_out.size(), out);
      } else {
        cpu_rows::from_float(planar_out.data(), planar_out.size(), planar_samples.data());
        for (int c = 0; c < C; ++c) {
          const T* o = planar_samples.data() + c * static_cast<std::size_t>(w);
          for (int x = 0; x < w; ++x) out[x * C + c] = o[x];
        }
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

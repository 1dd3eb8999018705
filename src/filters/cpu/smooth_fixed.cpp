// 8-bit separable smoothing in 16-bit fixed point on the CPU (filters/smooth_fixed.hpp). Each thread
// takes a band of output rows and keeps a ring of row-pass results (16-bit, half the bytes of the
// float path's rows): every source row is padded per the border mode as rule samples, passed once
// along the row, and each output row is one column pass over the ring's 2m + 1 rows.
#include <algorithm>
#include <array>
#include <span>

#include "filters/cpu/smooth_fixed_rows.hpp"
#include "filters/cpu/thread_scratch.hpp"
#include "filters/filter_backends.hpp"
#include "gpuvis/core/parallel.hpp"

namespace gpuvis::filters {
namespace {

// Source row sy as rule samples, padded by rx pixels each side per the border mode.
void load_samples(HostView<const std::uint8_t> src, int sy, int rx, const Border& border, std::uint16_t* out) {
  const int w = src.width, c = src.channels;
  const auto outside = static_cast<std::uint16_t>(gpuvis_smooth_sample(static_cast<unsigned>(border.value)));
  const int yy = border_index(sy, src.height, border.mode);
  if (yy < 0) {
    std::fill_n(out, static_cast<std::size_t>(w + 2 * rx) * c, outside);
    return;
  }
  const std::uint8_t* row = src.row(yy);
  std::uint16_t* mid = out + static_cast<std::ptrdiff_t>(rx) * c;
  fixed_rows::to_samples(row, static_cast<std::size_t>(w) * c, mid);
  auto pad = [&](int x) {
    const int xx = border_index(x, w, border.mode);
    for (int ch = 0; ch < c; ++ch) mid[x * c + ch] = xx < 0 ? outside : static_cast<std::uint16_t>(gpuvis_smooth_sample(row[xx * c + ch]));
  };
  for (int x = -rx; x < 0; ++x) pad(x);
  for (int x = w; x < w + rx; ++x) pad(x);
}

}  // namespace

void smooth_fixed_cpu(HostView<const std::uint8_t> src, HostView<std::uint8_t> dst, const detail::FixedSmoothing& f, const Border& border) {
  const int c = src.channels, rx = f.row_half(), ry = f.column_half();
  const std::size_t n = static_cast<std::size_t>(src.width) * c, padded = static_cast<std::size_t>(src.width + 2 * rx) * c;
  const std::size_t stride = cpu_rows::cache_line_stride<std::uint16_t>(n);
  const int ring = 2 * ry + 1;
  // Two bands of rows per thread, as the float path: each band passes its 2m rows of halo again.
  const std::ptrdiff_t bands = static_cast<std::ptrdiff_t>(num_threads()) * 2;
  const std::ptrdiff_t rows_per_band = std::max<std::ptrdiff_t>(8, (src.height + bands - 1) / bands);
  parallel_for(0, src.height, rows_per_band, [&](std::ptrdiff_t y0, std::ptrdiff_t y1) {
    const std::span<std::uint16_t> raw = cpu_rows::thread_scratch<std::uint16_t, 0>(padded);
    const std::span<std::uint16_t> passed = cpu_rows::thread_scratch<std::uint16_t, 1>(stride * ring);
    std::array<int, detail::kFixedMaxTaps> tag;  // source row per ring slot (the ring has at most kFixedMaxTaps)
    tag.fill(-1 << 30);
    auto row_of = [&](int sy) -> const std::uint16_t* {  // source row sy's row pass, from the ring
      const int slot = ((sy % ring) + ring) % ring;
      std::uint16_t* p = passed.data() + stride * slot;
      if (tag[slot] != sy) {
        load_samples(src, sy, rx, border, raw.data());
        fixed_rows::row_pass(raw.data() + static_cast<std::ptrdiff_t>(rx) * c, c, f.row.data(), rx, n, p);
        tag[slot] = sy;
      }
      return p;
    };
    std::array<const std::uint16_t*, detail::kFixedMaxTaps> rows{};
    for (auto y = static_cast<int>(y0); y < y1; ++y) {
      for (int j = 0; j < ring; ++j) rows[j] = row_of(y - ry + j);
      fixed_rows::column_pass(rows.data(), f.column.data(), ry, n, dst.row(y));
    }
  });
}

}  // namespace gpuvis::filters

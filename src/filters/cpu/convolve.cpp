// Convolution on the CPU. Each thread takes a band of output rows and keeps a ring of the source
// rows it needs, converted to float and padded horizontally per the border mode. Four output rows
// at a time are one call of cpu_rows::correlate_rows along the whole rows (all channels
// interleaved), which loads each input vector once for all four; one tap per non-zero weight.
// Separable kernels filter each needed row horizontally once (the row kernel as a one-row 2D
// kernel), then combine four rows at a time vertically.
#include <algorithm>
#include <span>
#include <type_traits>
#include <vector>

#include "filters/convolve_common.hpp"
#include "gpuvis/core/parallel.hpp"
#include "filters/filter_backends.hpp"
#include "filters/cpu/row_kernels.hpp"
#include "filters/cpu/thread_scratch.hpp"

namespace gpuvis::filters {
namespace {

template <class T>
void load_padded_row(HostView<const T> src, int sy, int rx, const Border& border, float* out) {
  const int w = src.width, c = src.channels;
  const int yy = border_index(sy, src.height, border.mode);
  if (yy < 0) {
    std::fill_n(out, static_cast<std::size_t>(w + 2 * rx) * c, border.value);
    return;
  }
  const T* row = src.row(yy);
  float* mid = out + static_cast<std::ptrdiff_t>(rx) * c;
  cpu_rows::to_float(row, static_cast<std::size_t>(w) * c, mid);
  for (int x = -rx; x < 0; ++x) {
    const int xx = border_index(x, w, border.mode);
    for (int ch = 0; ch < c; ++ch) mid[x * c + ch] = xx < 0 ? border.value : static_cast<float>(row[xx * c + ch]);
  }
  for (int x = w; x < w + rx; ++x) {
    const int xx = border_index(x, w, border.mode);
    for (int ch = 0; ch < c; ++ch) mid[x * c + ch] = xx < 0 ? border.value : static_cast<float>(row[xx * c + ch]);
  }
}

// A ring of `size` rows indexed by source row number, in this thread's scratch.
struct RowRing {
  int size = 0;
  std::size_t stride = 0;
  std::span<float> data;
  std::span<int> tag;
  RowRing(int n, std::size_t row_floats)
      : size(n),
        stride(cpu_rows::cache_line_stride<float>(row_floats)),
        data(cpu_rows::thread_scratch<float, 0>(stride * n)), tag(cpu_rows::thread_scratch<int, 0>(n)) {
    std::fill(tag.begin(), tag.end(), -1 << 30);
  }
  template <class Load>
  const float* get(int sy, Load&& load) {
    const int slot = ((sy % size) + size) % size;
    float* p = data.data() + stride * slot;
    if (tag[slot] != sy) {
      load(sy, p);
      tag[slot] = sy;
    }
    return p;
  }
};

// Where column i of a kernel starts along a padded row of `channels` interleaved samples.
std::vector<std::ptrdiff_t> column_offsets(int kernel_width, int channels) {
  std::vector<std::ptrdiff_t> offsets;
  for (int i = 0; i < kernel_width; ++i) offsets.push_back(static_cast<std::ptrdiff_t>(i) * channels);
  return offsets;
}

// Rows per band for `bands_per_thread` bands on each CPU thread (at least 8).
std::ptrdiff_t band_rows(int height, int bands_per_thread) {
  const std::ptrdiff_t bands = static_cast<std::ptrdiff_t>(num_threads()) * bands_per_thread;
  return std::max<std::ptrdiff_t>(8, (height + bands - 1) / bands);
}

template <class T>
void store_row(std::span<const float> acc, T* out) {
  cpu_rows::from_float(acc.data(), acc.size(), out);
}

// Output rows y .. y + count - 1 from the ring's rows y - ry .. y + count - 1 + ry, stored to dst.
template <class T, class Load>
void correlate_band_rows(RowRing& ring, Load&& load, int y, int count, int ry, const float* weights, int kernel_rows, int kernel_cols,
                         const std::ptrdiff_t* offsets, std::size_t n, std::span<float> acc, HostView<T> dst) {
  const float* rows[std::max(kMaxKernel1D, kMaxKernel2D) + cpu_rows::kRowsAtOnce - 1];  // kernel_rows + count - 1
  float* out[cpu_rows::kRowsAtOnce];
  for (int i = 0; i < kernel_rows + count - 1; ++i) rows[i] = ring.get(y - ry + i, load);
  for (int j = 0; j < count; ++j) out[j] = acc.data() + cpu_rows::cache_line_stride<float>(n) * j;
  cpu_rows::correlate_rows(rows, weights, kernel_rows, kernel_cols, offsets, count, n, out);
  for (int j = 0; j < count; ++j) store_row(std::span<const float>(out[j], n), dst.row(y + j));
}

template <class T>
void convolve_2d(HostView<const T> src, HostView<T> dst, const Kernel& k, const Border& border) {
  const int w = src.width, c = src.channels, rx = k.width / 2, ry = k.height / 2;
  const std::size_t padded = static_cast<std::size_t>(w + 2 * rx) * c, n = static_cast<std::size_t>(w) * c;
  const std::vector<std::ptrdiff_t> offsets = column_offsets(k.width, c);
  // Two bands of rows per thread: each band converts its kernel-height - 1 rows of halo again, so
  // bands of a few rows (the pool's default of four per thread) cost up to a fifth more work at 16
  // threads.
  parallel_for(0, src.height, band_rows(src.height, 2), [&](std::ptrdiff_t y0, std::ptrdiff_t y1) {
    RowRing ring(k.height + cpu_rows::kRowsAtOnce - 1, padded);
    const std::span<float> acc = cpu_rows::thread_scratch<float, 1>(cpu_rows::cache_line_stride<float>(n) * cpu_rows::kRowsAtOnce);
    auto load = [&](int sy, float* p) { load_padded_row(src, sy, rx, border, p); };
    for (int y = static_cast<int>(y0); y < y1; y += cpu_rows::kRowsAtOnce) {
      const int count = std::min<int>(cpu_rows::kRowsAtOnce, static_cast<int>(y1) - y);
      correlate_band_rows(ring, load, y, count, ry, k.weights.data(), k.height, k.width, offsets.data(), n, acc, dst);
    }
  });
}

template <class T>
void convolve_separable(HostView<const T> src, HostView<T> dst, const SeparableKernel& s, const Border& border) {
  const int w = src.width, c = src.channels;
  const int kw = static_cast<int>(s.row.size()), kh = static_cast<int>(s.column.size());
  const int rx = kw / 2, ry = kh / 2;
  const std::size_t padded = static_cast<std::size_t>(w + 2 * rx) * c, n = static_cast<std::size_t>(w) * c;
  const std::vector<std::ptrdiff_t> offsets = column_offsets(kw, c);
  const std::ptrdiff_t no_offset = 0;
  // Two bands of rows per thread: each band filters its kernel-height - 1 rows of halo horizontally
  // again, which at the pool's default of four bands per thread was a third more horizontal work
  // on 16 threads.
  parallel_for(0, src.height, band_rows(src.height, 2), [&](std::ptrdiff_t y0, std::ptrdiff_t y1) {
    RowRing filtered(kh + cpu_rows::kRowsAtOnce - 1, n);
    const std::span<float> raw = cpu_rows::thread_scratch<float, 2>(padded),
                           acc = cpu_rows::thread_scratch<float, 1>(cpu_rows::cache_line_stride<float>(n) * cpu_rows::kRowsAtOnce);
    const float* raw_row = raw.data();
    auto horizontal = [&](int sy, float* out) {  // one row of the row kernel
      load_padded_row(src, sy, rx, border, raw.data());
      cpu_rows::correlate_rows(&raw_row, s.row.data(), 1, kw, offsets.data(), 1, n, &out);
    };
    for (int y = static_cast<int>(y0); y < y1; y += cpu_rows::kRowsAtOnce) {
      const int count = std::min<int>(cpu_rows::kRowsAtOnce, static_cast<int>(y1) - y);
      correlate_band_rows(filtered, horizontal, y, count, ry, s.column.data(), kh, 1, &no_offset, n, acc, dst);
    }
  });
}

}  // namespace

template <class T>
void convolve_cpu(HostView<const T> src, HostView<T> dst, const Kernel& kernel, const ConvolveParams& options) {
  detail::check_images(src, dst);
  const detail::PreparedKernel p = detail::prepare(kernel, options);
  if constexpr (std::is_same_v<T, std::uint8_t>) {
    if (options.fixed_point)
      if (const auto fixed = detail::fixed_smoothing(p.separable, options.border)) return smooth_fixed_cpu(src, dst, *fixed, options.border);
  }
  if (p.separable.separable) convolve_separable(src, dst, p.separable, options.border);
  else convolve_2d(src, dst, p.kernel, options.border);
}

const char* cpu_vector_unit() { return cpu_rows::implementation(); }

template void convolve_cpu<std::uint8_t>(HostView<const std::uint8_t>, HostView<std::uint8_t>, const Kernel&, const ConvolveParams&);
template void convolve_cpu<std::uint16_t>(HostView<const std::uint16_t>, HostView<std::uint16_t>, const Kernel&, const ConvolveParams&);
template void convolve_cpu<float>(HostView<const float>, HostView<float>, const Kernel&, const ConvolveParams&);

}  // namespace gpuvis::filters

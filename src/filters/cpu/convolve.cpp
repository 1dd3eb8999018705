// Convolution on the CPU. Each thread takes a band of output rows and keeps a ring of the source
// rows it needs, converted to float and padded horizontally per the border mode. The inner loops
// run along a whole row (all channels interleaved) and vectorise: acc[x] += w * row[x + offset].
// Separable kernels filter each needed row horizontally once, then combine rows vertically.
#include <algorithm>
#include <vector>

#include "../convolve_common.hpp"
#include "gpuvis/core/parallel.hpp"
#include "filters/filter_backends.hpp"

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
  for (int i = 0; i < w * c; ++i) mid[i] = static_cast<float>(row[i]);
  for (int x = -rx; x < 0; ++x) {
    const int xx = border_index(x, w, border.mode);
    for (int ch = 0; ch < c; ++ch) mid[x * c + ch] = xx < 0 ? border.value : static_cast<float>(row[xx * c + ch]);
  }
  for (int x = w; x < w + rx; ++x) {
    const int xx = border_index(x, w, border.mode);
    for (int ch = 0; ch < c; ++ch) mid[x * c + ch] = xx < 0 ? border.value : static_cast<float>(row[xx * c + ch]);
  }
}

// A ring of `size` rows indexed by source row number.
struct RowRing {
  int size = 0;
  std::size_t stride = 0;
  std::vector<float> data;
  std::vector<int> tag;
  RowRing(int n, std::size_t row_floats) : size(n), stride(row_floats), data(row_floats * n), tag(n, -1 << 30) {}
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

template <class T>
void convolve_2d(HostView<const T> src, HostView<T> dst, const Kernel& k, const Border& border) {
  const int w = src.width, c = src.channels, rx = k.width / 2, ry = k.height / 2;
  const std::size_t padded = static_cast<std::size_t>(w + 2 * rx) * c, n = static_cast<std::size_t>(w) * c;
  parallel_for(0, src.height, 8, [&](std::ptrdiff_t y0, std::ptrdiff_t y1) {
    RowRing ring(k.height, padded);
    std::vector<float> acc(n);
    for (int y = static_cast<int>(y0); y < y1; ++y) {
      std::fill(acc.begin(), acc.end(), 0.0f);
      for (int j = 0; j < k.height; ++j) {
        const float* row = ring.get(y + j - ry, [&](int sy, float* p) { load_padded_row(src, sy, rx, border, p); });
        for (int i = 0; i < k.width; ++i) {
          const float wgt = k.at(i, j);
          if (wgt == 0.0f) continue;
          const float* s = row + static_cast<std::ptrdiff_t>(i) * c;
          for (std::size_t x = 0; x < n; ++x) acc[x] += wgt * s[x];
        }
      }
      T* out = dst.row(y);
      for (std::size_t x = 0; x < n; ++x) out[x] = detail::saturate<T>(acc[x]);
    }
  });
}

template <class T>
void convolve_separable(HostView<const T> src, HostView<T> dst, const SeparableKernel& s, const Border& border) {
  const int w = src.width, c = src.channels;
  const int kw = static_cast<int>(s.row.size()), kh = static_cast<int>(s.column.size());
  const int rx = kw / 2, ry = kh / 2;
  const std::size_t padded = static_cast<std::size_t>(w + 2 * rx) * c, n = static_cast<std::size_t>(w) * c;
  parallel_for(0, src.height, 8, [&](std::ptrdiff_t y0, std::ptrdiff_t y1) {
    RowRing filtered(kh, n);
    std::vector<float> raw(padded), acc(n);
    auto horizontal = [&](int sy, float* out) {
      load_padded_row(src, sy, rx, border, raw.data());
      std::fill_n(out, n, 0.0f);
      for (int i = 0; i < kw; ++i) {
        const float wgt = s.row[i];
        if (wgt == 0.0f) continue;
        const float* r = raw.data() + static_cast<std::ptrdiff_t>(i) * c;
        for (std::size_t x = 0; x < n; ++x) out[x] += wgt * r[x];
      }
    };
    for (int y = static_cast<int>(y0); y < y1; ++y) {
      std::fill(acc.begin(), acc.end(), 0.0f);
      for (int j = 0; j < kh; ++j) {
        const float wgt = s.column[j];
        const float* r = filtered.get(y + j - ry, horizontal);
        if (wgt == 0.0f) continue;
        for (std::size_t x = 0; x < n; ++x) acc[x] += wgt * r[x];
      }
      T* out = dst.row(y);
      for (std::size_t x = 0; x < n; ++x) out[x] = detail::saturate<T>(acc[x]);
    }
  });
}

}  // namespace

template <class T>
void convolve_cpu(HostView<const T> src, HostView<T> dst, const Kernel& kernel, const ConvolveOptions& options) {
  detail::check_images(src, dst);
  const detail::PreparedKernel p = detail::prepare(kernel, options);
  if (p.separable.separable) convolve_separable(src, dst, p.separable, options.border);
  else convolve_2d(src, dst, p.kernel, options.border);
}

template void convolve_cpu<std::uint8_t>(HostView<const std::uint8_t>, HostView<std::uint8_t>, const Kernel&, const ConvolveOptions&);
template void convolve_cpu<std::uint16_t>(HostView<const std::uint16_t>, HostView<std::uint16_t>, const Kernel&, const ConvolveOptions&);
template void convolve_cpu<float>(HostView<const float>, HostView<float>, const Kernel&, const ConvolveOptions&);

}  // namespace gpuvis::filters

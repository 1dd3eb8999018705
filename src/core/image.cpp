#include "gpuvis/core/image.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

namespace gpuvis {

std::string describe_size(int width, int height, int channels) {
  std::string s = std::to_string(width) + "x" + std::to_string(height);
  if (channels != 1) s += "x" + std::to_string(channels);
  return s;
}

void check_image_shape(int width, int height, int channels) {
  if (width <= 0 || height <= 0)
    fail(ErrorCode::invalid_argument, "image size " + describe_size(width, height, channels) +
                                          " is empty: width and height must be at least 1");
  if (channels != 1 && channels != 3 && channels != 4)
    fail(ErrorCode::invalid_argument,
         "images must have 1, 3 or 4 channels, not " + std::to_string(channels));
  // Keep byte offsets and per-plane pixel counts comfortably inside 31 bits per dimension.
  if (width > (1 << 20) || height > (1 << 20))
    fail(ErrorCode::invalid_argument, "image size " + describe_size(width, height) + " is too large");
}

template <class T>
void Image<T>::FreeAligned::operator()(std::byte* p) const {
  std::free(p);
}

template <class T>
Image<T>::Image(int width, int height, int channels) {
  check_image_shape(width, height, channels);
  const std::size_t row = sizeof(T) * static_cast<std::size_t>(width) * channels;
  const std::size_t stride = (row + 63) / 64 * 64;
  const std::size_t bytes = stride * static_cast<std::size_t>(height);
  void* p = std::aligned_alloc(64, bytes);
  if (!p) throw std::bad_alloc();
  storage_.reset(static_cast<std::byte*>(p));
  view_ = {reinterpret_cast<T*>(p), width, height, channels, static_cast<std::ptrdiff_t>(stride)};
}

template <class T>
void Image<T>::fill(T value) {
  for (int y = 0; y < height(); ++y) std::fill_n(row(y), static_cast<std::size_t>(width()) * channels(), value);
}

template <class T>
Image<T> Image<T>::clone() const {
  if (empty()) return {};
  Image out(width(), height(), channels());
  copy<T>(view(), out.view());
  return out;
}

template class Image<std::uint8_t>;
template class Image<std::uint16_t>;
template class Image<float>;
template class Image<std::int32_t>;

template <class T>
void copy(HostView<const T> src, HostView<T> dst) {
  require(same_shape(src, dst), "copy: images differ in size (" + describe_size(src.width, src.height, src.channels) +
                                    " vs " + describe_size(dst.width, dst.height, dst.channels) + ")");
  for (int y = 0; y < src.height; ++y) std::memcpy(dst.row(y), src.row(y), src.row_bytes());
}

template <class T>
std::size_t count_differences(HostView<const T> a, HostView<const T> b) {
  require(same_shape(a, b), "count_differences: images differ in size");
  std::size_t n = 0;
  const std::size_t samples = static_cast<std::size_t>(a.width) * a.channels;
  for (int y = 0; y < a.height; ++y) {
    const T* ra = a.row(y);
    const T* rb = b.row(y);
    for (std::size_t i = 0; i < samples; ++i) n += (ra[i] != rb[i]);
  }
  return n;
}

#define GPUVIS_INSTANTIATE(T)                                       \
  template void copy<T>(HostView<const T>, HostView<T>);            \
  template std::size_t count_differences<T>(HostView<const T>, HostView<const T>);
GPUVIS_INSTANTIATE(std::uint8_t)
GPUVIS_INSTANTIATE(std::uint16_t)
GPUVIS_INSTANTIATE(float)
GPUVIS_INSTANTIATE(std::int32_t)
#undef GPUVIS_INSTANTIATE

Image<std::uint8_t> to_grey(HostView<const std::uint8_t> src) {
  Image<std::uint8_t> out(src.width, src.height, 1);
  for (int y = 0; y < src.height; ++y) {
    const std::uint8_t* s = src.row(y);
    std::uint8_t* d = out.row(y);
    if (src.channels == 1) {
      std::memcpy(d, s, static_cast<std::size_t>(src.width));
      continue;
    }
    for (int x = 0; x < src.width; ++x) {
      const std::uint8_t* p = s + static_cast<std::ptrdiff_t>(x) * src.channels;
      d[x] = static_cast<std::uint8_t>((77u * p[0] + 151u * p[1] + 28u * p[2]) >> 8);
    }
  }
  return out;
}

}  // namespace gpuvis

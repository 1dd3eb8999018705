#pragma once
// Image types shared by every stage and both backends.
//
//  * ImageView<T, Space>: a non-owning window onto pixels (data pointer, size, channel count and a
//    row stride in bytes). Views are cheap to copy, can be cropped without copying, and can be
//    passed by value into CUDA kernels. Channels are interleaved (RGBRGB...).
//  * Image<T>: an owning host image with 64-byte aligned rows (good for SIMD and for cudaMemcpy2D).
//  * Device images and pinned host images live in gpuvis/cuda/ (they need the CUDA runtime).
//
// Element types are uint8_t, uint16_t and float. Sizes are ints (images beyond 2^31 pixels per side
// are not a goal); byte offsets are computed in 64 bits.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

#include "gpuvis/core/error.hpp"

#if defined(__CUDACC__)
#define GPUVIS_HD __host__ __device__
#else
#define GPUVIS_HD
#endif

namespace gpuvis {

enum class MemorySpace { host, device };

template <class T, MemorySpace Space = MemorySpace::host>
struct ImageView {
  using value_type = std::remove_const_t<T>;
  T* data = nullptr;
  int width = 0;
  int height = 0;
  int channels = 1;
  std::ptrdiff_t stride = 0;  // bytes from one row to the next

  GPUVIS_HD bool empty() const { return data == nullptr || width <= 0 || height <= 0; }
  GPUVIS_HD T* row(int y) const {
    using byte_t = std::conditional_t<std::is_const_v<T>, const std::byte, std::byte>;
    return reinterpret_cast<T*>(reinterpret_cast<byte_t*>(data) + static_cast<std::ptrdiff_t>(y) * stride);
  }
  GPUVIS_HD T& operator()(int x, int y, int c = 0) const { return row(y)[x * channels + c]; }
  GPUVIS_HD std::size_t row_bytes() const { return sizeof(T) * static_cast<std::size_t>(width) * channels; }
  GPUVIS_HD std::size_t pixel_count() const { return static_cast<std::size_t>(width) * height; }

  // A view of the rectangle [x, x+w) x [y, y+h); throws if it does not lie inside this view.
  ImageView crop(int x, int y, int w, int h) const {
    require(x >= 0 && y >= 0 && w >= 0 && h >= 0 && x + w <= width && y + h <= height,
            "crop rectangle lies outside the image");
    ImageView v = *this;
    v.data = row(y) + static_cast<std::ptrdiff_t>(x) * channels;
    v.width = w;
    v.height = h;
    return v;
  }

  // Implicit conversion to a read-only view (only for mutable views).
  template <class U = T, class = std::enable_if_t<std::is_same_v<U, T> && !std::is_const_v<U>>>
  GPUVIS_HD operator ImageView<const U, Space>() const {
    return {data, width, height, channels, stride};
  }
};

template <class T> using HostView = ImageView<T, MemorySpace::host>;
template <class T> using DeviceView = ImageView<T, MemorySpace::device>;

template <class A, class B, MemorySpace S1, MemorySpace S2>
bool same_shape(const ImageView<A, S1>& a, const ImageView<B, S2>& b) {
  return a.width == b.width && a.height == b.height && a.channels == b.channels;
}

std::string describe_size(int width, int height, int channels = 1);

// Throws ErrorCode::invalid_argument unless width, height > 0 and channels is 1, 3 or 4.
void check_image_shape(int width, int height, int channels);

// Owning host image. Rows are padded to 64 bytes. Move-only.
template <class T>
class Image {
 public:
  Image() = default;
  Image(int width, int height, int channels = 1);

  int width() const { return view_.width; }
  int height() const { return view_.height; }
  int channels() const { return view_.channels; }
  std::ptrdiff_t stride() const { return view_.stride; }
  bool empty() const { return view_.empty(); }
  T* data() { return view_.data; }
  const T* data() const { return view_.data; }
  T* row(int y) { return view_.row(y); }
  const T* row(int y) const { return view_.row(y); }
  T& operator()(int x, int y, int c = 0) { return view_(x, y, c); }
  const T& operator()(int x, int y, int c = 0) const { return view_(x, y, c); }

  HostView<T> view() { return view_; }
  HostView<const T> view() const { return view_; }
  operator HostView<T>() { return view_; }
  operator HostView<const T>() const { return view_; }

  void fill(T value);
  Image clone() const;

 private:
  struct FreeAligned {
    void operator()(std::byte* p) const;
  };
  std::unique_ptr<std::byte, FreeAligned> storage_;
  HostView<T> view_;
};

extern template class Image<std::uint8_t>;
extern template class Image<std::uint16_t>;
extern template class Image<float>;
extern template class Image<std::int32_t>;  // label images

// Copies pixels between views of equal shape (strides may differ).
template <class T>
void copy(HostView<const T> src, HostView<T> dst);

// Pixel-exact comparison (row padding ignored). Returns the number of differing samples.
template <class T>
std::size_t count_differences(HostView<const T> a, HostView<const T> b);

// reacTIVision's grey conversion: (77 R + 151 G + 28 B) >> 8; grey input is copied, alpha ignored.
Image<std::uint8_t> to_grey(HostView<const std::uint8_t> src);

}  // namespace gpuvis

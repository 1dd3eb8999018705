// PNG through libpng's simplified API (png_image), which handles palette, grey+alpha, bit depths and
// interlacing, and reports every error as a message instead of longjmp-ing through our code.
#include <png.h>

#include <cstring>
#include <vector>

#include "adapters/codec/codecs.hpp"
#include "gpuvis/core/error.hpp"

namespace gpuvis::codec::adapter {
namespace {

int channels_of(png_uint_32 format) { return static_cast<int>(PNG_IMAGE_PIXEL_CHANNELS(format)); }

png_uint_32 format_for(int channels) {
  switch (channels) {
    case 1: return PNG_FORMAT_GRAY;
    case 3: return PNG_FORMAT_RGB;
    default: return PNG_FORMAT_RGBA;
  }
}

template <class T>
void write_png_impl(const std::string& path, HostView<const T> image) {
  check_image_shape(image.width, image.height, image.channels);
  png_image png;
  std::memset(&png, 0, sizeof png);
  png.version = PNG_IMAGE_VERSION;
  png.width = static_cast<png_uint_32>(image.width);
  png.height = static_cast<png_uint_32>(image.height);
  png.format = format_for(image.channels) | (sizeof(T) == 2 ? PNG_FORMAT_FLAG_LINEAR : 0);
  const auto stride = static_cast<png_int_32>(image.stride / static_cast<std::ptrdiff_t>(sizeof(T)));
  if (!png_image_write_to_file(&png, path.c_str(), 0, image.data, stride, nullptr))
    fail(ErrorCode::io, "cannot write PNG '" + path + "': " + png.message);
}

}  // namespace

AnyImage read_png(const std::string& path, std::size_t max_pixels) {
  png_image png;
  std::memset(&png, 0, sizeof png);
  png.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&png, path.c_str()))
    fail(ErrorCode::format, path + ": invalid PNG: " + png.message);
  const bool sixteen = (png.format & PNG_FORMAT_FLAG_LINEAR) != 0;
  // Keep grey as grey and colour as colour; drop nothing but palette indirection.
  const bool colour = (png.format & PNG_FORMAT_FLAG_COLOR) != 0;
  const bool alpha = (png.format & PNG_FORMAT_FLAG_ALPHA) != 0;
  int channels = colour ? (alpha ? 4 : 3) : 1;  // grey+alpha is read as grey
  png.format = format_for(channels) | (sixteen ? PNG_FORMAT_FLAG_LINEAR : 0);
  channels = channels_of(png.format);
  if (static_cast<unsigned long long>(png.width) * png.height > max_pixels) {
    png_image_free(&png);
    fail(ErrorCode::format, path + ": image size " + std::to_string(png.width) + "x" + std::to_string(png.height) +
                                " is over the limit of " + std::to_string(max_pixels) + " pixels (GPUVIS_MAX_IMAGE_PIXELS raises it)");
  }
  const int w = static_cast<int>(png.width), h = static_cast<int>(png.height);
  auto finish = [&](auto& img) {
    using T = std::decay_t<decltype(img(0, 0))>;
    const auto stride = static_cast<png_int_32>(img.stride() / static_cast<std::ptrdiff_t>(sizeof(T)));
    png_color background{0, 0, 0};
    if (!png_image_finish_read(&png, &background, img.data(), stride, nullptr))
      fail(ErrorCode::format, path + ": corrupt or truncated PNG: " + png.message);
  };
  try {
    if (sixteen) {
      Image<std::uint16_t> img(w, h, channels);
      finish(img);
      return img;
    }
    Image<std::uint8_t> img(w, h, channels);
    finish(img);
    return img;
  } catch (...) {
    png_image_free(&png);
    throw;
  }
}

void write_png(const std::string& path, HostView<const std::uint8_t> image) { write_png_impl(path, image); }
void write_png(const std::string& path, HostView<const std::uint16_t> image) { write_png_impl(path, image); }

}  // namespace gpuvis::codec::adapter

// JPEG through libjpeg(-turbo). libjpeg reports errors through a callback that must not return;
// we longjmp back to the caller's frame (which holds no C++ objects with destructors between the
// setjmp and the library calls) and turn the message into a gpuvis::Error.
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include <jpeglib.h>

#include "adapters/codec/codecs.hpp"
#include "gpuvis/core/error.hpp"

namespace gpuvis::codec::adapter {
namespace {

struct ErrorManager {
  jpeg_error_mgr pub;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void on_error(j_common_ptr cinfo) {
  auto* err = reinterpret_cast<ErrorManager*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, err->message);
  std::longjmp(err->jump, 1);
}

// Warnings include "premature end of data": a truncated file. Treat it as an error.
void on_warning(j_common_ptr cinfo, int level) {
  if (level < 0) on_error(cinfo);
}

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

// The decode itself, free of C++ objects with non-trivial destructors so longjmp is safe. From a
// file (f), or from memory (memory, memory_size).
bool decode(std::FILE* f, const unsigned char* memory, unsigned long memory_size, std::size_t max_pixels, ErrorManager& err,
            Image<std::uint8_t>* out, jpeg_decompress_struct& cinfo) {
  cinfo.err = jpeg_std_error(&err.pub);
  err.pub.error_exit = on_error;
  err.pub.emit_message = on_warning;
  if (setjmp(err.jump)) {
    jpeg_destroy_decompress(&cinfo);
    return false;
  }
  jpeg_create_decompress(&cinfo);
  if (f) jpeg_stdio_src(&cinfo, f);
  else jpeg_mem_src(&cinfo, memory, memory_size);
  jpeg_read_header(&cinfo, TRUE);
  if (static_cast<unsigned long long>(cinfo.image_width) * cinfo.image_height > max_pixels) {
    std::snprintf(err.message, sizeof err.message, "image size %ux%u is over the limit of %zu pixels (GPUVIS_MAX_IMAGE_PIXELS raises it)",
                  static_cast<unsigned>(cinfo.image_width), static_cast<unsigned>(cinfo.image_height), max_pixels);
    jpeg_destroy_decompress(&cinfo);
    return false;
  }
  cinfo.out_color_space = cinfo.num_components == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_start_decompress(&cinfo);
  *out = Image<std::uint8_t>(static_cast<int>(cinfo.output_width), static_cast<int>(cinfo.output_height),
                             cinfo.output_components);
  while (cinfo.output_scanline < cinfo.output_height) {
    JSAMPROW row = out->row(static_cast<int>(cinfo.output_scanline));
    jpeg_read_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  return true;
}

// Into a file (f), or into memory (*memory, *memory_size: libjpeg's buffer, freed by the caller).
bool encode(std::FILE* f, unsigned char** memory, unsigned long* memory_size, ErrorManager& err,
            HostView<const std::uint8_t> image, int quality, jpeg_compress_struct& cinfo) {
  cinfo.err = jpeg_std_error(&err.pub);
  err.pub.error_exit = on_error;
  if (setjmp(err.jump)) {
    jpeg_destroy_compress(&cinfo);
    return false;
  }
  jpeg_create_compress(&cinfo);
  if (f) jpeg_stdio_dest(&cinfo, f);
  else jpeg_mem_dest(&cinfo, memory, memory_size);
  cinfo.image_width = static_cast<JDIMENSION>(image.width);
  cinfo.image_height = static_cast<JDIMENSION>(image.height);
  cinfo.input_components = image.channels;
  cinfo.in_color_space = image.channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&cinfo);
  jpeg_set_quality(&cinfo, quality, TRUE);
  jpeg_start_compress(&cinfo, TRUE);
  while (cinfo.next_scanline < cinfo.image_height) {
    JSAMPROW row = const_cast<JSAMPROW>(image.row(static_cast<int>(cinfo.next_scanline)));
    jpeg_write_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_compress(&cinfo);
  jpeg_destroy_compress(&cinfo);
  return true;
}

}  // namespace

AnyImage read_jpeg(const std::string& path, std::size_t max_pixels) {
  std::unique_ptr<std::FILE, FileCloser> f(std::fopen(path.c_str(), "rb"));
  if (!f) fail(ErrorCode::io, "cannot open '" + path + "' for reading");
  ErrorManager err{};
  jpeg_decompress_struct cinfo{};
  Image<std::uint8_t> img;
  if (!decode(f.get(), nullptr, 0, max_pixels, err, &img, cinfo))
    fail(ErrorCode::format, path + (std::strncmp(err.message, "image size", 10) == 0 ? ": " : ": corrupt or truncated JPEG: ") + err.message);
  return img;
}

void write_jpeg(const std::string& path, HostView<const std::uint8_t> image, int quality) {
  check_image_shape(image.width, image.height, image.channels);
  if (image.channels == 4) fail(ErrorCode::unsupported, path + ": JPEG cannot hold an alpha channel; use .png");
  std::unique_ptr<std::FILE, FileCloser> f(std::fopen(path.c_str(), "wb"));
  if (!f) fail(ErrorCode::io, "cannot open '" + path + "' for writing");
  ErrorManager err{};
  jpeg_compress_struct cinfo{};
  if (!encode(f.get(), nullptr, nullptr, err, image, quality, cinfo)) fail(ErrorCode::io, "cannot write JPEG '" + path + "': " + err.message);
  if (std::fflush(f.get()) != 0) fail(ErrorCode::io, "error writing '" + path + "' (disk full?)");
}

std::vector<std::uint8_t> encode_jpeg(HostView<const std::uint8_t> image, int quality) {
  check_image_shape(image.width, image.height, image.channels);
  if (image.channels != 1 && image.channels != 3) fail(ErrorCode::unsupported, "JPEG holds grey or RGB images only");
  ErrorManager err{};
  jpeg_compress_struct cinfo{};
  unsigned char* memory = nullptr;
  unsigned long size = 0;
  const bool ok = encode(nullptr, &memory, &size, err, image, quality, cinfo);
  std::unique_ptr<unsigned char, decltype(&std::free)> owned(memory, &std::free);
  if (!ok) fail(ErrorCode::io, std::string("cannot encode JPEG: ") + err.message);
  return {memory, memory + size};
}

Image<std::uint8_t> decode_jpeg(const std::vector<std::uint8_t>& bytes, std::size_t max_pixels) {
  if (bytes.empty()) fail(ErrorCode::format, "JPEG: no bytes to decode");
  ErrorManager err{};
  jpeg_decompress_struct cinfo{};
  Image<std::uint8_t> img;
  if (!decode(nullptr, bytes.data(), static_cast<unsigned long>(bytes.size()), max_pixels, err, &img, cinfo))
    fail(ErrorCode::format, std::string("corrupt or truncated JPEG: ") + err.message);
  return img;
}

}  // namespace gpuvis::codec::adapter

// Built instead of src/adapters/codec when libpng/libjpeg are not available.
#include "gpuvis/io/image_file.hpp"

namespace gpuvis::codec {
namespace {
[[noreturn]] void absent(const std::string& path) {
  fail(ErrorCode::unsupported, path + ": PNG/JPEG support is not built in (install libpng-dev and libjpeg-dev and "
                                      "rebuild), use .pgm/.ppm instead");
}
}  // namespace
bool available() { return false; }
AnyImage read_png(const std::string& path) { absent(path); }
AnyImage read_jpeg(const std::string& path) { absent(path); }
void write_png(const std::string& path, HostView<const std::uint8_t>) { absent(path); }
void write_png(const std::string& path, HostView<const std::uint16_t>) { absent(path); }
void write_jpeg(const std::string& path, HostView<const std::uint8_t>, int) { absent(path); }
std::vector<std::uint8_t> encode_jpeg(HostView<const std::uint8_t>, int) { absent("JPEG"); }
Image<std::uint8_t> decode_jpeg(const std::vector<std::uint8_t>&) { absent("JPEG"); }
}  // namespace gpuvis::codec

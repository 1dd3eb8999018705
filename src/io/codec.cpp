// PNG and JPEG through the codec plugin, loaded on first use (io/codec_plugin.hpp).
#include "gpuvis/core/error.hpp"
#include "gpuvis/io/image_file.hpp"
#include "io/codec_plugin.hpp"

namespace gpuvis::codec {

const plugin::Api& plugin::api(const std::string& path) {
  std::string error;
  const void* table = plugins::find(kPlugin, &error);
  if (!table) fail(ErrorCode::unsupported, path + ": " + error + ", or use .pgm/.ppm");
  return *static_cast<const Api*>(table);
}

using plugin::api;

bool available() { return plugins::find(plugin::kPlugin) != nullptr; }
AnyImage read_png(const std::string& path) { return api(path).read_png(path, max_image_pixels()); }
AnyImage read_jpeg(const std::string& path) { return api(path).read_jpeg(path, max_image_pixels()); }
void write_png(const std::string& path, HostView<const std::uint8_t> image) { api(path).write_png8(path, image); }
void write_png(const std::string& path, HostView<const std::uint16_t> image) { api(path).write_png16(path, image); }
void write_jpeg(const std::string& path, HostView<const std::uint8_t> image, int quality) {
  api(path).write_jpeg(path, image, quality);
}
std::vector<std::uint8_t> encode_jpeg(HostView<const std::uint8_t> image, int quality) {
  return api("JPEG").encode_jpeg(image, quality);
}
Image<std::uint8_t> decode_jpeg(const std::vector<std::uint8_t>& bytes) {
  return api("JPEG").decode_jpeg(bytes, max_image_pixels());
}

}  // namespace gpuvis::codec

#pragma once
// The interface between libgpuvis and the codec plugin (libgpuvis_codec.so: libpng and libjpeg,
// from src/adapters/codec), loaded on first use (core/plugin_loader.hpp). The plugin is not linked
// against libgpuvis: it sees standard types, gpuvis' images and gpuvis::Error, thrown across the
// boundary. `max_pixels` is the library's image size limit (max_image_pixels()), which the plugin
// cannot see.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/plugin_loader.hpp"
#include "gpuvis/io/image_file.hpp"  // AnyImage

namespace gpuvis::codec::plugin {

struct Api {
  int version;
  AnyImage (*read_png)(const std::string& path, std::size_t max_pixels);
  AnyImage (*read_jpeg)(const std::string& path, std::size_t max_pixels);
  void (*write_png8)(const std::string& path, HostView<const std::uint8_t> image);
  void (*write_png16)(const std::string& path, HostView<const std::uint16_t> image);
  void (*write_jpeg)(const std::string& path, HostView<const std::uint8_t> image, int quality);
  std::vector<std::uint8_t> (*encode_jpeg)(HostView<const std::uint8_t> image, int quality);
  Image<std::uint8_t> (*decode_jpeg)(const std::vector<std::uint8_t>& bytes, std::size_t max_pixels);
};

inline constexpr plugins::Plugin kPlugin{"libgpuvis_codec.so", "gpuvis_codec_plugin", 1, "PNG/JPEG support",
                                         "libpng-dev and libjpeg-dev"};

// The loaded plugin's table, or ErrorCode::unsupported in one line naming `path` and what to
// install (or to use PNM instead). Defined in io/codec.cpp.
const Api& api(const std::string& path);

}  // namespace gpuvis::codec::plugin

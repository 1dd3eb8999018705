#pragma once
// The codec plugin's functions (png_codec.cpp, jpeg_codec.cpp), gathered into its table by
// codec_plugin.cpp; each is the public gpuvis::codec function of the same name (io/image_file.hpp)
// with the library's image size limit passed in.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "gpuvis/io/image_file.hpp"  // AnyImage

namespace gpuvis::codec::adapter {

AnyImage read_png(const std::string& path, std::size_t max_pixels);
void write_png(const std::string& path, HostView<const std::uint8_t> image);
void write_png(const std::string& path, HostView<const std::uint16_t> image);
AnyImage read_jpeg(const std::string& path, std::size_t max_pixels);
void write_jpeg(const std::string& path, HostView<const std::uint8_t> image, int quality);
std::vector<std::uint8_t> encode_jpeg(HostView<const std::uint8_t> image, int quality);
Image<std::uint8_t> decode_jpeg(const std::vector<std::uint8_t>& bytes, std::size_t max_pixels);

}  // namespace gpuvis::codec::adapter

#pragma once
// Reading and writing image files.
//
// The core reads and writes PGM/PPM (P2, P3, P5, P6; 8 and 16 bit) and PFM (float) itself; PNG and
// JPEG go through the codec plugin (libpng, libjpeg) when it is built. The format is chosen from
// the file extension when writing and from the file's signature when reading. Truncated or
// malformed files raise ErrorCode::format naming the file and the problem.
#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "gpuvis/core/image.hpp"

namespace gpuvis {

// An image of any supported element type, as read from a file.
using AnyImage = std::variant<Image<std::uint8_t>, Image<std::uint16_t>, Image<float>>;

AnyImage read_image(const std::string& path);

// The largest image (width x height pixels) the readers accept, checked from the header before
// anything is allocated. Default 2^28 (16384 x 16384), or $GPUVIS_MAX_IMAGE_PIXELS when set.
std::size_t max_image_pixels();
void set_max_image_pixels(std::size_t pixels);  // 0 restores the default
// Reads any image and converts it to 8-bit grey (16-bit scaled by 1/257, float clamped to 0..255,
// colour converted with reacTIVision's weights).
Image<std::uint8_t> read_grey8(const std::string& path);

// Writes in the format of `path`'s extension, through a temporary file beside it that is renamed
// into place once complete: a failed write (a full disk) leaves `path` as it was and no temporary.
void write_image(const std::string& path, HostView<const std::uint8_t> image);
void write_image(const std::string& path, HostView<const std::uint16_t> image);
void write_image(const std::string& path, HostView<const float> image);
void write_image(const std::string& path, const AnyImage& image);
// The temporary file an image is being written to right now, or null: a signal handler removes it
// (async-signal-safe to call) so that an interrupted program leaves no partial file behind.
const char* partial_output();

// True when `path` has the extension of an image format read_image() understands (.pgm .ppm .pnm
// .pfm .png .jpg .jpeg, any case). Used to pick images out of folders.
bool is_image_path(const std::string& path);

// Throws (ErrorCode::invalid_argument or unsupported) unless this build can write the format that
// `path`'s extension names. Lets commands fail before doing any work.
void check_writable(const std::string& path);

namespace pnm {
AnyImage read(const std::string& path);
void write(const std::string& path, HostView<const std::uint8_t> image);
void write(const std::string& path, HostView<const std::uint16_t> image);
void write(const std::string& path, HostView<const float> image);  // PFM
}  // namespace pnm

namespace codec {  // through the codec plugin (src/adapters/codec), built when libpng and libjpeg are found
bool available();
AnyImage read_png(const std::string& path);
AnyImage read_jpeg(const std::string& path);
void write_png(const std::string& path, HostView<const std::uint8_t> image);
void write_png(const std::string& path, HostView<const std::uint16_t> image);
void write_jpeg(const std::string& path, HostView<const std::uint8_t> image, int quality = 95);
// The JPEG file's bytes in memory (1 or 3 channels), for sending rather than saving.
std::vector<std::uint8_t> encode_jpeg(HostView<const std::uint8_t> image, int quality = 90);
// An image from JPEG bytes in memory (a camera's MJPEG frame, or encode_jpeg's output).
Image<std::uint8_t> decode_jpeg(const std::vector<std::uint8_t>& bytes);
}  // namespace codec

}  // namespace gpuvis

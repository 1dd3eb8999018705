// PGM / PPM (P2, P3, P5, P6; maxval up to 65535) and PFM ("Pf" grey, "PF" RGB) reading and writing.
// Every way a file can be short or malformed is reported with the file name and the problem.
#include <algorithm>
#include <bit>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "gpuvis/core/error.hpp"
#include "gpuvis/io/image_file.hpp"
#include "gpuvis/io/read_limited.hpp"

namespace gpuvis::pnm {
namespace {

[[noreturn]] void bad(const std::string& path, const std::string& what) {
  fail(ErrorCode::format, path + ": " + what);
}

struct Reader {
  const std::string& path;
  const std::vector<unsigned char>& bytes;
  std::size_t pos = 0;

  void skip_space_and_comments() {
    while (pos < bytes.size()) {
      if (bytes[pos] == '#') {
        while (pos < bytes.size() && bytes[pos] != '\n') ++pos;
      } else if (std::isspace(bytes[pos])) {
        ++pos;
      } else {
        break;
      }
    }
  }
  long long integer(const char* what) {
    skip_space_and_comments();
    if (pos >= bytes.size()) bad(path, std::string("file ends before the ") + what);
    if (!std::isdigit(bytes[pos])) bad(path, std::string("expected a number for the ") + what);
    long long v = 0;
    while (pos < bytes.size() && std::isdigit(bytes[pos])) {
      v = v * 10 + (bytes[pos++] - '0');
      if (v > (1LL << 31)) bad(path, std::string("the ") + what + " is too large");
    }
    return v;
  }
  double real(const char* what) {
    skip_space_and_comments();
    std::size_t start = pos;
    while (pos < bytes.size() && !std::isspace(bytes[pos])) ++pos;
    std::string token(bytes.begin() + static_cast<std::ptrdiff_t>(start), bytes.begin() + static_cast<std::ptrdiff_t>(pos));
    try {
      std::size_t used = 0;
      double v = std::stod(token, &used);
      if (used != token.size()) throw std::invalid_argument(token);
      return v;
    } catch (const std::exception&) {
      bad(path, std::string("expected a number for the ") + what + ", found '" + token + "'");
    }
  }
  // Exactly one whitespace byte separates the header from binary data.
  void single_space() {
    if (pos >= bytes.size() || !std::isspace(bytes[pos])) bad(path, "malformed header (no space before pixel data)");
    ++pos;
  }
};

std::vector<unsigned char> slurp(const std::string& path) {
  // The largest file an image of the largest accepted size can take (plain text: up to 6 bytes a
  // sample), so neither a huge file nor a device such as /dev/zero is read into memory.
  const std::size_t limit = max_image_pixels() * 3 * 6 + (std::size_t{1} << 20);
  std::error_code ec;
  if (std::filesystem::is_regular_file(path, ec)) {
    const auto size = std::filesystem::file_size(path, ec);
    if (!ec && size > limit)
      bad(path, "file of " + std::to_string(size >> 20) + " MiB is larger than an image of at most " + std::to_string(max_image_pixels()) +
                    " pixels can be");
  }
  const std::string data = read_limited(path, limit, "image");
  return {data.begin(), data.end()};
}

void check_dims(const std::string& path, long long w, long long h) {
  if (w <= 0 || h <= 0) bad(path, "image size " + std::to_string(w) + "x" + std::to_string(h) + " is empty");
  if (w > (1 << 20) || h > (1 << 20) || static_cast<unsigned long long>(w) * static_cast<unsigned long long>(h) > max_image_pixels())
    bad(path, "image size " + std::to_string(w) + "x" + std::to_string(h) + " is over the limit of " + std::to_string(max_image_pixels()) +
                  " pixels (GPUVIS_MAX_IMAGE_PIXELS raises it)");
}

// Fails before allocating when the data left after the header cannot hold the pixels the header
// claims (binary: `bytes_per_sample` each; plain text: at least one digit each).
void check_data(const Reader& r, long long w, long long h, int channels, int bytes_per_sample) {
  const std::size_t samples = static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * static_cast<std::size_t>(channels);
  const std::size_t left = r.bytes.size() - r.pos;
  if (left < samples * static_cast<std::size_t>(bytes_per_sample))
    bad(r.path, "truncated: pixel data has " + std::to_string(left) + " bytes, expected " +
                    std::to_string(samples * static_cast<std::size_t>(bytes_per_sample)) + " for " + std::to_string(w) + "x" +
                    std::to_string(h));
}

template <class T>
void read_binary(Reader& r, Image<T>& img, int bytes_per_sample) {
  const std::size_t samples = static_cast<std::size_t>(img.width()) * img.channels();
  const std::size_t need = samples * bytes_per_sample * img.height();
  if (r.bytes.size() - r.pos < need)
    bad(r.path, "truncated: pixel data has " + std::to_string(r.bytes.size() - r.pos) + " bytes, expected " +
                    std::to_string(need));
  const unsigned char* p = r.bytes.data() + r.pos;
  for (int y = 0; y < img.height(); ++y) {
    T* row = img.row(y);
    for (std::size_t i = 0; i < samples; ++i, p += bytes_per_sample)
      row[i] = static_cast<T>(bytes_per_sample == 1 ? p[0] : (p[0] << 8) | p[1]);  // big-endian 16 bit
  }
}

template <class T>
void read_ascii(Reader& r, Image<T>& img, long long maxval) {
  const std::size_t samples = static_cast<std::size_t>(img.width()) * img.channels();
  for (int y = 0; y < img.height(); ++y) {
    T* row = img.row(y);
    for (std::size_t i = 0; i < samples; ++i) {
      long long v = r.integer("pixel value");
      if (v > maxval) bad(r.path, "pixel value " + std::to_string(v) + " exceeds maxval " + std::to_string(maxval));
      row[i] = static_cast<T>(v);
    }
  }
}

AnyImage read_pfm(Reader& r, int channels) {
  const long long w = r.integer("width"), h = r.integer("height");
  check_dims(r.path, w, h);
  const double scale = r.real("scale");
  r.single_space();
  const bool little = scale < 0;
  check_data(r, w, h, channels, 4);
  Image<float> img(static_cast<int>(w), static_cast<int>(h), channels);
  const std::size_t samples = static_cast<std::size_t>(w) * channels;
  if (r.bytes.size() - r.pos < samples * 4 * static_cast<std::size_t>(h))
    bad(r.path, "truncated: PFM pixel data is shorter than " + std::to_string(w) + "x" + std::to_string(h));
  const unsigned char* p = r.bytes.data() + r.pos;
  // PFM stores rows bottom to top.
  for (long long y = h - 1; y >= 0; --y) {
    float* row = img.row(static_cast<int>(y));
    for (std::size_t i = 0; i < samples; ++i, p += 4) {
      std::uint32_t u = little ? (p[0] | p[1] << 8 | p[2] << 16 | std::uint32_t(p[3]) << 24)
                               : (std::uint32_t(p[0]) << 24 | p[1] << 16 | p[2] << 8 | p[3]);
      row[i] = std::bit_cast<float>(u);
    }
  }
  return img;
}

template <class T>
void write_pnm(const std::string& path, HostView<const T> image, int maxval) {
  check_image_shape(image.width, image.height, image.channels);
  if (image.channels == 4) fail(ErrorCode::unsupported, path + ": PGM/PPM cannot hold 4 channels; write a .png instead");
  std::ofstream out(path, std::ios::binary);
  if (!out) fail(ErrorCode::io, "cannot open '" + path + "' for writing");
  out << (image.channels == 1 ? "P5" : "P6") << "\n" << image.width << " " << image.height << "\n" << maxval << "\n";
  const std::size_t samples = static_cast<std::size_t>(image.width) * image.channels;
  std::vector<unsigned char> buf(samples * sizeof(T));
  for (int y = 0; y < image.height; ++y) {
    const T* row = image.row(y);
    for (std::size_t i = 0; i < samples; ++i) {
      if constexpr (sizeof(T) == 1) {
        buf[i] = row[i];
      } else {
        buf[2 * i] = static_cast<unsigned char>(row[i] >> 8);
        buf[2 * i + 1] = static_cast<unsigned char>(row[i] & 0xff);
      }
    }
    out.write(reinterpret_cast<const char*>(buf.data()), static_cast<std::streamsize>(buf.size()));
  }
  if (!out.flush()) fail(ErrorCode::io, "error writing '" + path + "' (disk full?)");
}

}  // namespace

AnyImage read(const std::string& path) {
  const std::vector<unsigned char> bytes = slurp(path);
  Reader r{path, bytes};
  if (bytes.size() < 2 || (bytes[0] != 'P')) bad(path, "not a PGM/PPM/PFM file (no 'P' signature)");
  const char kind = static_cast<char>(bytes[1]);
  r.pos = 2;
  if (kind == 'f') return read_pfm(r, 1);
  if (kind == 'F') return read_pfm(r, 3);
  if (kind != '2' && kind != '3' && kind != '5' && kind != '6')
    bad(path, std::string("unsupported PNM kind 'P") + kind + "' (P2, P3, P5, P6, Pf, PF are supported)");
  const int channels = (kind == '3' || kind == '6') ? 3 : 1;
  const long long w = r.integer("width"), h = r.integer("height");
  check_dims(path, w, h);
  const long long maxval = r.integer("maxval");
  if (maxval < 1 || maxval > 65535) bad(path, "maxval " + std::to_string(maxval) + " is outside 1..65535");
  const bool binary = (kind == '5' || kind == '6');
  if (binary) r.single_space();
  check_data(r, w, h, channels, binary ? (maxval <= 255 ? 1 : 2) : 1);
  if (maxval <= 255) {
    Image<std::uint8_t> img(static_cast<int>(w), static_cast<int>(h), channels);
    binary ? read_binary(r, img, 1) : read_ascii(r, img, maxval);
    return img;
  }
  Image<std::uint16_t> img(static_cast<int>(w), static_cast<int>(h), channels);
  binary ? read_binary(r, img, 2) : read_ascii(r, img, maxval);
  return img;
}

void write(const std::string& path, HostView<const std::uint8_t> image) { write_pnm(path, image, 255); }
void write(const std::string& path, HostView<const std::uint16_t> image) { write_pnm(path, image, 65535); }

void write(const std::string& path, HostView<const float> image) {
  check_image_shape(image.width, image.height, image.channels);
  if (image.channels == 4) fail(ErrorCode::unsupported, path + ": PFM cannot hold 4 channels");
  std::ofstream out(path, std::ios::binary);
  if (!out) fail(ErrorCode::io, "cannot open '" + path + "' for writing");
  const bool little = std::endian::native == std::endian::little;
  out << (image.channels == 1 ? "Pf" : "PF") << "\n" << image.width << " " << image.height << "\n"
      << (little ? "-1.0" : "1.0") << "\n";
  for (int y = image.height - 1; y >= 0; --y)
    out.write(reinterpret_cast<const char*>(image.row(y)), static_cast<std::streamsize>(image.row_bytes()));
  if (!out.flush()) fail(ErrorCode::io, "error writing '" + path + "' (disk full?)");
}

}  // namespace gpuvis::pnm

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "gpuvis/io/image_file.hpp"
#include "io/codec_plugin.hpp"
#include "gpuvis/io/read_limited.hpp"
#include "gpuvis/io/text_file.hpp"

namespace gpuvis {
namespace {

std::string extension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

enum class Format { pnm, png, jpeg, unknown };

Format format_from_extension(const std::string& path) {
  const std::string ext = extension(path);
  if (ext == ".pgm" || ext == ".ppm" || ext == ".pnm" || ext == ".pfm") return Format::pnm;
  if (ext == ".png") return Format::png;
  if (ext == ".jpg" || ext == ".jpeg") return Format::jpeg;
  return Format::unknown;
}

void require_codec(const std::string& path) { codec::plugin::api(path); }

Format writable_format(const std::string& path) {
  const Format f = format_from_extension(path);
  if (f == Format::unknown)
    fail(ErrorCode::invalid_argument, path + ": unknown image file extension (use .pgm, .ppm, .pfm, .png or .jpg)");
  if (f != Format::pnm) require_codec(path);
  return f;
}

}  // namespace

namespace {
std::atomic<std::size_t> max_pixels_setting{0};

std::size_t default_max_pixels() {
  if (const char* env = std::getenv("GPUVIS_MAX_IMAGE_PIXELS")) {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(env, &end, 10);
    if (end != env && *end == '\0' && v > 0) return static_cast<std::size_t>(v);
  }
  return std::size_t{1} << 28;
}
}  // namespace

std::size_t max_image_pixels() {
  const std::size_t set = max_pixels_setting.load();
  if (set) return set;
  static const std::size_t fallback = default_max_pixels();
  return fallback;
}

void set_max_image_pixels(std::size_t pixels) { max_pixels_setting.store(pixels); }

AnyImage read_image(const std::string& path) {
  require_regular_file(path, "image");
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(ErrorCode::io, "cannot open '" + path + "': permission denied");
  unsigned char sig[8] = {};
  in.read(reinterpret_cast<char*>(sig), sizeof sig);
  const auto got = in.gcount();
  in.close();
  if (got == 0) fail(ErrorCode::format, path + ": file is empty");
  if (got >= 8 && sig[0] == 0x89 && sig[1] == 'P' && sig[2] == 'N' && sig[3] == 'G') {
    require_codec(path);
    return codec::read_png(path);
  }
  if (got >= 3 && sig[0] == 0xFF && sig[1] == 0xD8 && sig[2] == 0xFF) {
    require_codec(path);
    return codec::read_jpeg(path);
  }
  if (sig[0] == 'P') return pnm::read(path);
  fail(ErrorCode::format, path + ": not a recognised image (PGM/PPM/PFM, PNG or JPEG)");
}

Image<std::uint8_t> read_grey8(const std::string& path) {
  AnyImage any = read_image(path);
  return std::visit(
      [](auto& img) -> Image<std::uint8_t> {
        using T = std::decay_t<decltype(img(0, 0))>;
        if constexpr (std::is_same_v<T, std::uint8_t>) {
          return img.channels() == 1 ? std::move(img) : to_grey(img.view());
        } else {
          Image<std::uint8_t> u8(img.width(), img.height(), img.channels());
          for (int y = 0; y < img.height(); ++y)
            for (int i = 0; i < img.width() * img.channels(); ++i) {
              const double v = std::is_same_v<T, float> ? static_cast<double>(img.row(y)[i])
                                                        : static_cast<double>(img.row(y)[i]) / 257.0;
              u8.row(y)[i] = static_cast<std::uint8_t>(std::clamp(std::lround(v), 0L, 255L));
            }
          return u8.channels() == 1 ? std::move(u8) : to_grey(u8.view());
        }
      },
      any);
}

void check_writable(const std::string& path) { writable_format(path); }

bool is_image_path(const std::string& path) { return format_from_extension(path) != Format::unknown; }

namespace {

// The temporary file an image is written to before it is renamed into place, for signal handlers
// (partial_output()): a fixed buffer, so that reading it needs no allocation.
char partial_path[4096] = {0};
std::atomic<bool> partial_set{false};

// Writes through a temporary file beside `path` (same extension, so the same format) that is
// renamed over `path` only once complete: a failed write (a full disk) or an interrupted one
// leaves `path` as it was, and no temporary behind.
template <class Write>
void write_atomically(const std::string& path, Write&& write) {
  const std::filesystem::path p(path);
  const std::string tmp = (p.parent_path() / ("." + p.stem().string() + ".partial" + p.extension().string())).string();
  const bool tracked = tmp.size() < sizeof partial_path;
  if (tracked) {
    std::copy(tmp.begin(), tmp.end(), partial_path);
    partial_path[tmp.size()] = 0;
    partial_set.store(true);
  }
  auto forget = [&] {
    if (tracked) partial_set.store(false);
  };
  try {
    write(tmp);
  } catch (const Error& e) {
    forget();
    std::remove(tmp.c_str());
    // The user named `path`: say that, not the temporary's name.
    std::string message = e.what();
    for (std::size_t at; (at = message.find(tmp)) != std::string::npos;) message.replace(at, tmp.size(), path);
    fail(e.code(), message);
  } catch (...) {
    forget();
    std::remove(tmp.c_str());
    throw;
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  forget();
  if (ec) {
    std::remove(tmp.c_str());
    fail(ErrorCode::io, "cannot write '" + path + "': " + ec.message());
  }
}

void write_u8(const std::string& path, HostView<const std::uint8_t> image) {
  switch (writable_format(path)) {
    case Format::png: return codec::write_png(path, image);
    case Format::jpeg: return codec::write_jpeg(path, image);
    default:
      if (extension(path) == ".pfm") fail(ErrorCode::invalid_argument, path + ": .pfm holds float images; use .pgm/.ppm/.png for 8-bit");
      return pnm::write(path, image);
  }
}

void write_u16(const std::string& path, HostView<const std::uint16_t> image) {
  switch (writable_format(path)) {
    case Format::png: return codec::write_png(path, image);
    case Format::jpeg: fail(ErrorCode::unsupported, path + ": JPEG cannot hold 16-bit images; use .png or .pgm");
    default:
      if (extension(path) == ".pfm") fail(ErrorCode::invalid_argument, path + ": .pfm holds float images; use .pgm/.ppm/.png for 16-bit");
      return pnm::write(path, image);
  }
}

}  // namespace

const char* partial_output() { return partial_set.load() ? partial_path : nullptr; }

void write_file_atomically(const std::string& path, const std::string& contents) {
  write_atomically(path, [&](const std::string& tmp) {
    std::FILE* f = std::fopen(tmp.c_str(), "wb");
    if (!f) fail(ErrorCode::io, "cannot write '" + tmp + "': " + std::strerror(errno));
    const bool written = std::fwrite(contents.data(), 1, contents.size(), f) == contents.size();
    const bool closed = std::fclose(f) == 0;
    if (!written || !closed) fail(ErrorCode::io, "cannot write '" + tmp + "': " + std::strerror(errno));
  });
}

void write_image(const std::string& path, HostView<const std::uint8_t> image) {
  writable_format(path);  // an unknown extension is refused before anything is written
  write_atomically(path, [&](const std::string& tmp) { write_u8(tmp, image); });
}

void write_image(const std::string& path, HostView<const std::uint16_t> image) {
  writable_format(path);
  write_atomically(path, [&](const std::string& tmp) { write_u16(tmp, image); });
}

void write_image(const std::string& path, HostView<const float> image) {
  if (extension(path) != ".pfm")
    fail(ErrorCode::unsupported, path + ": float images are written as .pfm (Portable Float Map)");
  write_atomically(path, [&](const std::string& tmp) { pnm::write(tmp, image); });
}

void write_image(const std::string& path, const AnyImage& image) {
  std::visit([&](const auto& img) { write_image(path, img.view()); }, image);
}

}  // namespace gpuvis

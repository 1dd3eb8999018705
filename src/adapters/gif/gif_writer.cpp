// The GIF plugin (libgpuvis_gif.so, io/gif_plugin.hpp): an animated GIF writer on giflib, GIF89a, a
// global palette, the NETSCAPE2.0 loop extension and a graphics control block per frame for its delay.
#include <fcntl.h>
#include <gif_lib.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "gpuvis/core/error.hpp"
#include "gpuvis/io/gif.hpp"
#include "io/gif_plugin.hpp"

namespace gpuvis::gif {

struct plugin::Writer {
  GifFileType* file = nullptr;
  std::string path, partial;
  int width = 0, height = 0, delay_cs = 0;
  bool finished = false;

  [[noreturn]] void failed(const char* what, int code) {
    fail(ErrorCode::io, "writing GIF '" + path + "' failed (" + what + ": " + GifErrorString(code) + ")");
  }
};

namespace {

using plugin::Writer;

Writer* start(const std::string& path, int width, int height, const std::vector<std::array<std::uint8_t, 3>>& palette,
             int delay_cs) {
  require(width >= 1 && height >= 1 && width <= max_side && height <= max_side,
          "a GIF frame must be between 1x1 and 65535x65535 pixels; this one is " + std::to_string(width) + "x" + std::to_string(height));
  require(palette.size() >= 2 && palette.size() <= 256, "a GIF palette holds 2 to 256 colours");
  require(delay_cs >= 0 && delay_cs <= 65535, "GIF frame delay must lie in 0..65535 hundredths of a second");
  auto writer = std::make_unique<Writer>();
  Writer& m = *writer;
  m.path = path;
  m.partial = path + ".partial";
  m.width = width;
  m.height = height;
  m.delay_cs = delay_cs;
  // Opened here rather than by EGifOpenFileName, which creates files readable by their owner only:
  // an output file gets the permissions the user's umask gives every other file.
  const int fd = open(m.partial.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0666);
  if (fd < 0) fail(ErrorCode::io, "cannot write GIF '" + path + "'");
  int err = 0;
  m.file = EGifOpenFileHandle(fd, &err);
  if (!m.file) {
    close(fd);
    std::remove(m.partial.c_str());
    fail(ErrorCode::io, "cannot write GIF '" + path + "' (" + GifErrorString(err) + ")");
  }
  EGifSetGifVersion(m.file, true);
  int colours = 2;
  while (colours < static_cast<int>(palette.size())) colours *= 2;
  std::vector<GifColorType> entries(colours, GifColorType{0, 0, 0});
  for (std::size_t i = 0; i < palette.size(); ++i) entries[i] = {palette[i][0], palette[i][1], palette[i][2]};
  ColorMapObject* map = GifMakeMapObject(colours, entries.data());
  const int ok = EGifPutScreenDesc(m.file, width, height, 8, 0, map);
  GifFreeMapObject(map);
  if (ok == GIF_ERROR) m.failed("screen descriptor", m.file->Error);
  // Loop forever: the NETSCAPE2.0 application extension with a loop count of 0.
  static const GifByteType app[] = {'N', 'E', 'T', 'S', 'C', 'A', 'P', 'E', '2', '.', '0'};
  static const GifByteType loop[] = {1, 0, 0};
  if (EGifPutExtensionLeader(m.file, APPLICATION_EXT_FUNC_CODE) == GIF_ERROR ||
      EGifPutExtensionBlock(m.file, sizeof app, app) == GIF_ERROR ||
      EGifPutExtensionBlock(m.file, sizeof loop, loop) == GIF_ERROR || EGifPutExtensionTrailer(m.file) == GIF_ERROR)
    m.failed("loop extension", m.file->Error);
  return writer.release();
}

void discard(Writer* writer) noexcept {
  if (!writer->finished) {
    if (writer->file) {
      int err = 0;
      EGifCloseFile(writer->file, &err);
    }
    std::remove(writer->partial.c_str());
  }
  delete writer;
}

void add_frame(Writer* writer, HostView<const std::uint8_t> indices) {
  Writer& m = *writer;
  require(indices.width == m.width && indices.height == m.height && indices.channels == 1,
          "GIF frame size differs from the animation's");
  GraphicsControlBlock gcb{};
  gcb.DisposalMode = DISPOSAL_UNSPECIFIED;
  gcb.UserInputFlag = false;
  gcb.DelayTime = m.delay_cs;
  gcb.TransparentColor = NO_TRANSPARENT_COLOR;
  GifByteType ext[4];
  const std::size_t len = EGifGCBToExtension(&gcb, ext);
  if (EGifPutExtension(m.file, GRAPHICS_EXT_FUNC_CODE, static_cast<int>(len), ext) == GIF_ERROR)
    m.failed("frame delay", m.file->Error);
  if (EGifPutImageDesc(m.file, 0, 0, m.width, m.height, false, nullptr) == GIF_ERROR) m.failed("frame", m.file->Error);
  for (int y = 0; y < m.height; ++y)
    if (EGifPutLine(m.file, const_cast<GifPixelType*>(indices.row(y)), m.width) == GIF_ERROR)
      m.failed("pixels (disk full?)", m.file->Error);
}

void finish(Writer* writer) {
  Writer& m = *writer;
  int err = 0;
  const int ok = EGifCloseFile(m.file, &err);
  m.file = nullptr;
  if (ok == GIF_ERROR) {
    std::remove(m.partial.c_str());
    fail(ErrorCode::io, "writing GIF '" + m.path + "' failed (" + GifErrorString(err) + ")");
  }
  std::error_code ec;
  std::filesystem::rename(m.partial, m.path, ec);
  if (ec) {
    std::remove(m.partial.c_str());
    fail(ErrorCode::io, "cannot write GIF '" + m.path + "': " + ec.message());
  }
  m.finished = true;
}

constexpr plugin::Api kApi{plugin::kPlugin.version, start, add_frame, finish, discard};

}  // namespace

}  // namespace gpuvis::gif

extern "C" __attribute__((visibility("default"))) const void* gpuvis_gif_plugin() { return &gpuvis::gif::kApi; }

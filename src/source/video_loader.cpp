// Video files and cameras: the video plugin (src/adapters/video) loaded on first use
// (core/plugin_loader.hpp).
#include <iostream>

#include "core/plugin_loader.hpp"
#include "gpuvis/core/error.hpp"
#include "source/video_plugin.hpp"

namespace gpuvis::source {
namespace {

constexpr plugins::Plugin kPlugin{"libgpuvis_video.so", video_plugin::kEntryPoint, video_plugin::kVersion, "video files and cameras",
                                  "libopencv-dev"};

const video_plugin::Api& api() { return *static_cast<const video_plugin::Api*>(plugins::require(kPlugin)); }

class PluginSource final : public FrameSource {
 public:
  explicit PluginSource(std::unique_ptr<video_plugin::Reader> reader) : reader_(std::move(reader)) {}
  bool next(Image<std::uint8_t>& frame) override {
    return reader_->next([&](int width, int height, std::ptrdiff_t& stride) {
      if (frame.width() != width || frame.height() != height || frame.channels() != 1)
        frame = Image<std::uint8_t>(width, height);
      stride = frame.view().stride;
      return frame.row(0);
    });
  }
  std::string describe() const override { return reader_->describe(); }
  video_plugin::Reader& reader() { return *reader_; }

 private:
  std::unique_ptr<video_plugin::Reader> reader_;
};

}  // namespace

bool video_available() { return plugins::find(kPlugin) != nullptr; }

std::unique_ptr<FrameSource> make_video_source(const std::string& path, bool loop) {
  return std::make_unique<PluginSource>(api().open_file(path, loop));
}

std::unique_ptr<FrameSource> make_video_source(const std::string& path, bool loop, long first) {
  require(first >= 0, "video: the first frame must be >= 0, got " + std::to_string(first));
  auto source = std::make_unique<PluginSource>(api().open_file(path, loop));
  if (first > 0 && !source->reader().seek(first))
    fail(ErrorCode::invalid_argument, "video '" + path + "' has no frame " + std::to_string(first) + " (it has " +
                                          std::to_string(source->reader().frame_count()) + ")");
  return source;
}

long video_frame_count(const std::string& path) { return api().open_file(path, false)->frame_count(); }

struct VideoFileWriter::Impl {
  std::unique_ptr<video_plugin::Writer> writer;
  int width, height;
};

VideoFileWriter::VideoFileWriter(const std::string& path, int width, int height, double fps) {
  require(width > 0 && height > 0 && fps > 0, "video writer: width, height and fps must be positive");
  impl_ = std::make_unique<Impl>(Impl{api().create_file(path, width, height, fps), width, height});
}
VideoFileWriter::~VideoFileWriter() = default;
VideoFileWriter::VideoFileWriter(VideoFileWriter&&) noexcept = default;
VideoFileWriter& VideoFileWriter::operator=(VideoFileWriter&&) noexcept = default;

void VideoFileWriter::write(HostView<const std::uint8_t> frame) {
  require(frame.width == impl_->width && frame.height == impl_->height && frame.channels == 1,
          "video writer: every frame must be grey and " + std::to_string(impl_->width) + "x" + std::to_string(impl_->height));
  impl_->writer->write(frame.row(0), frame.stride);
}

std::unique_ptr<FrameSource> make_camera_source(const CameraParams& options) {
  return make_reconnecting_source([options] { return std::make_unique<PluginSource>(api().open_camera(options)); },
                                  "camera " + std::to_string(options.index),
                                  [](const std::string& message) { std::cerr << "gpuvis: " << message << "\n"; });
}

}  // namespace gpuvis::source

// Video files and cameras through OpenCV's videoio (FFmpeg / V4L2 underneath).
#include <opencv2/core/utils/logger.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <thread>

#include "gpuvis/core/error.hpp"
#include "gpuvis/source/frame_source.hpp"

namespace gpuvis::source {
namespace {

// OpenCV logs its backend probing (V4L2, GStreamer, image sequences) on stderr, errors included;
// gpuvis reports failures itself, in one line.
void quiet_opencv() { cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_SILENT); }

// reacTIVision's grey conversion, (77 R + 151 G + 28 B) >> 8, from OpenCV's BGR.
void to_grey(const cv::Mat& m, Image<std::uint8_t>& out) {
  if (out.width() != m.cols || out.height() != m.rows) out = Image<std::uint8_t>(m.cols, m.rows);
  for (int y = 0; y < m.rows; ++y) {
    std::uint8_t* d = out.row(y);
    if (m.channels() == 1) {
      std::copy_n(m.ptr<std::uint8_t>(y), m.cols, d);
      continue;
    }
    const std::uint8_t* s = m.ptr<std::uint8_t>(y);
    const int c = m.channels();
    for (int x = 0; x < m.cols; ++x) d[x] = static_cast<std::uint8_t>((77u * s[x * c + 2] + 151u * s[x * c + 1] + 28u * s[x * c]) >> 8);
  }
}

class VideoFileSource final : public FrameSource {
 public:
  VideoFileSource(const std::string& path, bool loop) : path_(path), loop_(loop) {
    quiet_opencv();
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) fail(ErrorCode::io, "video file '" + path + "' does not exist");
    if (!cap_.open(path, cv::CAP_FFMPEG) && !cap_.open(path))
      fail(ErrorCode::format, "cannot decode video '" + path + "' (unsupported or corrupt)");
  }
  bool next(Image<std::uint8_t>& frame) override {
    cv::Mat m;
    if (!cap_.read(m) || m.empty()) {
      if (!loop_ || frames_ == 0) return false;
      cap_.set(cv::CAP_PROP_POS_FRAMES, 0);
      if (!cap_.read(m) || m.empty()) return false;
    }
    ++frames_;
    if (m.depth() != CV_8U) fail(ErrorCode::unsupported, "video '" + path_ + "' has non 8-bit frames");
    to_grey(m, frame);
    return true;
  }
  std::string describe() const override { return "video " + path_; }

 private:
  std::string path_;
  bool loop_;
  cv::VideoCapture cap_;
  long frames_ = 0;
};

class CameraSource final : public FrameSource {
 public:
  CameraSource(int index, int width, int height, double fps) : index_(index), width_(width), height_(height), fps_(fps) {
    quiet_opencv();
    if (!open()) fail(ErrorCode::io, "cannot open camera " + std::to_string(index) + " (/dev/video" + std::to_string(index) +
                                         "): missing, busy or not a capture device");
  }
  bool next(Image<std::uint8_t>& frame) override {
    cv::Mat m;
    for (int attempt = 0; !cap_.read(m) || m.empty(); ++attempt) {
      // A camera that disappears (unplugged, driver reset) is retried, not the end of the stream.
      if (attempt == 0) std::cerr << "gpuvis: camera " << index_ << " stopped delivering frames, retrying\n";
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
      cap_.release();
      open();
    }
    to_grey(m, frame);
    return true;
  }
  std::string describe() const override { return "camera " + std::to_string(index_); }

 private:
  bool open() {
    if (!cap_.open(index_, cv::CAP_V4L2) && !cap_.open(index_)) return false;
    if (width_ > 0) cap_.set(cv::CAP_PROP_FRAME_WIDTH, width_);
    if (height_ > 0) cap_.set(cv::CAP_PROP_FRAME_HEIGHT, height_);
    if (fps_ > 0) cap_.set(cv::CAP_PROP_FPS, fps_);
    return cap_.isOpened();
  }
  int index_, width_, height_;
  double fps_;
  cv::VideoCapture cap_;
};

}  // namespace

bool video_available() { return true; }
std::unique_ptr<FrameSource> make_video_source(const std::string& path, bool loop) {
  return std::make_unique<VideoFileSource>(path, loop);
}
std::unique_ptr<FrameSource> make_camera_source(int index, int width, int height, double fps) {
  return std::make_unique<CameraSource>(index, width, height, fps);
}

}  // namespace gpuvis::source

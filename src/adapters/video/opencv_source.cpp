// The video plugin (libgpuvis_video.so): video files and cameras through OpenCV's videoio (FFmpeg /
// V4L2 underneath). libgpuvis loads it on first use (src/source/video_loader.cpp); it uses no
// libgpuvis function, only the interface in src/source/video_plugin.hpp.
#include <opencv2/core/utils/logger.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <set>
#include <thread>

#include "gpuvis/core/error.hpp"
#include "gpuvis/io/read_limited.hpp"
#include "source/video_plugin.hpp"

namespace gpuvis::source {
namespace {

using video_plugin::Allocate;

// OpenCV logs its backend probing (V4L2, GStreamer, image sequences) on stderr, errors included;
// gpuvis reports failures itself, in one line.
void quiet_opencv() { cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_SILENT); }

// reacTIVision's grey conversion, (77 R + 151 G + 28 B) >> 8, from OpenCV's BGR.
void to_grey(const cv::Mat& m, const Allocate& allocate) {
  std::ptrdiff_t stride = 0;
  std::uint8_t* first = allocate(m.cols, m.rows, stride);
  for (int y = 0; y < m.rows; ++y) {
    std::uint8_t* d = first + y * stride;
    if (m.channels() == 1) {
      std::copy_n(m.ptr<std::uint8_t>(y), m.cols, d);
      continue;
    }
    const std::uint8_t* s = m.ptr<std::uint8_t>(y);
    const int c = m.channels();
    for (int x = 0; x < m.cols; ++x) d[x] = static_cast<std::uint8_t>((77u * s[x * c + 2] + 151u * s[x * c + 1] + 28u * s[x * c]) >> 8);
  }
}

class VideoFileSource final : public video_plugin::Reader {
 public:
  VideoFileSource(const std::string& path, bool loop) : path_(path), loop_(loop) {
    quiet_opencv();
    require_regular_file(path, "video file");
    if (!cap_.open(path, cv::CAP_FFMPEG) && !cap_.open(path))
      fail(ErrorCode::format, "cannot decode video '" + path + "' (unsupported or corrupt)");
  }
  bool next(const Allocate& allocate) override {
    cv::Mat m;
    if (!cap_.read(m) || m.empty()) {
      if (!loop_ || frames_ == 0) return false;
      cap_.set(cv::CAP_PROP_POS_FRAMES, 0);
      if (!cap_.read(m) || m.empty()) return false;
    }
    ++frames_;
    if (m.depth() != CV_8U) fail(ErrorCode::unsupported, "video '" + path_ + "' has non 8-bit frames");
    to_grey(m, allocate);
    return true;
  }
  std::string describe() const override { return "video " + path_; }
  long frame_count() override {
    if (count_ < 0) count_ = counted();
    return count_;
  }
  // OpenCV's seek lands on the frame asked for in formats that index their frames (Motion JPEG,
  // most MP4s); where the position read back differs, the file is read again from its start up to
  // the frame (grab() without decoding), which is exact in every format.
  bool seek(long frame) override {
    if (frame < 0 || frame >= frame_count()) return false;
    if (cap_.set(cv::CAP_PROP_POS_FRAMES, static_cast<double>(frame)) &&
        static_cast<long>(std::lround(cap_.get(cv::CAP_PROP_POS_FRAMES))) == frame)
      return true;
    reopen();
    for (long i = 0; i < frame; ++i)
      if (!cap_.grab()) return false;
    return true;
  }

 private:
  void reopen() {
    cap_.release();
    if (!cap_.open(path_, cv::CAP_FFMPEG) && !cap_.open(path_))
      fail(ErrorCode::format, "cannot decode video '" + path_ + "' (unsupported or corrupt)");
  }
  // The container's frame count where it gives one; else the frames counted by reading the file
  // once (a second capture, so that this one's position is kept).
  long counted() {
    const double said = cap_.get(cv::CAP_PROP_FRAME_COUNT);
    if (said > 0) return static_cast<long>(std::lround(said));
    cv::VideoCapture again;
    if (!again.open(path_, cv::CAP_FFMPEG) && !again.open(path_)) return 0;
    long n = 0;
    while (again.grab()) ++n;
    return n;
  }
  std::string path_;
  bool loop_;
  cv::VideoCapture cap_;
  long frames_ = 0;
  long count_ = -1;
};

class VideoFileWriter final : public video_plugin::Writer {
 public:
  VideoFileWriter(const std::string& path, int width, int height, double fps) : path_(path), width_(width), height_(height) {
    quiet_opencv();
    if (!writer_.open(path, cv::CAP_FFMPEG, cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), fps, cv::Size(width, height), false) &&
        !writer_.open(path, cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), fps, cv::Size(width, height), false))
      fail(ErrorCode::io, "cannot create video '" + path + "' (Motion JPEG in AVI: name it .avi, in a writable folder)");
  }
  void write(const std::uint8_t* first_row, std::ptrdiff_t stride) override {
    const cv::Mat frame(height_, width_, CV_8UC1, const_cast<std::uint8_t*>(first_row), static_cast<std::size_t>(stride));
    writer_.write(frame);
  }

 private:
  std::string path_;
  int width_, height_;
  cv::VideoWriter writer_;
};

// camera.xml format names as V4L2 four-character codes.
int fourcc_of(const std::string& format) {
  static const std::pair<const char*, const char*> table[] = {
      {"mjpeg", "MJPG"}, {"jpeg", "MJPG"}, {"yuyv", "YUYV"}, {"uyvy", "UYVY"}, {"yvyu", "YVYU"}, {"mono8", "GREY"},
      {"mono16", "Y16 "}, {"rgb8", "RGB3"}, {"yuv420p", "YU12"}, {"h264", "H264"}, {"mpeg", "MPEG"}};
  for (const auto& [name, code] : table)
    if (format == name) return cv::VideoWriter::fourcc(code[0], code[1], code[2], code[3]);
  return 0;
}

class CameraSource final : public video_plugin::Reader {
 public:
  explicit CameraSource(CameraParams options) : o_(std::move(options)) {
    quiet_opencv();
    if (!open()) fail(ErrorCode::io, "cannot open camera " + std::to_string(o_.index) + " (/dev/video" + std::to_string(o_.index) +
                                         "): missing, busy or not a capture device");
  }
  // False when the camera stops delivering (unplugged, driver reset): the library reopens it
  // (source::make_reconnecting_source), so that this is not the end of the stream.
  bool next(const Allocate& allocate) override {
    cv::Mat m;
    if (!cap_.read(m) || m.empty()) {
      cap_.release();
      return false;
    }
    to_grey(m, allocate);
    return true;
  }
  std::string describe() const override { return "camera " + std::to_string(o_.index); }

 private:
  bool open() {
    if (!cap_.open(o_.index, cv::CAP_V4L2) && !cap_.open(o_.index)) return false;
    if (!o_.format.empty()) {
      const int code = fourcc_of(o_.format);
      if (!code || !cap_.set(cv::CAP_PROP_FOURCC, code)) warn_once("format " + o_.format);
    }
    if (o_.width > 0) cap_.set(cv::CAP_PROP_FRAME_WIDTH, o_.width);
    if (o_.height > 0) cap_.set(cv::CAP_PROP_FRAME_HEIGHT, o_.height);
    if (o_.fps > 0) cap_.set(cv::CAP_PROP_FPS, o_.fps);
    for (const auto& c : o_.controls) apply(c);
    return cap_.isOpened();
  }
  // One camera.xml setting through OpenCV's properties (V4L2 controls underneath).
  void apply(const CameraControl& c) {
    static const std::pair<const char*, int> props[] = {
        {"brightness", cv::CAP_PROP_BRIGHTNESS}, {"contrast", cv::CAP_PROP_CONTRAST}, {"sharpness", cv::CAP_PROP_SHARPNESS},
        {"gain", cv::CAP_PROP_GAIN},             {"exposure", cv::CAP_PROP_EXPOSURE}, {"focus", cv::CAP_PROP_FOCUS},
        {"white", cv::CAP_PROP_WB_TEMPERATURE},  {"backlight", cv::CAP_PROP_BACKLIGHT}, {"gamma", cv::CAP_PROP_GAMMA}};
    int prop = -1;
    for (const auto& [name, id] : props)
      if (c.name == name) prop = id;
    bool ok = prop >= 0;
    if (ok && c.mode == CameraControl::Mode::automatic) {
      ok = c.name == "exposure"  ? cap_.set(cv::CAP_PROP_AUTO_EXPOSURE, 3)  // V4L2 aperture priority
           : c.name == "focus" ? cap_.set(cv::CAP_PROP_AUTOFOCUS, 1)
           : c.name == "white" ? cap_.set(cv::CAP_PROP_AUTO_WB, 1)
                               : false;
    } else if (ok && c.mode == CameraControl::Mode::value) {
      if (c.name == "exposure") cap_.set(cv::CAP_PROP_AUTO_EXPOSURE, 1);  // manual, or the value is ignored
      if (c.name == "focus") cap_.set(cv::CAP_PROP_AUTOFOCUS, 0);
      if (c.name == "white") cap_.set(cv::CAP_PROP_AUTO_WB, 0);
      ok = cap_.set(prop, c.value);
    } else {
      ok = false;  // OpenCV does not report control ranges, so min/max cannot be resolved
    }
    if (!ok) warn_once(c.name + (c.mode == CameraControl::Mode::automatic ? "=auto"
                                 : c.mode == CameraControl::Mode::value ? "=" + std::to_string(c.value)
                                 : c.mode == CameraControl::Mode::minimum ? "=min" : "=max"));
  }
  void warn_once(const std::string& what) {
    if (warned_.insert(what).second)
      std::cerr << "gpuvis: camera " << o_.index << " did not accept " << what << "; left at the camera's setting\n";
  }
  CameraParams o_;
  cv::VideoCapture cap_;
  std::set<std::string> warned_;
};

std::unique_ptr<video_plugin::Reader> open_file(const std::string& path, bool loop) {
  return std::make_unique<VideoFileSource>(path, loop);
}
std::unique_ptr<video_plugin::Reader> open_camera(const CameraParams& options) {
  return std::make_unique<CameraSource>(options);
}
std::unique_ptr<video_plugin::Writer> create_file(const std::string& path, int width, int height, double fps) {
  return std::make_unique<VideoFileWriter>(path, width, height, fps);
}

constexpr video_plugin::Api kApi{video_plugin::kVersion, &open_file, &open_camera, &create_file};

}  // namespace
}  // namespace gpuvis::source

extern "C" __attribute__((visibility("default"))) const gpuvis::source::video_plugin::Api* gpuvis_video_plugin() {
  return &gpuvis::source::kApi;
}

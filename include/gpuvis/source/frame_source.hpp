#pragma once
// Stage 0: frame sources. A source delivers 8-bit grey frames; a capture thread runs it and hands
// the newest frame to the processing thread (older unprocessed frames are dropped and counted, so
// latency never builds up behind a slow consumer).
#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "gpuvis/core/image.hpp"

namespace gpuvis::source {

class FrameSource {
 public:
  virtual ~FrameSource() = default;
  // The next frame, or false at the end of the stream. Throws gpuvis::Error for unreadable input.
  virtual bool next(Image<std::uint8_t>& frame) = 0;
  virtual std::string describe() const = 0;
  // Asks a next() that is waiting (a camera being reconnected) to give up and return false soon.
  // Called from another thread (CaptureThread::stop).
  virtual void cancel() {}
};

// A live source that survives losing its device: when the source `open` made stops delivering
// (next() false or an error), `warn` is told once, `open` is tried again every `retry_seconds`
// until it succeeds, and frames continue; `warn` is told again when it is back. Only cancel()
// ends it. `what` names the device in the messages ("camera 0"). `open` is called first here, and
// its error, if any, is this function's: a device missing at start-up is an error.
std::unique_ptr<FrameSource> make_reconnecting_source(std::function<std::unique_ptr<FrameSource>()> open, std::string what,
                                                      std::function<void(const std::string&)> warn,
                                                      double retry_seconds = 0.5);

// Image files of a folder (sorted by name), optionally looping. A file that cannot be read (not an
// image, truncated, larger than the image size limit) is skipped, and `warn` (when given) is told
// once per file; a folder with no readable file at all is an error.
std::unique_ptr<FrameSource> make_folder_source(const std::string& folder, bool loop,
                                                std::function<void(const std::string&)> warn = {});

// A camera setting of camera.xml's <settings> (spec §9.2): brightness, contrast, sharpness, gain,
// exposure, shutter, focus, white, powerline, backlight or gamma.
struct CameraControl {
  enum class Mode { value, automatic, minimum, maximum };
  std::string name;
  Mode mode = Mode::value;
  int value = 0;
};

struct CameraParams {
  int index = 0;              // /dev/videoN
  int width = 0, height = 0;  // 0 = the camera's default; the driver picks the nearest size it has
  double fps = 0;             // 0 = the camera's default
  std::string format;         // camera.xml format name (mjpeg, yuyv, mono8, ...); empty = the driver's choice
  std::vector<CameraControl> controls;
};
// camera.xml's "max" and "min" sizes and rates: requests the driver clamps to its range.
inline constexpr int kLargestCaptureSize = 65535;
inline constexpr double kHighestCaptureRate = 1000;

// Video adapter (OpenCV videoio): a video file, optionally looping, or a camera (/dev/videoN).
// Colour frames become grey with reacTIVision's weights. A camera that stops delivering is
// reopened (make_reconnecting_source; the messages go to stderr), not treated as the end.
// Settings the camera or OpenCV cannot apply are reported once on stderr, not silently dropped.
bool video_available();
std::unique_ptr<FrameSource> make_video_source(const std::string& path, bool loop);
// A video file from frame `first` on (0-based): the frames a reading from the start would give
// from there, in every format. An error when the file has `first` frames or fewer.
std::unique_ptr<FrameSource> make_video_source(const std::string& path, bool loop, long first);
// The number of frames of a video file (the container's count, or counted by reading the file).
long video_frame_count(const std::string& path);

// Grey frames of one size into a video file (Motion JPEG in AVI), e.g. a generated sequence that
// `gpuvis track --video` or gpuvis.dask.detect_video reads back.
class VideoFileWriter {
 public:
  VideoFileWriter(const std::string& path, int width, int height, double fps);
  ~VideoFileWriter();
  VideoFileWriter(VideoFileWriter&&) noexcept;
  VideoFileWriter& operator=(VideoFileWriter&&) noexcept;
  void write(HostView<const std::uint8_t> frame);  // of the writer's size

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};
std::unique_ptr<FrameSource> make_camera_source(const CameraParams& options);

// A crop rectangle (camera.xml <frame>): width/height 0 = to the frame's edge. As reacTIVision,
// width and height are made even (one less when odd) and clamped to the frame, and the offsets are
// clamped so that the crop fits.
struct Crop {
  int x = 0, y = 0, width = 0, height = 0;
};
std::unique_ptr<FrameSource> make_cropped_source(std::unique_ptr<FrameSource> source, Crop crop);

// Runs a source on its own thread at up to `fps` frames per second (0 = as fast as the consumer
// takes them, no drops: the capture waits for each frame to be taken).
class CaptureThread {
 public:
  CaptureThread(std::unique_ptr<FrameSource> source, double fps);
  ~CaptureThread();
  // Blocks until a frame is available; false when the stream ended (or stop() was called).
  // `arrival` is the steady-clock time in seconds when the frame was captured.
  bool take(Image<std::uint8_t>& frame, double& arrival);
  // take() without waiting: false when no frame is waiting now.
  bool try_take(Image<std::uint8_t>& frame, double& arrival);
  void stop();
  long dropped() const { return dropped_; }
  long captured() const { return captured_; }
  std::string error() const;  // the source's error, if it stopped on one

 private:
  void run();
  bool hand_over(std::unique_lock<std::mutex>& lock, Image<std::uint8_t>& frame, double& arrival);
  std::unique_ptr<FrameSource> source_;
  double fps_;
  std::mutex m_;
  std::condition_variable cv_;
  Image<std::uint8_t> slot_;
  double slot_time_ = 0;
  bool full_ = false, done_ = false;
  std::atomic<bool> stop_{false};
  std::atomic<long> dropped_{0}, captured_{0};
  std::string error_;
  std::thread thread_;
};

double now_seconds();  // steady clock

}  // namespace gpuvis::source

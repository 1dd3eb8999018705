#pragma once
// The interface between libgpuvis and the video plugin (libgpuvis_video.so, OpenCV videoio), which
// is loaded with dlopen the first time a video file or camera is opened: OpenCV's video stack
// (about 230 shared libraries) then costs nothing to the commands that never read a video.
//
// The plugin is not linked against libgpuvis: it sees only standard types, the header-only
// gpuvis::Error (thrown across the boundary) and CameraParams. Frames are written into memory the
// caller hands out, so that no libgpuvis function is needed on the plugin's side.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "gpuvis/source/frame_source.hpp"

namespace gpuvis::source::video_plugin {

// Returns the first row of a grey frame of width x height, and its stride in bytes.
using Allocate = std::function<std::uint8_t*(int width, int height, std::ptrdiff_t& stride)>;

class Reader {
 public:
  virtual ~Reader() = default;
  // The next frame in grey (reacTIVision's weights), or false at the end of the stream.
  virtual bool next(const Allocate& allocate) = 0;
  virtual std::string describe() const = 0;
  // Video files: the number of frames (the container's count, or counted by reading where it has
  // none), and a move to frame `frame` (0-based) that the next next() reads. False when the file
  // has fewer frames. Cameras: -1 and false.
  virtual long frame_count() { return -1; }
  virtual bool seek(long /*frame*/) { return false; }
};

class Writer {
 public:
  virtual ~Writer() = default;
  // One grey frame of the writer's size; rows `stride` bytes apart.
  virtual void write(const std::uint8_t* first_row, std::ptrdiff_t stride) = 0;
};

struct Api {
  int version;  // kVersion of the plugin's build
  std::unique_ptr<Reader> (*open_file)(const std::string& path, bool loop);
  std::unique_ptr<Reader> (*open_camera)(const CameraParams& options);
  // A video file of grey frames (Motion JPEG in AVI) at `fps` frames per second.
  std::unique_ptr<Writer> (*create_file)(const std::string& path, int width, int height, double fps);
};

inline constexpr int kVersion = 2;
inline constexpr const char* kEntryPoint = "gpuvis_video_plugin";
using EntryPoint = const Api* (*)();

}  // namespace gpuvis::source::video_plugin

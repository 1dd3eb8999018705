// Built instead of src/adapters/video when OpenCV's videoio is not available.
#include "gpuvis/core/error.hpp"
#include "gpuvis/source/frame_source.hpp"

namespace gpuvis::source {
namespace {
[[noreturn]] void absent() {
  fail(ErrorCode::unsupported, "video files and cameras are not built in (install libopencv-dev and rebuild); use --folder");
}
}  // namespace
bool video_available() { return false; }
std::unique_ptr<FrameSource> make_video_source(const std::string&, bool) { absent(); }
std::unique_ptr<FrameSource> make_camera_source(const CameraParams&) { absent(); }
}  // namespace gpuvis::source

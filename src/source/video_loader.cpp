// Video files and cameras: the video plugin (src/adapters/video) loaded on first use.
//
// It is looked for, in order, in $GPUVIS_PLUGIN_DIR, beside the running program, in lib/gpuvis of
// an installed program's prefix and in the build tree the library was built in
// (GPUVIS_PLUGIN_BUILD_DIR).
#include <iostream>
#include <dlfcn.h>

#include <filesystem>
#include <mutex>
#include <vector>

#include "gpuvis/core/error.hpp"
#include "source/video_plugin.hpp"

namespace gpuvis::source {
namespace {

constexpr const char* kPluginFile = "libgpuvis_video.so";

struct Loaded {
  const video_plugin::Api* api = nullptr;
  std::string error;  // why it could not be loaded
};

std::vector<std::filesystem::path> plugin_dirs() {
  std::vector<std::filesystem::path> dirs;
  if (const char* env = std::getenv("GPUVIS_PLUGIN_DIR"); env && *env) dirs.emplace_back(env);
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    dirs.push_back(exe.parent_path());
    dirs.push_back(exe.parent_path().parent_path() / "lib" / "gpuvis");  // an installed program (bin/..)
    dirs.push_back(exe.parent_path().parent_path() / "lib64" / "gpuvis");
  }
  dirs.emplace_back(GPUVIS_PLUGIN_BUILD_DIR);
  return dirs;
}

Loaded load() {
  Loaded out;
  std::string tried;
  for (const auto& dir : plugin_dirs()) {
    const auto path = dir / kPluginFile;
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      tried += (tried.empty() ? "" : ", ") + dir.string();
      continue;
    }
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      out.error = std::string("cannot load ") + path.string() + ": " + dlerror();
      return out;
    }
    const auto entry = reinterpret_cast<video_plugin::EntryPoint>(dlsym(handle, video_plugin::kEntryPoint));
    const video_plugin::Api* api = entry ? entry() : nullptr;
    if (!api || api->version != video_plugin::kVersion) {
      out.error = path.string() + " is not a video plugin of this gpuvis build; rebuild it";
      return out;
    }
    out.api = api;  // the handle stays open for the life of the process
    return out;
  }
  out.error = std::string("the video plugin ") + kPluginFile + " was not found (looked in " + tried +
              "; set GPUVIS_PLUGIN_DIR to its folder)";
  return out;
}

const Loaded& plugin() {
  static const Loaded loaded = load();
  return loaded;
}

const video_plugin::Api& api() {
  const Loaded& p = plugin();
  if (!p.api) fail(ErrorCode::unsupported, "video files and cameras are unavailable: " + p.error);
  return *p.api;
}

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

 private:
  std::unique_ptr<video_plugin::Reader> reader_;
};

}  // namespace

bool video_available() { return plugin().api != nullptr; }

std::unique_ptr<FrameSource> make_video_source(const std::string& path, bool loop) {
  return std::make_unique<PluginSource>(api().open_file(path, loop));
}

std::unique_ptr<FrameSource> make_camera_source(const CameraParams& options) {
  return make_reconnecting_source([options] { return std::make_unique<PluginSource>(api().open_camera(options)); },
                                  "camera " + std::to_string(options.index),
                                  [](const std::string& message) { std::cerr << "gpuvis: " << message << "\n"; });
}

}  // namespace gpuvis::source

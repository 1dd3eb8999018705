#pragma once
// Animated GIF output through giflib (the GIF plugin, src/adapters/gif, built when giflib is found).
// Frames are palette indices; the file plays in a loop in browsers.
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gpuvis/core/image.hpp"

namespace gpuvis::gif {

bool available();  // false when the GIF plugin was not built (no giflib) or cannot be loaded

// Largest frame side a GIF can describe.
inline constexpr int max_side = 65535;

class AnimationWriter {
 public:
  // Starts `path` (written as path + ".partial" and renamed on finish(), so a run that stops leaves
  // no half-written GIF). `palette` holds 2..256 RGB colours; `delay_cs` is the time per frame in
  // hundredths of a second. Throws ErrorCode::unsupported without giflib.
  AnimationWriter(const std::string& path, int width, int height, const std::vector<std::array<std::uint8_t, 3>>& palette,
                  int delay_cs);
  ~AnimationWriter();  // removes the partial file unless finish() ran
  AnimationWriter(const AnimationWriter&) = delete;
  AnimationWriter& operator=(const AnimationWriter&) = delete;

  void add_frame(HostView<const std::uint8_t> indices);  // width x height, one channel
  void finish();
  int frames() const { return frames_; }

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
  int frames_ = 0;
};

}  // namespace gpuvis::gif

#pragma once
// Stage 1 of the tracker: adaptive threshold of an 8-bit grey frame into a binary frame
// (0 = black, 255 = white). Three methods, each with a CPU and a CUDA implementation that give
// bit-identical output (docs/thresholds.md has the exact rules):
//
//  * bernsen      full per-pixel Bernsen: max/min over a (2h+1)^2 window, O(1) per pixel for any h
//  * tiled        reacTIVision 1.6's tiled Bernsen (one strip), exactly
//  * bradley-roth reacTIVision 1.6's Bradley-Roth integral-image threshold, exactly
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "gpuvis/core/backend.hpp"
#include "gpuvis/core/image.hpp"

namespace gpuvis::threshold {

enum class Method { bernsen, tiled, bradley_roth };

Method parse_method(std::string_view name);  // "bernsen" | "tiled" | "bradley-roth"
std::string_view to_string(Method method);

struct BernsenParams {
  int half_window = 12;  // h >= 1: window (2h+1)^2, truncated at the image edge
  int gate = 32;         // contrast gate C in 0..255: max-min < C uses the low-contrast rule
};

struct TiledParams {  // reacTIVision.xml <threshold type="tb" size=… gradient=…>
  int tile = 16;      // tile size T >= 2
  int gradient = 16;  // gradient gate G in 0..255
};

struct BradleyRothParams {  // reacTIVision.xml <threshold type="br" size=… gradient=… contrast=…>
  int size = 16;            // window half-size r >= 1 (clamped to min(63, H/2) as reacTIVision)
  float bias = 0.16f;       // gradient/100; 0 <= bias < 1
  int contrast = 32;        // minimum local mean m in 0..255
};

struct Params {
  Method method = Method::bernsen;
  // Sharpening before the threshold, 0 (off, the default and reacTIVision's behaviour) to 4: where
  // a pixel g and its four neighbours span at least 48 grey levels, g becomes
  // g + k·(4g − the neighbours)/4 (integer, truncated towards zero), kept within their range
  // (pixels outside the frame repeat the edge). It undoes some of a lens's blur, so that the small
  // leaves of small symbols stay apart on sharp, quiet cameras; on noisy frames it costs symbols
  // and adds ghost fingers, hence off by default (docs/benchmarks/detect.md).
  int sharpen = 0;
  BernsenParams bernsen;
  TiledParams tiled;
  BradleyRothParams bradley_roth;
  // Where it runs; automatic: CUDA when a device is usable, else an OpenCL GPU, else the CPU.
  // Every backend gives the same output.
  Backend backend = Backend::automatic;
};

// Throws ErrorCode::invalid_argument with a message naming the bad parameter.
void validate(const Params& params);


class Equalizer;

// The interface the backends implement. Workspaces are kept between calls, so reusing one
// Thresholder for a stream of frames allocates only when the frame size changes.
class Thresholder {
 public:
  virtual ~Thresholder() = default;
  virtual Backend backend() const = 0;
  virtual const Params& params() const = 0;
  // src and dst must have the same size and one channel. The image must be at least 1x1.
  virtual void apply(HostView<const std::uint8_t> src, HostView<std::uint8_t> dst) = 0;
  // reacTIVision's equaliser before the threshold (and before the sharpening), on this backend:
  // every later apply() thresholds the frame equalised by `equalizer` while it is enabled and has
  // a background (of the frame's size: else apply() fails with the equaliser's message). Null: none.
  // The same bytes on every backend as Equalizer::apply then the threshold.
  void set_equalizer(std::shared_ptr<const Equalizer> equalizer) { equalizer_ = std::move(equalizer); }

 protected:
  // The equaliser apply() must use now, or null.
  const Equalizer* active_equalizer() const;
  std::shared_ptr<const Equalizer> equalizer_;
};

// A Thresholder on params.backend for a stream of frames; parameters are validated here.
std::unique_ptr<Thresholder> make_thresholder(const Params& params);

// One frame: src (8-bit grey) -> dst (0 or 255), same size, one channel, on params.backend.
void threshold(HostView<const std::uint8_t> src, HostView<std::uint8_t> dst, const Params& params);

// reacTIVision's frame equaliser (background capture and subtraction, spec §2.3).
class Equalizer {
 public:
  // Captures `frame` as the background and switches equalisation on.
  void capture(HostView<const std::uint8_t> frame);
  void set_enabled(bool on) { enabled_ = on; }
  bool enabled() const { return enabled_; }
  bool has_background() const { return !background_.empty(); }
  // v <- clamp(v - (B - a), 0, 255) in place, when enabled and a background of the same size exists.
  void apply(HostView<std::uint8_t> frame) const;
  int background_level() const { return level_; }
  const Image<std::uint8_t>& background() const { return background_; }
  // apply() from `frame` into `out` (of the background's size), leaving `frame` as it is.
  void apply(HostView<const std::uint8_t> frame, HostView<std::uint8_t> out) const;
  // Fails with one line ("capture the background again") unless a width x height frame fits the
  // background.
  void require_frame_size(int width, int height) const;
  // How many backgrounds were captured: a device copy of background() is current while it is unchanged.
  long captures() const { return captures_; }

 private:
  Image<std::uint8_t> background_;
  int level_ = 0;
  long captures_ = 0;
  bool enabled_ = false;
};

}  // namespace gpuvis::threshold

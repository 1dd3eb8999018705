#include <algorithm>

#include "gpuvis/threshold/threshold.hpp"
#include "threshold/rules.hpp"

namespace gpuvis::threshold {

const Equalizer* Thresholder::active_equalizer() const {
  return equalizer_ && equalizer_->enabled() && equalizer_->has_background() ? equalizer_.get() : nullptr;
}

void Equalizer::capture(HostView<const std::uint8_t> frame) {
  require(frame.channels == 1 && !frame.empty(), "equalizer: the background must be a non-empty grey frame");
  background_ = Image<std::uint8_t>(frame.width, frame.height);
  copy<std::uint8_t>(frame, background_.view());
  // a = truncated mean of the 10x10 block around the centre (clipped to small frames).
  const int x0 = std::max(0, frame.width / 2 - 5), x1 = std::min(frame.width, frame.width / 2 + 5);
  const int y0 = std::max(0, frame.height / 2 - 5), y1 = std::min(frame.height, frame.height / 2 + 5);
  long sum = 0, count = 0;
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x, ++count) sum += frame(x, y);
  level_ = count ? static_cast<int>(sum / count) : 0;
  enabled_ = true;
  ++captures_;
}

void Equalizer::require_frame_size(int width, int height) const {
  require(width == background_.width() && height == background_.height(),
          "equalizer: frame size " + describe_size(width, height) + " differs from the captured background " +
              describe_size(background_.width(), background_.height()) + "; capture the background again");
}

void Equalizer::apply(HostView<std::uint8_t> frame) const { apply(HostView<const std::uint8_t>(frame), frame); }

void Equalizer::apply(HostView<const std::uint8_t> frame, HostView<std::uint8_t> out) const {
  if (!enabled_ || background_.empty()) {
    if (frame.data != out.data) copy(frame, out);
    return;
  }
  require_frame_size(frame.width, frame.height);
  require(frame.channels == 1, "equalizer: the frame must be grey (one channel)");
  require(out.width == frame.width && out.height == frame.height && out.channels == 1, "equalizer: output size differs from the frame's");
  for (int y = 0; y < frame.height; ++y) {
    const std::uint8_t* f = frame.row(y);
    const std::uint8_t* b = background_.row(y);
    std::uint8_t* o = out.row(y);
    for (int x = 0; x < frame.width; ++x) o[x] = gpuvis_equalize_rule(f[x], b[x], level_);
  }
}

}  // namespace gpuvis::threshold

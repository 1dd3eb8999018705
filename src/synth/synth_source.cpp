// The scene generator as a live frame source: demos, latency measurements and tests without a
// camera. Frames form one moving sequence; an endless source runs it forth and back, so symbols
// turn round instead of leaving the table or jumping.
#include <memory>

#include "gpuvis/synth/synth_source.hpp"

namespace gpuvis::synth {
namespace {

class SynthSource final : public source::FrameSource {
 public:
  SynthSource(const std::string& symbols_dir, SceneParams params, int count)
      : gen_(symbols_dir), params_(std::move(params)), count_(count) {
    gen_.make(params_);  // fail here, with the generator's message, if the prints are missing
  }
  bool next(Image<std::uint8_t>& frame) override {
    if (count_ > 0 && t_ >= count_) return false;
    constexpr int kHalfPeriod = 200;  // frames before an endless sequence turns round
    const int phase = t_ % (2 * kHalfPeriod);
    params_.frame = count_ > 0 ? t_ : (phase < kHalfPeriod ? phase : 2 * kHalfPeriod - phase);
    ++t_;
    frame = gen_.make(params_).image;
    return true;
  }
  std::string describe() const override { return "generated scenes"; }

 private:
  Generator gen_;
  SceneParams params_;
  int count_, t_ = 0;
};

}  // namespace

std::unique_ptr<source::FrameSource> make_synth_source(const std::string& symbols_dir, const SceneParams& params, int count) {
  require(count >= 0, "the generated sequence needs a frame count >= 0 (0 = endless)");
  return std::make_unique<SynthSource>(symbols_dir, params, count);
}

}  // namespace gpuvis::synth

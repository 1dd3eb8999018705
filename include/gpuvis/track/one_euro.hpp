#pragma once
// The 1€ filter (Casiez, Roussel, Vogel 2012): a low-pass filter whose cutoff rises with the
// signal's speed, so resting items stop jittering while moving items lag little. reacTIVision's
// version keeps the sampling rate until the frame interval changes and starts the derivative at
// the raw value (spec §6.9, Q24); this one uses every call's interval and starts the derivative at 0.
#include <cmath>
#include <numbers>

namespace gpuvis::track {

class OneEuroFilter {
 public:
  OneEuroFilter() = default;
  OneEuroFilter(float min_cutoff, float beta, float d_cutoff) : min_cutoff_(min_cutoff), beta_(beta), d_cutoff_(d_cutoff) {}

  // Filters `value` observed `dt` seconds after the previous call (the first call passes through).
  float filter(float value, float dt) {
    if (!started_) {
      reset(value);
      return x_;
    }
    if (dt <= 0) return x_;
    const float dx = (value - x_raw_) / dt;
    dx_ = dx_ + alpha(d_cutoff_, dt) * (dx - dx_);
    const float cutoff = min_cutoff_ + beta_ * std::abs(dx_);
    x_ = x_ + alpha(cutoff, dt) * (value - x_);
    x_raw_ = value;
    return x_;
  }
  void reset(float value) {
    x_ = x_raw_ = value;
    dx_ = 0;
    started_ = true;
  }
  bool started() const { return started_; }

 private:
  static float alpha(float cutoff, float dt) {
    const float tau = 1.0f / (2.0f * std::numbers::pi_v<float> * cutoff);
    return 1.0f / (1.0f + tau / dt);
  }
  float min_cutoff_ = 1.0f, beta_ = 0.25f, d_cutoff_ = 10.0f;
  float x_ = 0, x_raw_ = 0, dx_ = 0;
  bool started_ = false;
};

}  // namespace gpuvis::track

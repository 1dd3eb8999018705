// The public Detector: checks each frame once, then hands it to its backend's engine.
#include "gpuvis/pipeline/detector.hpp"

#include <string>

#include "gpuvis/cuda/runtime.hpp"
#include "pipeline/engine.hpp"
#include "pipeline/second_look/second_look.hpp"

namespace gpuvis::pipeline {

threshold::Params DetectorConfig::default_threshold() {
  threshold::Params p;
  p.method = threshold::Method::bernsen;
  p.bernsen.half_window = 16;
  p.bernsen.gate = 32;
  return p;
}

Detector::Detector(DetectorConfig config) : config_(std::move(config)) {
  threshold::validate(config_.threshold);
  config_.backend = resolve_backend(config_.backend);
  require(config_.max_fid >= 0, "detector: max_fid must be >= 0 (0 = no limit)");
  decode::TreeSet set = decode::TreeSet::load(config_.trees);
  set.max_id = config_.max_fid;
  set.yamaarashi = config_.yamaarashi;
  set.mirror = config_.mirror;
  engine_ = config_.backend == Backend::cuda ? make_cuda_engine(config_, set) : make_cpu_engine(config_, set);
  if (config_.second_look.enabled) second_look_ = std::make_unique<second_look::SecondLooker>(config_, set);
}

Detector::~Detector() = default;
Detector::Detector(Detector&&) noexcept = default;
Detector& Detector::operator=(Detector&&) noexcept = default;

bool Detector::overlaps() const { return engine_->overlaps(); }

void Detector::submit(HostView<const std::uint8_t> grey) {
  require(in_flight_ < kMaxInFlight,
          "detect: " + std::to_string(kMaxInFlight) + " frames in flight already: receive() before submitting more");
  require(grey.channels == 1, "detect: frames must be 8-bit grey");
  check_image_shape(grey.width, grey.height, 1);
  engine_->submit(grey, config_.device_times);
  ++in_flight_;
}

const Detections& Detector::receive() {
  require(in_flight_ > 0, "detect: no frame in flight: submit() first");
  engine_->receive(result_);
  --in_flight_;
  if (config_.calibration && (!calibration_ || calibration_->width() != result_.width || calibration_->height() != result_.height))
    calibration_.emplace(*config_.calibration, result_.width, result_.height);
  if (second_look_) {
    // A tracker expects its symbols in table pixels when a grid moves the results there; the second
    // look works in the camera's.
    if (calibration_ && !expected_.empty()) {
      for (auto& e : expected_) {
        const auto p = calibration_->distort(e.x, e.y);
        e.x = p[0];
        e.y = p[1];
      }
    }
    second_look_->run(engine_->received_frame(), expected_, result_);
    expected_.clear();  // they were for this frame
  }
  if (calibration_) calibration_->apply(result_);
  return result_;
}

}  // namespace gpuvis::pipeline

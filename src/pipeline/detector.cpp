// The public Detector: checks each frame once, then hands it to its backend's engine.
#include "gpuvis/pipeline/detector.hpp"

#include <string>

#include "gpuvis/cuda/device_memory.hpp"
#include "gpuvis/cuda/runtime.hpp"
#include "pipeline/engine.hpp"
#include "pipeline/second_look/second_look.hpp"
#include "cuda/built.hpp"

namespace gpuvis::pipeline {

threshold::Params DetectorParams::default_threshold() {
  threshold::Params p;
  p.method = threshold::Method::bernsen;
  p.bernsen.half_window = 16;
  p.bernsen.gate = 32;
  return p;
}

Detector::Detector(DetectorParams config) : config_(std::move(config)) {
  threshold::validate(config_.threshold);
  config_.backend = resolve_backend(config_.backend);
  refuse_opencl(config_.backend, "the tracker's detection");
  require(config_.max_fid >= 0, "detector: max_fid must be >= 0 (0 = no limit)");
  decode::TreeSet set = decode::TreeSet::load(config_.trees);
  set.max_id = config_.max_fid;
  set.yamaarashi = config_.yamaarashi;
  set.mirror = config_.mirror;
  if (config_.backend != Backend::cuda) engine_ = make_cpu_engine(config_, set);
  else if constexpr (cuda::kBuilt) engine_ = make_cuda_engine(config_, set);
  else cuda::not_built("CUDA detection");
  if (config_.second_look.enabled) second_look_ = std::make_unique<second_look::SecondLooker>(config_, set);
}

Detector::~Detector() = default;
Detector::Detector(Detector&&) noexcept = default;
Detector& Detector::operator=(Detector&&) noexcept = default;

bool Detector::overlaps() const { return engine_->overlaps(); }

void Detector::set_equalize(bool on) {
  config_.equalize = on;
  if (!on) background_.reset();
}

void Detector::recapture_background() {
  config_.background.reset();
  background_.reset();
}

std::shared_ptr<const Image<std::uint8_t>> Detector::background() const {
  if (!background_) return config_.background;
  return std::make_shared<const Image<std::uint8_t>>(background_->background().clone());
}

void Detector::set_taps(StageTaps taps) { config_.taps = taps; }

HostView<const std::uint8_t> Detector::received_frame() const { return engine_->received_frame(); }

// The equaliser's background for the frame being submitted: captured from the configured picture,
// or from this frame, when there is none yet.
std::shared_ptr<const threshold::Equalizer> Detector::background_for(HostView<const std::uint8_t> grey) {
  if (!config_.equalize) return nullptr;
  if (!background_) capture_background(config_.background ? config_.background->view() : grey);
  return checked_background(grey.width, grey.height);
}

// The same for a device frame: a first frame that becomes the background is downloaded for it.
std::shared_ptr<const threshold::Equalizer> Detector::background_for(DeviceView<const std::uint8_t> grey) {
  if (!config_.equalize) return nullptr;
  if (!background_ && config_.background) capture_background(config_.background->view());
  if (!background_) {
    Image<std::uint8_t> first(grey.width, grey.height);
    for (int y = 0; y < grey.height; ++y) cuda::copy_to_host(first.row(y), grey.row(y), static_cast<std::size_t>(grey.width));
    capture_background(first.view());
  }
  return checked_background(grey.width, grey.height);
}

void Detector::capture_background(HostView<const std::uint8_t> picture) {
  auto equalizer = std::make_shared<threshold::Equalizer>();
  equalizer->capture(picture);
  background_ = std::move(equalizer);
}

std::shared_ptr<const threshold::Equalizer> Detector::checked_background(int width, int height) const {
  const Image<std::uint8_t>& b = background_->background();
  require(b.width() == width && b.height() == height,
          "equalizer: frame size " + describe_size(width, height) + " differs from the background's " +
              describe_size(b.width(), b.height()) + "; capture the background again");
  return background_;
}

void Detector::check_submission(int channels, int width, int height) const {
  require(in_flight_ < kMaxInFlight,
          "detect: " + std::to_string(kMaxInFlight) + " frames in flight already: receive() before submitting more");
  require(channels == 1, "detect: frames must be 8-bit grey");
  check_image_shape(width, height, 1);
}

void Detector::hand_over(Submission s, std::shared_ptr<const threshold::Equalizer> background) {
  s.background = std::move(background);
  s.device_times = config_.device_times;
  s.taps = config_.taps;
  engine_->submit(s);
  ++in_flight_;
}

void Detector::submit(HostView<const std::uint8_t> grey) {
  check_submission(grey.channels, grey.width, grey.height);
  Submission s;
  s.grey = grey;
  hand_over(s, background_for(grey));
}

void Detector::submit(DeviceView<const std::uint8_t> grey, cuda::StreamHandle stream) {
  if (config_.backend != Backend::cuda)
    fail(ErrorCode::unsupported, "detect: a frame in device memory needs the CUDA backend (this detector runs on the " +
                                     std::string(to_string(config_.backend)) + "; copy the frame to the host for it)");
  check_submission(grey.channels, grey.width, grey.height);
  if (!cuda::is_device_pointer(grey.data)) fail(ErrorCode::invalid_argument, "detect: the frame is not device memory of the current CUDA device");
  Submission s;
  s.device_grey = grey;
  s.device_stream = stream;
  hand_over(s, background_for(grey));
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
        const auto p = calibration_->distort(e.x, e.y), before = calibration_->distort(e.x - e.vx, e.y - e.vy);
        e.x = p[0];
        e.y = p[1];
        e.vx = p[0] - before[0];
        e.vy = p[1] - before[1];
      }
    }
    second_look_->run([this] { return engine_->received_frame(); }, expected_, result_);
    expected_.clear();  // they were for this frame
  }
  if (calibration_) calibration_->apply(result_);
  return result_;
}

}  // namespace gpuvis::pipeline

// The CPU front end, and the factory that picks a front end by backend.
#include "gpuvis/pipeline/front_end.hpp"

#include <chrono>

namespace gpuvis::pipeline {
namespace {

double since_us(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
}

class CpuFrontEnd final : public FrontEnd {
 public:
  explicit CpuFrontEnd(const threshold::Params& p) : thresholder_(threshold::make_thresholder(p, Backend::cpu)) {}
  Backend backend() const override { return Backend::cpu; }

  void run(HostView<const std::uint8_t> grey, int cap, segment::SegmentOptions options, segment::RegionTree& tree,
           StageTimes& times) override {
    if (binary_.width() != grey.width || binary_.height() != grey.height) binary_ = Image<std::uint8_t>(grey.width, grey.height);
    auto t0 = std::chrono::steady_clock::now();
    thresholder_->apply(grey, binary_.view());
    times.threshold_us = since_us(t0);
    t0 = std::chrono::steady_clock::now();
    segment::segment_cpu(binary_.view(), cap, tree, options);
    times.segment_us = since_us(t0);
  }

 private:
  std::unique_ptr<threshold::Thresholder> thresholder_;
  Image<std::uint8_t> binary_;
};

}  // namespace

void check_grey_frame(HostView<const std::uint8_t> grey) {
  require(grey.channels == 1, "detect: frames must be 8-bit grey");
  check_image_shape(grey.width, grey.height, 1);
}

std::unique_ptr<FrontEnd> make_front_end(const threshold::Params& params, Backend backend) {
  threshold::validate(params);
  switch (backend) {
    case Backend::cpu: return std::make_unique<CpuFrontEnd>(params);
    case Backend::cuda: return make_cuda_front_end(params);
    default: fail(ErrorCode::invalid_argument, "make_front_end: resolve the backend (cpu or cuda) first");
  }
}

}  // namespace gpuvis::pipeline

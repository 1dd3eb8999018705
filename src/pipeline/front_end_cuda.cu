// The CUDA front end: host frame -> pinned staging -> device -> threshold -> segmentation -> the
// region tree in host memory. The binary frame never leaves the device.
#include <cstring>

#include "gpuvis/cuda/memory.hpp"
#include "gpuvis/pipeline/front_end.hpp"
#include "gpuvis/segment/segment_cuda.hpp"
#include "gpuvis/threshold/threshold_cuda.hpp"

namespace gpuvis::pipeline {
namespace {

class CudaFrontEnd final : public FrontEnd {
 public:
  explicit CudaFrontEnd(const threshold::Params& p) : params_(p) {}
  Backend backend() const override { return Backend::cuda; }

  void run(HostView<const std::uint8_t> grey, int cap, segment::RegionTree& tree, StageTimes& times) override {
    require(grey.channels == 1, "detect: frames must be 8-bit grey");
    check_image_shape(grey.width, grey.height, 1);
    staging_.ensure(grey.width, grey.height);
    grey_.ensure(grey.width, grey.height);
    binary_.ensure(grey.width, grey.height);
    copy<std::uint8_t>(grey, staging_.view());
    start_.record(stream_);
    cuda::upload<std::uint8_t>(staging_.view(), grey_.view(), stream_);
    threshold::cuda_impl::threshold(grey_.view(), binary_.view(), params_, workspace_, stream_);
    thresholded_.record(stream_);
    segmenter_.segment(binary_.view(), cap, stream_);
    segmenter_.download(tree, stream_);
    done_.record(stream_);
    times.threshold_us = 1000.0 * cuda::Event::elapsed_ms(start_, thresholded_);
    times.segment_us = 1000.0 * cuda::Event::elapsed_ms(thresholded_, done_);
  }

 private:
  threshold::Params params_;
  cuda::Stream stream_;
  cuda::Event start_, thresholded_, done_;
  cuda::PinnedImage<std::uint8_t> staging_;
  cuda::DeviceImage<std::uint8_t> grey_, binary_;
  threshold::cuda_impl::Workspace workspace_;
  segment::cuda_impl::Segmenter segmenter_;
};

}  // namespace

std::unique_ptr<FrontEnd> make_cuda_front_end(const threshold::Params& params) {
  return std::make_unique<CudaFrontEnd>(params);
}

}  // namespace gpuvis::pipeline

// The CUDA front end: host frame -> pinned staging -> device -> threshold -> segmentation -> the
// region tree in host memory. The binary frame never leaves the device.
#include "front_end_cuda.hpp"

namespace gpuvis::pipeline {

const segment::cuda_impl::DeviceTree& CudaFrontEnd::segment_on_device(HostView<const std::uint8_t> grey, int cap) {
  require(grey.channels == 1, "detect: frames must be 8-bit grey");
  check_image_shape(grey.width, grey.height, 1);
  grey_.ensure(grey.width, grey.height);
  binary_.ensure(grey.width, grey.height);
  // A frame that already lies in pinned memory (a camera ring buffer, cuda::PinnedImage) goes up
  // as it is; any other frame is first copied into the pinned staging image, so that the upload
  // is one asynchronous DMA.
  HostView<const std::uint8_t> source = grey;
  if (!cuda::is_pinned(grey.data)) {
    staging_.ensure(grey.width, grey.height);
    copy<std::uint8_t>(grey, staging_.view());
    source = staging_.view();
  }
  start_.record(stream_);
  cuda::upload<std::uint8_t>(source, grey_.view(), stream_);
  threshold::cuda_impl::threshold(grey_.view(), binary_.view(), params_, workspace_, stream_);
  thresholded_.record(stream_);
  const auto& tree = segmenter_.segment(binary_.view(), cap, stream_);
  segmented_.record(stream_);
  return tree;
}

void CudaFrontEnd::run(HostView<const std::uint8_t> grey, int cap, segment::RegionTree& tree, StageTimes& times) {
  segment_on_device(grey, cap);
  segmenter_.download(tree, stream_);
  done_.record(stream_);
  times.threshold_us = threshold_us();
  times.segment_us = 1000.0 * cuda::Event::elapsed_ms(thresholded_, done_);
}

std::unique_ptr<FrontEnd> make_cuda_front_end(const threshold::Params& params) {
  return std::make_unique<CudaFrontEnd>(params);
}

}  // namespace gpuvis::pipeline

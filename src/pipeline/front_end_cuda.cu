// The CUDA front end: host frame -> pinned staging (unless the frame is pinned already) -> device
// -> threshold -> segmentation -> the region tree in host memory.
#include "front_end_cuda.hpp"

namespace gpuvis::pipeline {

void CudaFrontEnd::upload(HostView<const std::uint8_t> grey) {
  require(grey.channels == 1, "detect: frames must be 8-bit grey");
  check_image_shape(grey.width, grey.height, 1);
  grey_.ensure(grey.width, grey.height);
  binary_.ensure(grey.width, grey.height);
  HostView<const std::uint8_t> source = grey;
  if (!cuda::is_pinned(grey.data)) {
    staging_.ensure(grey.width, grey.height);
    copy<std::uint8_t>(grey, staging_.view());
    source = staging_.view();
  }
  start_.record(stream_);
  cuda::upload<std::uint8_t>(source, grey_.view(), stream_);
}

const segment::cuda_impl::DeviceTree& CudaFrontEnd::enqueue_device_stages(int cap) {
  threshold::cuda_impl::threshold(grey_.view(), binary_.view(), params_, workspace_, stream_);
  thresholded_.record(stream_);
  const auto& tree = segmenter_.segment_async(binary_.view(), cap, stream_);
  segmented_.record(stream_);
  return tree;
}

void CudaFrontEnd::run(HostView<const std::uint8_t> grey, int cap, segment::SegmentOptions /*options*/,
                       segment::RegionTree& tree, StageTimes& times) {  // the download always includes the runs
  upload(grey);
  threshold::cuda_impl::threshold(grey_.view(), binary_.view(), params_, workspace_, stream_);
  thresholded_.record(stream_);
  segmenter_.segment(binary_.view(), cap, stream_);  // waits for the counts
  segmenter_.download(tree, stream_);
  done_.record(stream_);
  times.threshold_us = threshold_us();
  times.segment_us = 1000.0 * cuda::Event::elapsed_ms(thresholded_, done_);
}

std::unique_ptr<FrontEnd> make_cuda_front_end(const threshold::Params& params) {
  return std::make_unique<CudaFrontEnd>(params);
}

}  // namespace gpuvis::pipeline

// The CUDA front end: host frame -> pinned staging (unless the frame is pinned already) -> device
// -> threshold -> segmentation (all on the slot's stream) -> the region tree in host memory.
#include "front_end_cuda.hpp"

namespace gpuvis::pipeline {

void CudaFrontEnd::upload(HostView<const std::uint8_t> grey, int slot) {
  check_grey_frame(grey);
  Slot& s = slots_[slot];
  // The slot's staging image is overwritten below: its last upload must have read it (a host
  // wait). The device frame needs no wait: the upload follows the slot's last frame on its stream.
  GPUVIS_CUDA_CHECK(cudaEventSynchronize(s.uploaded.get()));
  if (s.grey.width() != grey.width || s.grey.height() != grey.height) {
    s.stream.synchronize();  // reallocating: nothing may still read them
    s.grey.ensure(grey.width, grey.height);
    s.binary.ensure(grey.width, grey.height);
  }
  HostView<const std::uint8_t> source = grey;
  if (!cuda::is_pinned(grey.data)) {
    s.staging.ensure(grey.width, grey.height);
    copy<std::uint8_t>(grey, s.staging.view());
    source = s.staging.view();
  }
  s.start.record(s.stream);
  cuda::upload<std::uint8_t>(source, s.grey.view(), s.stream);
  s.uploaded.record(s.stream);
}

void CudaFrontEnd::synchronize() const {
  for (const Slot& s : slots_) s.stream.synchronize();
}

const segment::cuda_impl::DeviceTree& CudaFrontEnd::enqueue_device_stages(int cap, int slot) {
  Slot& s = slots_[slot];
  threshold::cuda_impl::threshold(s.grey.view(), s.binary.view(), params_, s.workspace, s.stream);
  s.thresholded.record(s.stream);
  const auto& tree = s.segmenter.segment_async(s.binary.view(), cap, s.stream, segment::cuda_impl::TreeFields::for_decoder);
  s.segmented.record(s.stream);
  return tree;
}

void CudaFrontEnd::run(HostView<const std::uint8_t> grey, int cap, segment::SegmentOptions /*options*/,
                       segment::RegionTree& tree, StageTimes& times) {  // the download always includes the runs
  upload(grey, 0);
  Slot& s = slots_[0];
  threshold::cuda_impl::threshold(s.grey.view(), s.binary.view(), params_, s.workspace, s.stream);
  s.thresholded.record(s.stream);
  s.segmenter.segment(s.binary.view(), cap, s.stream);  // waits for the counts
  s.segmenter.download(tree, s.stream);
  done_.record(s.stream);
  times.threshold_us = threshold_us(0);
  times.segment_us = 1000.0 * cuda::Event::elapsed_ms(s.thresholded, done_);
}

std::unique_ptr<FrontEnd> make_cuda_front_end(const threshold::Params& params) {
  return std::make_unique<CudaFrontEnd>(params);
}

}  // namespace gpuvis::pipeline

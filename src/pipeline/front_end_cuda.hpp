#pragma once
// The CUDA front end (internal): host frame -> device -> threshold -> segmentation. The binary
// frame never leaves the device; run() downloads the region tree, and the CUDA detector
// (detector_cuda.cu) decodes the device tree instead.
#include "gpuvis/cuda/memory.hpp"
#include "gpuvis/pipeline/front_end.hpp"
#include "gpuvis/segment/segment_cuda.hpp"
#include "gpuvis/threshold/threshold_cuda.hpp"

namespace gpuvis::pipeline {

class CudaFrontEnd final : public FrontEnd {
 public:
  explicit CudaFrontEnd(const threshold::Params& p) : params_(p) {}
  Backend backend() const override { return Backend::cuda; }
  void run(HostView<const std::uint8_t> grey, int cap, segment::SegmentOptions options, segment::RegionTree& tree,
           StageTimes& times) override;

  // Enqueues the frame's upload. A frame that already lies in pinned memory (a camera ring buffer,
  // cuda::PinnedImage) goes up as it is; any other is first copied into a pinned staging image,
  // so that the upload is one asynchronous DMA.
  void upload(HostView<const std::uint8_t> grey);
  // Enqueues threshold and segmentation of the uploaded frame without waiting (the segmenter's
  // segment_async): nothing here allocates once a frame of this size and region count has run, so
  // it can be captured into a CUDA graph.
  const segment::cuda_impl::DeviceTree& enqueue_device_stages(int cap);
  // Segmenter::accept for the last frame's counts.
  bool accept(unsigned long long totals) { return segmenter_.accept(totals); }
  // Downloads the last (accepted) frame's tree (waits for it).
  void download(segment::RegionTree& tree) { segmenter_.download(tree, stream_); }
  cudaStream_t stream() const { return stream_; }
  // The uploaded frame on the device (the fingers' contrast is measured in it).
  DeviceView<const std::uint8_t> grey() const { return grey_.view(); }
  // GPU times of the last eagerly launched frame: upload + threshold, and segmentation.
  double threshold_us() const { return 1000.0 * cuda::Event::elapsed_ms(start_, thresholded_); }
  double segment_us() const { return 1000.0 * cuda::Event::elapsed_ms(thresholded_, segmented_); }
  const cuda::Event& start() const { return start_; }
  const cuda::Event& segmented() const { return segmented_; }

 private:
  threshold::Params params_;
  cuda::Stream stream_;
  cuda::Event start_, thresholded_, segmented_, done_;
  cuda::PinnedImage<std::uint8_t> staging_;
  cuda::DeviceImage<std::uint8_t> grey_, binary_;
  threshold::cuda_impl::Workspace workspace_;
  segment::cuda_impl::Segmenter segmenter_;
};

}  // namespace gpuvis::pipeline

#pragma once
// The CUDA engine's first stages: host frame -> device -> threshold -> segmentation. The binary
// frame and the region tree stay on the device, where the engine (engine.cu) decodes the tree.
//
// Each of kSlots slots is a frame in flight with everything it writes: its device frame, binary
// frame, threshold workspace, segmenter and stream, so that the frames of different slots go up
// and compute at the same time (the GPU is mostly idle during one small frame's chains of
// dependent loads). A frame's upload is the first thing on its slot's stream, so it needs no
// event between streams, and it follows the slot's previous frame in stream order.
#include <memory>

#include "cuda/memory.hpp"
#include "gpuvis/threshold/threshold.hpp"
#include "segment/cuda/segment_cuda.hpp"
#include "threshold/cuda/threshold_cuda.hpp"

namespace gpuvis::pipeline {

class CudaFrontEnd {
 public:
  static constexpr int kSlots = 2;
  explicit CudaFrontEnd(const threshold::Params& p);

  // Enqueues the frame's upload into `slot` on the slot's stream. A frame that already lies in
  // pinned memory (a camera ring buffer, cuda::PinnedImage) goes up as it is; any other is first
  // copied into the slot's pinned staging image, so that the upload is one asynchronous DMA. The
  // frame's memory may be reused when this returns only in that second case: a pinned frame must
  // stay as it is until its results are received.
  // `timed`: record the slot's start event before the upload (for threshold_us and the frame's
  // device time); an event costs host time before the copy starts.
  // `background`: the equaliser's, applied on the device after the upload (null: none); the slot
  // uploads a background once and keeps it while the same one comes.
  void upload(HostView<const std::uint8_t> grey, int slot, bool timed = true,
              const std::shared_ptr<const threshold::Equalizer>& background = nullptr);
  // The same for a frame already in device memory: copied on the device into the slot's frame
  // (graphs hold the slot's addresses) once the work queued on `caller` so far is done, and
  // `caller` waits for the copy, so that what the caller queues there next may overwrite the frame.
  // Its host copy is made only when host_frame asks for it.
  void upload_from_device(DeviceView<const std::uint8_t> grey, cudaStream_t caller, int slot, bool timed,
                          const std::shared_ptr<const threshold::Equalizer>& background);
  // Whether the segmentation's labelling thresholds the frame itself (segment::cuda_impl::BernsenInput):
  // full Bernsen with a small window on a frame of at most 1920x1080, where two launches less on
  // the frame's path outweigh the tile threshold's O(h) work per pixel (front_end.cu).
  bool thresholds_in_labels(int width, int height) const;
  // Enqueues threshold and segmentation of the slot's frame on its stream without waiting
  // (the segmenter's segment_async): nothing here allocates once a frame of this size and region
  // count has run, so it can be captured into a CUDA graph.
  // `fields`: all of them for a frame whose tree is downloaded (download_tree).
  const segment::cuda_impl::DeviceTree& enqueue_device_stages(
      int cap, int slot, segment::cuda_impl::TreeFields fields = segment::cuda_impl::TreeFields::for_decoder);
  // The slot's last tree (segmented with every field) and binary frame copied to the host, once
  // its counts were accepted; each waits for the slot's stream.
  void download_tree(int slot, segment::RegionTree& out) const { slots_[slot].segmenter.download(out, stream(slot)); }
  void download_binary(int slot, Image<std::uint8_t>& out) const;
  // The slot's last segmented tree (enqueue_device_stages' result).
  const segment::cuda_impl::DeviceTree& tree(int slot) const { return slots_[slot].segmenter.tree(); }
  // Segmenter::accept of the slot for its last frame's counts.
  bool accept(int slot, unsigned long long totals) { return slots_[slot].segmenter.accept(totals); }
  // Segmenter::finishes_in_one_block of the slot (its next frame's choice).
  bool one_block_next(int slot) const { return slots_[slot].segmenter.finishes_in_one_block(); }
  // The slot's stream (its upload and device work).
  cudaStream_t stream(int slot) const { return slots_[slot].stream.get(); }
  // Waits for every slot's work.
  void synchronize() const;
  // The slot's last frame on the host: its staging copy, or the caller's pinned frame; for a frame
  // that came from device memory, the slot's device frame (equalised, when it was) downloaded on
  // the first ask, once the slot's work is done.
  HostView<const std::uint8_t> host_frame(int slot);
  // The slot's frame on the device (the fingers' contrast is measured in it).
  DeviceView<const std::uint8_t> grey(int slot) const { return slots_[slot].grey.view(); }
  // The slot's binary frame on the device (yamaarashi rings are read in it).
  DeviceView<const std::uint8_t> binary(int slot) const { return slots_[slot].binary.view(); }
  // GPU times of the slot's last eagerly launched frame: upload + threshold, and segmentation.
  double threshold_us(int slot) const { return 1000.0 * cuda::Event::elapsed_ms(slots_[slot].start, slots_[slot].thresholded); }
  double segment_us(int slot) const { return 1000.0 * cuda::Event::elapsed_ms(slots_[slot].thresholded, slots_[slot].segmented); }
  const cuda::Event& start(int slot) const { return slots_[slot].start; }
  const cuda::Event& segmented(int slot) const { return slots_[slot].segmented; }

 private:
  struct Slot {
    cuda::Stream stream;
    cuda::PinnedImage<std::uint8_t> staging;
    HostView<const std::uint8_t> host;  // the frame uploaded last (staging, or the caller's pinned frame)
    bool host_pending = false;          // the frame came from device memory: `host` is not made yet
    cuda::DeviceImage<std::uint8_t> grey, binary;
    cuda::DeviceImage<std::uint8_t> background;  // the equaliser's, uploaded from `background_of`
    std::shared_ptr<const threshold::Equalizer> background_of;
    cuda::DeviceImage<std::uint8_t> sharpened;  // grey after Params::sharpen, when the labelling thresholds
    threshold::cuda_impl::Workspace workspace;
    segment::cuda_impl::Segmenter segmenter;
    cuda::Event start, uploaded, thresholded, segmented;
    cuda::Event caller_ready;  // a device frame's producer's work, which the copy waits for
  };
  // Thresholds the slot's frame and segments it with segment(frame), `frame` being the binary
  // frame, or the grey frame with its Bernsen parameters when the labelling thresholds it
  // (thresholds_in_labels). Records the slot's `thresholded` event in between.
  template <class Segment>
  const segment::cuda_impl::DeviceTree& threshold_and_segment(Slot& s, Segment&& segment);
  // The slot's device frames sized for a frame of width x height.
  void fit(Slot& s, int width, int height);
  // The equaliser's background applied to the slot's uploaded frame (null: none).
  void equalise(Slot& s, const std::shared_ptr<const threshold::Equalizer>& background);
  threshold::Params params_;
  long long threshold_in_labels_max_pixels_;
  Slot slots_[kSlots];
};

}  // namespace gpuvis::pipeline

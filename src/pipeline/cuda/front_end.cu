// The CUDA engine's first stages: host frame -> pinned staging (unless the frame is pinned already)
// -> device -> threshold -> segmentation, all on the slot's stream.
#include "pipeline/cuda/front_end.hpp"

#include <cstdlib>

namespace gpuvis::pipeline {
namespace {

// The largest frame whose labelling thresholds it (thresholds_in_labels). Measured on an H100
// (run of 2026-11-24 (3caa352), h = 12, results only, one frame at a time): 640x480 102.0-103.7 us end to
// end against 109.8-110.2 with the threshold stage's two passes; 1920x1080 188.8 against 190.2.
// GPUVIS_THRESHOLD_IN_LABELS overrides it in pixels (0: never), to measure both paths on one build.
constexpr long long kThresholdInLabelsMaxPixels = 1920LL * 1080;

long long threshold_in_labels_max_pixels() {
  const char* v = std::getenv("GPUVIS_THRESHOLD_IN_LABELS");
  return v && *v ? std::atoll(v) : kThresholdInLabelsMaxPixels;
}

}  // namespace

CudaFrontEnd::CudaFrontEnd(const threshold::Params& p) : params_(p), threshold_in_labels_max_pixels_(threshold_in_labels_max_pixels()) {}

void CudaFrontEnd::fit(Slot& s, int width, int height) {
  if (s.grey.width() == width && s.grey.height() == height) return;
  s.stream.synchronize();  // reallocating: nothing may still read them
  s.grey.ensure(width, height);
  s.binary.ensure(width, height);
}

void CudaFrontEnd::equalise(Slot& s, const std::shared_ptr<const threshold::Equalizer>& background) {
  if (!background) return;
  if (s.background_of != background) {  // a new background (rare): the stream's order protects the old one's readers
    s.background.ensure(s.grey.width(), s.grey.height());
    cuda::upload<std::uint8_t>(background->background().view(), s.background.view(), s.stream);
    s.background_of = background;
  }
  threshold::cuda_impl::equalize(s.grey.view(), s.background.view(), background->background_level(), s.stream);
}

void CudaFrontEnd::upload(HostView<const std::uint8_t> grey, int slot, bool timed,
                          const std::shared_ptr<const threshold::Equalizer>& background) {
  Slot& s = slots_[slot];
  fit(s, grey.width, grey.height);
  HostView<const std::uint8_t> source = grey;
  if (!cuda::is_pinned(grey.data)) {
    // The slot's staging image is overwritten here: its last upload must have read it (a host
    // wait). The device frame needs no wait: the upload follows the slot's last frame on its
    // stream.
    GPUVIS_CUDA_CHECK(cudaEventSynchronize(s.uploaded.get()));
    s.staging.ensure(grey.width, grey.height);
    copy<std::uint8_t>(grey, s.staging.view());
    source = s.staging.view();
  }
  s.host = source;
  s.host_pending = false;
  if (timed) s.start.record(s.stream);
  cuda::upload<std::uint8_t>(source, s.grey.view(), s.stream);
  s.uploaded.record(s.stream);
  equalise(s, background);
}

void CudaFrontEnd::upload_from_device(DeviceView<const std::uint8_t> grey, cudaStream_t caller, int slot, bool timed,
                                      const std::shared_ptr<const threshold::Equalizer>& background) {
  Slot& s = slots_[slot];
  fit(s, grey.width, grey.height);
  // The slot's streams are non-blocking: even the legacy default stream's work must be waited for.
  s.caller_ready.record(caller);
  GPUVIS_CUDA_CHECK(cudaStreamWaitEvent(s.stream, s.caller_ready.get(), 0));
  if (timed) s.start.record(s.stream);
  const DeviceView<std::uint8_t> d = s.grey.view();
  GPUVIS_CUDA_CHECK(cudaMemcpy2DAsync(d.data, static_cast<std::size_t>(d.stride), grey.data, static_cast<std::size_t>(grey.stride),
                                      static_cast<std::size_t>(grey.width), static_cast<std::size_t>(grey.height),
                                      cudaMemcpyDeviceToDevice, s.stream));
  s.uploaded.record(s.stream);
  GPUVIS_CUDA_CHECK(cudaStreamWaitEvent(caller, s.uploaded.get(), 0));
  s.host = {};
  s.host_pending = true;
  equalise(s, background);
}

HostView<const std::uint8_t> CudaFrontEnd::host_frame(int slot) {
  Slot& s = slots_[slot];
  if (s.host_pending) {
    // The slot's last upload has read the staging image long ago (this frame came another way).
    GPUVIS_CUDA_CHECK(cudaEventSynchronize(s.uploaded.get()));
    s.staging.ensure(s.grey.width(), s.grey.height());
    cuda::download<std::uint8_t>(s.grey.view(), s.staging.view(), s.stream);
    s.stream.synchronize();
    s.host = s.staging.view();
    s.host_pending = false;
  }
  return s.host;
}

void CudaFrontEnd::download_binary(int slot, Image<std::uint8_t>& out) const {
  const Slot& s = slots_[slot];
  if (out.width() != s.binary.width() || out.height() != s.binary.height()) out = Image<std::uint8_t>(s.binary.width(), s.binary.height());
  cuda::download<std::uint8_t>(s.binary.view(), out.view(), s.stream);
  s.stream.synchronize();
}

void CudaFrontEnd::synchronize() const {
  for (const Slot& s : slots_) s.stream.synchronize();
}

bool CudaFrontEnd::thresholds_in_labels(int width, int height) const {
  return params_.method == threshold::Method::bernsen &&
         params_.bernsen.half_window <= segment::cuda_impl::kThresholdInLabelsMaxRadius &&
         static_cast<long long>(width) * height <= threshold_in_labels_max_pixels_;
}

template <class Segment>
const segment::cuda_impl::DeviceTree& CudaFrontEnd::threshold_and_segment(Slot& s, Segment&& segment) {
  if (thresholds_in_labels(s.grey.width(), s.grey.height())) {
    DeviceView<const std::uint8_t> input = s.grey.view();
    if (params_.sharpen > 0) {
      s.sharpened.ensure(s.grey.width(), s.grey.height());
      threshold::cuda_impl::sharpen(input, s.sharpened.view(), params_.sharpen, s.stream);
      input = s.sharpened.view();
    }
    s.thresholded.record(s.stream);  // no stage of its own: its time is the segmentation's
    return segment(segment::cuda_impl::BernsenInput{input, s.binary.view(), params_.bernsen.half_window, params_.bernsen.gate});
  }
  threshold::cuda_impl::threshold(s.grey.view(), s.binary.view(), params_, s.workspace, s.stream);
  s.thresholded.record(s.stream);
  return segment(DeviceView<const std::uint8_t>(s.binary.view()));
}

const segment::cuda_impl::DeviceTree& CudaFrontEnd::enqueue_device_stages(int cap, int slot, segment::cuda_impl::TreeFields fields) {
  Slot& s = slots_[slot];
  const auto& tree = threshold_and_segment(s, [&](const auto& frame) -> const segment::cuda_impl::DeviceTree& {
    return s.segmenter.segment_async(frame, cap, s.stream, fields);
  });
  s.segmented.record(s.stream);
  return tree;
}

}  // namespace gpuvis::pipeline

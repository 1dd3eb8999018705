// The CUDA detector: upload -> threshold -> segmentation -> decoding (fiducials, root candidates,
// fingers and blobs), with only the results back, and up to two frames in flight.
//
// Each frame takes one of two slots (a device frame, a results block, a graph). Its upload runs on
// the front end's copy stream, so it overlaps the previous frame's device work; its device work
// queues on the compute stream behind the previous frame's; receive() waits for the oldest frame
// alone. The root-candidate band passes from frame to frame on the device (decode_cuda.hpp), so
// a frame queued before the previous one's results are known still selects with that frame's band.
//
// The device work of a frame (everything after the upload) is captured once per slot into a CUDA
// graph and replayed: one launch instead of about thirty, which is most of a small frame's time.
// A graph holds buffer addresses and grid sizes, so it is captured again when the frame size or
// the segmenter's capacity changes. A frame that overflows the segmenter's capacity is run again
// eagerly with more room, and so is the frame queued behind it (which ran with the old room and
// the band of the void frame).
#include <cstdlib>
#include <cstring>
#include <string>

#include "front_end_cuda.hpp"
#include "gpuvis/cuda/check.hpp"
#include "gpuvis/cuda/graph.hpp"
#include "gpuvis/decode/decode_cuda.hpp"

namespace gpuvis::pipeline {
namespace {

// GPUVIS_CUDA_GRAPH=0 launches every frame eagerly (per-stage GPU times are measured then).
bool graphs_wanted() {
  const char* v = std::getenv("GPUVIS_CUDA_GRAPH");
  return !(v && std::strcmp(v, "0") == 0);
}

class CudaDetector final : public DeviceDetector {
 public:
  CudaDetector(const threshold::Params& params, const decode::TreeSet& set, const decode::FingerParams& fingers,
               const decode::BlobParams& blobs)
      : front_end_(params), decoder_(set, fingers, blobs, kSlots), cap_(set.cap()), use_graph_(graphs_wanted()) {}

  int in_flight() const override { return in_flight_; }

  void submit(HostView<const std::uint8_t> grey) override {
    require(in_flight_ < kMaxInFlight, "detect: " + std::to_string(kMaxInFlight) + " frames in flight already: receive() first");
    check_grey_frame(grey);
    // A frame of another size reallocates the device frames: the queued frame must finish first,
    // and every graph holds old addresses.
    if (grey.width != last_width_ || grey.height != last_height_) {
      GPUVIS_CUDA_CHECK(cudaStreamSynchronize(front_end_.stream()));
      graphs_stale();
      last_width_ = grey.width;
      last_height_ = grey.height;
    }
    const int slot = (oldest_ + in_flight_) % kSlots;
    front_end_.upload(grey, slot);
    frames_[slot] = {grey.width, grey.height, false};
    ++in_flight_;
    launch(slot);
  }

  void receive(DeviceDetections& out) override {
    require(in_flight_ > 0, "detect: no frame in flight: submit() first");
    const int slot = oldest_;
    decoder_.collect(out.fiducials, out.roots, out.stats, &out.blobs, slot);
    bool redone = false;
    while (!front_end_.accept(decoder_.segment_totals())) {
      // More regions or runs than the segmenter had room for: nothing was decoded and the room has
      // grown. Run the frame again with its own band (its device frame is still in its slot), and
      // then the frame queued behind it, which used the old room and this frame's void band.
      redone = true;
      GPUVIS_CUDA_CHECK(cudaStreamSynchronize(front_end_.stream()));  // buffers are about to grow
      graphs_stale();
      decoder_.restore_band(slot, front_end_.stream());
      launch(slot);
      if (in_flight_ > 1) launch(newest());
      decoder_.collect(out.fiducials, out.roots, out.stats, &out.blobs, slot);
    }
    out.regions = static_cast<int>(decoder_.segment_totals() >> 32);
    out.times = {};
    const cuda::Event& decoded = decoder_.launched_event(slot);
    out.times.device_us = 1000.0 * cuda::Event::elapsed_ms(front_end_.start(slot), decoded);
    if (frames_[slot].eager) {  // per-stage GPU times exist only for eagerly launched frames
      if (!redone) {
        out.times.threshold_us = front_end_.threshold_us(slot);
        out.times.segment_us = front_end_.segment_us(slot);
        out.times.decode_us = 1000.0 * cuda::Event::elapsed_ms(front_end_.segmented(slot), decoded);
      }
      // Every buffer now has its size for this frame size and capacity: later frames can replay.
      sized_ = {frames_[slot].width, frames_[slot].height, capacity_, run_capacity_, decoder_.generation()};
    }
    oldest_ = (oldest_ + 1) % kSlots;
    --in_flight_;
  }

 private:
  static constexpr int kSlots = CudaFrontEnd::kSlots;
  static_assert(kSlots >= kMaxInFlight);

  // What a graph's addresses and grid sizes depend on.
  struct Shape {
    int width = 0, height = 0, capacity = 0, run_capacity = 0, generation = -1;
    bool operator==(const Shape&) const = default;
  };
  struct Frame {
    int width = 0, height = 0;
    bool eager = false;  // launched stage by stage (its stage times were recorded)
  };

  int newest() const { return (oldest_ + in_flight_ - 1) % kSlots; }
  void graphs_stale() {
    for (int k = 0; k < kSlots; ++k) {
      graphs_[k].reset();
      graph_shape_[k] = {};
    }
    sized_ = {};
  }

  // Enqueues the device work of the frame uploaded into `slot`: its graph when every buffer is
  // sized for this frame (captured on first use), else stage by stage.
  void launch(int slot) {
    const cudaStream_t stream = front_end_.stream();
    Frame& f = frames_[slot];
    const bool sized = use_graph_ && sized_ == Shape{f.width, f.height, capacity_, run_capacity_, decoder_.generation()};
    if (sized && (graph_shape_[slot] == sized_ || capture(slot))) {
      graphs_[slot].launch(stream);
      f.eager = false;
    } else {
      const auto& tree = front_end_.enqueue_device_stages(cap_, slot);
      capacity_ = tree.capacity;
      run_capacity_ = tree.run_capacity;
      decoder_.reserve(capacity_, run_capacity_);
      decoder_.enqueue(tree, front_end_.grey(slot), stream, slot);
      f.eager = true;
    }
    decoder_.launched(slot, stream);
    front_end_.release(slot);
  }

  // Captures the slot's device work (capturing runs nothing). On failure, e.g. a driver without
  // graph support for these nodes, the detector stays eager.
  bool capture(int slot) {
    const bool ok = graphs_[slot].capture(front_end_.stream(), [&] {
      const auto& t = front_end_.enqueue_device_stages(cap_, slot);
      decoder_.enqueue(t, front_end_.grey(slot), front_end_.stream(), slot);
    });
    if (ok) graph_shape_[slot] = sized_;
    else use_graph_ = false;
    return ok;
  }

  CudaFrontEnd front_end_;
  decode::cuda_impl::Decoder decoder_;
  int cap_;
  bool use_graph_;
  cuda::Graph graphs_[kSlots];
  Shape graph_shape_[kSlots];  // what each slot's graph was captured for
  Shape sized_;                // the buffers' shape after the last eager frame (none after an overflow)
  Frame frames_[kSlots];
  int oldest_ = 0, in_flight_ = 0;
  int last_width_ = 0, last_height_ = 0;  // the last submitted frame's size
  int capacity_ = 0, run_capacity_ = 0;  // the segmenter's capacities of the last eager frame
};

}  // namespace

std::unique_ptr<DeviceDetector> make_cuda_detector(const threshold::Params& params, const decode::TreeSet& set,
                                                   const decode::FingerParams& fingers, const decode::BlobParams& blobs) {
  threshold::validate(params);
  return std::make_unique<CudaDetector>(params, set, fingers, blobs);
}

}  // namespace gpuvis::pipeline

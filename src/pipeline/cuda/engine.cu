// The CUDA engine: upload -> threshold -> segmentation -> decoding (fiducials, root candidates,
// fingers and blobs), with only the results back, and up to two frames in flight.
//
// Each frame takes one of two slots: a device frame, a stream, the scratch of every stage, a
// results block and graphs. Its upload and device work run on its slot's stream, at the same time
// as the other slot's frame: a small frame's stages are chains of dependent loads that leave most
// of the GPU idle, so two frames in flight take little more than one. receive() waits for the
// oldest frame alone. Frames depend on each other only through the root-candidate band, which
// passes from frame to frame on the device (decode_cuda.hpp): a frame's band stage waits (an event
// between the streams) for the frame submitted before it, when that one is still running, so
// results are those of one frame at a time.
//
// The device work of a frame (everything after the upload) is captured once per slot into CUDA
// graphs and replayed: the whole frame as one graph when no earlier frame is still running, else
// the part before the band stage and the band stage as two, with the wait between them. A graph
// holds buffer addresses and grid sizes, so it is captured again when the frame size or a
// capacity changes. A frame that overflows its slot's segmenter capacity is run again eagerly
// with more room, and so are the frames queued behind it (they ran with the band of the void
// frame).
#include <cstdlib>
#include <cstring>
#include <string>

#include "cuda/check.hpp"
#include "cuda/graph.hpp"
#include "decode/cuda/decode_cuda.hpp"
#include "pipeline/cuda/front_end.hpp"
#include "pipeline/engine.hpp"

namespace gpuvis::pipeline {
namespace {

// GPUVIS_CUDA_GRAPH=0 launches every frame eagerly (per-stage GPU times are measured then).
bool graphs_wanted() {
  const char* v = std::getenv("GPUVIS_CUDA_GRAPH");
  return !(v && std::strcmp(v, "0") == 0);
}

class CudaEngine final : public Engine {
 public:
  CudaEngine(const DetectorParams& config, const decode::TreeSet& set)
      : front_end_(config.threshold),
        decoder_(set, config.fingers, config.blobs, kSlots),
        cap_(set.cap()),
        object_blobs_(config.blobs.object_blobs),
        finger_blobs_(config.blobs.finger_blobs),
        use_graph_(graphs_wanted()) {}

  bool overlaps() const override { return true; }
  // The staging copy is the frame as it came: equalised on the host only when asked for.
  HostView<const std::uint8_t> received_frame() override {
    const Frame& f = frames_[received_];
    // A frame from device memory comes back as the device saw it, equalised there when it was.
    if (!f.background || f.from_device) return front_end_.host_frame(received_);
    if (!received_equalised_) {
      const auto raw = front_end_.host_frame(received_);
      if (equalised_.width() != raw.width || equalised_.height() != raw.height) equalised_ = Image<std::uint8_t>(raw.width, raw.height);
      f.background->apply(raw, equalised_.view());
      received_equalised_ = true;
    }
    return equalised_.view();
  }

  void submit(const Submission& submission) override {
    const int width = submission.width(), height = submission.height();
    // A frame of another size reallocates the device frames: the queued frames must finish first,
    // and every graph holds old addresses.
    if (width != last_width_ || height != last_height_) {
      front_end_.synchronize();
      graphs_stale();
      last_width_ = width;
      last_height_ = height;
    }
    const int slot = (oldest_ + in_flight_) % kSlots;
    const bool from_device = submission.device_grey.data != nullptr;
    if (from_device)
      front_end_.upload_from_device(submission.device_grey, submission.device_stream, slot, submission.device_times,
                                    submission.background);
    else
      front_end_.upload(submission.grey, slot, submission.device_times, submission.background);
    frames_[slot] = {width, height, false, submission.device_times, submission.taps, submission.background, from_device};
    ++in_flight_;
    launch(slot);
  }

  void receive(Detections& out) override {
    const int slot = oldest_;
    received_ = slot;
    received_equalised_ = false;
    collect(out, slot);
    bool redone = false;
    while (!front_end_.accept(slot, decoder_.segment_totals())) {
      // More regions or runs than the slot's segmenter had room for: nothing was decoded and the
      // room has grown. Run the frame again with its own band (its device frame is still in its
      // slot), and then the frames queued behind it, which used this frame's void band.
      redone = true;
      front_end_.synchronize();  // buffers are about to grow
      graphs_stale();
      decoder_.restore_band(slot, front_end_.stream(slot));
      previous_ = -1;  // every earlier frame is done
      for (int i = 0; i < in_flight_; ++i) launch((oldest_ + i) % kSlots);
      collect(out, slot);
    }
    out.width = frames_[slot].width;
    out.height = frames_[slot].height;
    out.object_blobs = object_blobs_;
    out.finger_blobs = finger_blobs_;
    tap(out, slot);
    out.regions = static_cast<int>(decoder_.segment_totals() >> 32);
    out.times = {};
    const cuda::Event& decoded = decoder_.launched_event(slot);
    const bool times = frames_[slot].timed;
    if (times) out.times.device_us = 1000.0 * cuda::Event::elapsed_ms(front_end_.start(slot), decoded);
    if (frames_[slot].eager) {  // per-stage GPU times exist only for eagerly launched frames
      if (times && !redone) {
        out.times.threshold_us = front_end_.threshold_us(slot);
        out.times.segment_us = front_end_.segment_us(slot);
        out.times.decode_us = 1000.0 * cuda::Event::elapsed_ms(front_end_.segmented(slot), decoded);
      }
      // Every buffer of the slot now has its size for this frame size and capacity: its later
      // frames can replay.
      sized_[slot] = shape(slot);
    }
    // When no frame is left in flight, the next one takes this frame's slot again: it follows this
    // frame in its stream's order, so its band stage needs no wait between streams, and the whole
    // frame replays as one graph (its tail may still be finishing when the results have landed).
    if (--in_flight_ > 0) oldest_ = (oldest_ + 1) % kSlots;
  }

 private:
  static constexpr int kSlots = CudaFrontEnd::kSlots;
  static_assert(kSlots >= Detector::kMaxInFlight);
  // The largest frame whose device work overlaps the previous frame's. Measured on an H200 (time
  // per frame with two in flight, overlapping / one after the other; results only, and with
  // fingers and blobs): 640x480 78.9 / 125.7 us; 1920x1080 141.7 / 181.5 and 229.1 / 316.1 us;
  // 3840x2160 380.1 / 350.5 and 492.6 / 543.2 us.
  static constexpr long long kOverlapMaxPixels = 1920LL * 1080;

  // What a slot's graphs' addresses and grid sizes depend on.
  struct Shape {
    int width = 0, height = 0, capacity = 0, run_capacity = 0, generation = -1;
    bool one_block = false;  // the segmenter's choice of kernels for few regions
    bool operator==(const Shape&) const = default;
  };
  struct Frame {
    int width = 0, height = 0;
    bool eager = false;  // launched stage by stage (its stage times were recorded)
    bool timed = false;  // its GPU times are measured (submit)
    StageTaps taps;
    std::shared_ptr<const threshold::Equalizer> background;  // null: not equalised
    bool from_device = false;  // submitted from device memory (its host copy is made on demand)
  };
  // A slot's graphs: the whole frame, and the same in two parts around the band stage's wait.
  struct Graphs {
    cuda::Graph whole, symbols, band;
    Shape shape;  // what they were captured for
  };

  // Waits for the slot's results and moves them into `out` (swapping storage: no allocation).
  void collect(Detections& out, int slot) {
    decoder_.collect(out.fiducials, out.roots, out.decode_stats, &blobs_, slot);
    std::swap(out.fingers, blobs_.fingers);
    std::swap(out.blobs, blobs_.blobs);
    std::swap(out.fiducial_blobs, blobs_.fiducial_blobs);
    std::swap(out.root_blobs, blobs_.root_blobs);
  }

  // The stage taps the frame asked for, copied from the slot's device buffers (the frame is done).
  void tap(Detections& out, int slot) {
    const StageTaps& taps = frames_[slot].taps;
    out.tree = nullptr;
    out.binary = {};
    if (taps.regions) {
      front_end_.download_tree(slot, tapped_trees_[slot]);
      out.tree = &tapped_trees_[slot];
    }
    if (taps.threshold) {
      front_end_.download_binary(slot, tapped_binaries_[slot]);
      out.binary = tapped_binaries_[slot].view();
    }
  }

  // The slot's shape now: its frame's size, its segmenter's capacities at its last frame and
  // choice for its next, and the decoder's buffers.
  Shape shape(int slot) const {
    const auto& t = front_end_.tree(slot);
    return {frames_[slot].width, frames_[slot].height, t.capacity, t.run_capacity, decoder_.generation(),
            front_end_.one_block_next(slot)};
  }
  void graphs_stale() {
    for (int k = 0; k < kSlots; ++k) {
      graphs_[k].whole.reset();
      graphs_[k].symbols.reset();
      graphs_[k].band.reset();
      graphs_[k].shape = {};
      sized_[k] = {};
    }
  }

  // Enqueues the device work of the frame uploaded into `slot` on the slot's stream: its graphs
  // when every buffer is sized for this frame (captured on first use), else stage by stage. The
  // band stage waits for the previously launched frame if that one is still running.
  void launch(int slot) {
    const cudaStream_t stream = front_end_.stream(slot);
    const cuda::Event* before = nullptr;
    if (previous_ >= 0 && previous_ != slot) {
      const cuda::Event& e = decoder_.launched_event(previous_);
      const cudaError_t state = cudaEventQuery(e.get());
      if (state == cudaErrorNotReady) before = &e;
      else GPUVIS_CUDA_CHECK(state);
    }
    const auto wait_for_band = [&] {
      if (before) GPUVIS_CUDA_CHECK(cudaStreamWaitEvent(stream, before->get(), 0));
    };
    Frame& f = frames_[slot];
    // Large frames fill the GPU on their own: two at once only get in each other's way, so a
    // large frame starts after the previous one (its upload still overlaps that frame's work).
    if (before && static_cast<long long>(f.width) * f.height > kOverlapMaxPixels) {
      wait_for_band();
      before = nullptr;
    }
    Graphs& g = graphs_[slot];
    // A frame whose tree is tapped needs every field of it, which the graphs leave out.
    const bool sized = use_graph_ && !f.taps.regions && sized_[slot] == shape(slot);
    if (sized && (g.shape == sized_[slot] || capture(slot))) {
      if (!before) {
        g.whole.launch(stream);
      } else {
        g.symbols.launch(stream);
        wait_for_band();
        g.band.launch(stream);
      }
      f.eager = false;
    } else {
      const auto& tree = front_end_.enqueue_device_stages(
          cap_, slot, f.taps.regions ? segment::cuda_impl::TreeFields::all : segment::cuda_impl::TreeFields::for_decoder);
      decoder_.reserve(tree.capacity, tree.run_capacity, decode::cuda_impl::RootBand{}.limit, tree.height);
      decoder_.enqueue_symbols(tree, front_end_.binary(slot), stream, slot);
      wait_for_band();
      decoder_.enqueue_band_stage(tree, front_end_.grey(slot), stream, slot, before == nullptr);
      f.eager = true;
    }
    decoder_.launched(slot, stream);
    previous_ = slot;
  }

  // Captures the slot's graphs (capturing runs nothing). On failure, e.g. a driver without graph
  // support for these nodes, the detector stays eager.
  bool capture(int slot) {
    const cudaStream_t stream = front_end_.stream(slot);
    Graphs& g = graphs_[slot];
    const auto symbols = [&] {
      decoder_.enqueue_symbols(front_end_.enqueue_device_stages(cap_, slot), front_end_.binary(slot), stream, slot);
    };
    // The band stage follows the symbols directly in the whole frame's graph, and an event wait in
    // the band graph's case.
    const auto band = [&](bool follows_symbols) {
      decoder_.enqueue_band_stage(front_end_.tree(slot), front_end_.grey(slot), stream, slot, follows_symbols);
    };
    const bool ok = g.whole.capture(stream, [&] {
      symbols();
      band(true);
    }) && g.symbols.capture(stream, symbols) && g.band.capture(stream, [&] { band(false); });
    if (ok) g.shape = sized_[slot];
    else use_graph_ = false;
    return ok;
  }

  CudaFrontEnd front_end_;
  decode::cuda_impl::Decoder decoder_;
  int cap_;
  bool object_blobs_, finger_blobs_;
  bool use_graph_;
  decode::BlobResults blobs_;  // collect()'s landing place
  Graphs graphs_[kSlots];
  Shape sized_[kSlots];  // each slot's buffers' shape after its last eager frame (none after an overflow)
  Frame frames_[kSlots];
  segment::RegionTree tapped_trees_[kSlots];
  Image<std::uint8_t> tapped_binaries_[kSlots];
  Image<std::uint8_t> equalised_;  // the received frame equalised on the host (received_frame)
  bool received_equalised_ = false;
  int oldest_ = 0, in_flight_ = 0;
  int received_ = 0;  // the slot of the last received frame
  int previous_ = -1;  // the slot of the last launched frame
  int last_width_ = 0, last_height_ = 0;  // the last submitted frame's size
};

}  // namespace

std::unique_ptr<Engine> make_cuda_engine(const DetectorParams& config, const decode::TreeSet& set) {
  return std::make_unique<CudaEngine>(config, set);
}

}  // namespace gpuvis::pipeline

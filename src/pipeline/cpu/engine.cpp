// The CPU engine: threshold -> segment -> decode -> root candidates -> fingers and blobs, each
// stage a plain call on the host, timed.
#include <algorithm>
#include <chrono>

#include "gpuvis/decode/fiducial.hpp"
#include "pipeline/engine.hpp"
#include "segment/cpu/segment.hpp"

namespace gpuvis::pipeline {
namespace {

double since_us(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
}

class CpuEngine final : public Engine {
 public:
  CpuEngine(const DetectorParams& config, const decode::TreeSet& set)
      : config_(config), thresholder_(threshold::make_thresholder(with_backend(config.threshold))), decoder_(set) {}

  bool overlaps() const override { return false; }

  void submit(const Submission& frame) override {
    const int slot = (oldest_ + in_flight_) % Detector::kMaxInFlight;
    Detections& out = pending_[slot];
    segment::RegionTree& tree = trees_[slot];
    HostView<const std::uint8_t> grey = frame.grey;
    out.width = grey.width;
    out.height = grey.height;
    // The caller may reuse its frame once submit() returns: the stages and the second look read a
    // copy, which is the equalised frame when the equaliser is on.
    ensure_size(frames_[slot], grey.width, grey.height);
    if (frame.background) frame.background->apply(grey, frames_[slot].view());
    else copy(grey, frames_[slot].view());
    grey = frames_[slot].view();
    out.object_blobs = config_.blobs.object_blobs;
    out.finger_blobs = config_.blobs.finger_blobs;
    Image<std::uint8_t>& binary = binaries_[slot];
    threshold_stage(grey, binary, out.times);
    segment_stage(binary, tree, frame.taps.regions, out.times);
    decode_stage(tree, binary, out);
    blob_stage(tree, grey, out);
    out.regions = tree.size();
    out.tree = &tree;
    out.binary = frame.taps.threshold ? HostView<const std::uint8_t>(binary.view()) : HostView<const std::uint8_t>{};
    ++in_flight_;
  }

  HostView<const std::uint8_t> received_frame() override { return frames_[received_].view(); }

  void receive(Detections& out) override {
    received_ = oldest_;
    std::swap(out, pending_[oldest_]);  // swaps the vectors' storage: nothing is allocated per frame
    oldest_ = (oldest_ + 1) % Detector::kMaxInFlight;
    --in_flight_;
  }

 private:
  static void ensure_size(Image<std::uint8_t>& image, int width, int height) {
    if (image.width() != width || image.height() != height) image = Image<std::uint8_t>(width, height);
  }

  static threshold::Params with_backend(threshold::Params p) {
    p.backend = Backend::cpu;
    return p;
  }

  void threshold_stage(HostView<const std::uint8_t> grey, Image<std::uint8_t>& binary, StageTimes& times) {
    ensure_size(binary, grey.width, grey.height);
    const auto t0 = std::chrono::steady_clock::now();
    thresholder_->apply(grey, binary.view());
    times.threshold_us = since_us(t0);
  }

  // The region tree keeps each region's runs only when fingers or blobs are asked for, or
  // yamaarashi symbols (their root's oriented box), or the regions tap.
  void segment_stage(const Image<std::uint8_t>& binary, segment::RegionTree& tree, bool tap, StageTimes& times) {
    const auto t0 = std::chrono::steady_clock::now();
    const bool runs = decode::measures_blobs(config_.fingers, config_.blobs) || config_.yamaarashi || tap;
    segment::segment_cpu(binary.view(), decoder_.tree_set().cap(), tree, segment::SegmentParams{.runs = runs});
    times.segment_us = since_us(t0);
  }

  // Symbols, then the root candidates in the band of the last frame with symbols, which then
  // moves on to this frame's (the CUDA decoder's stages 1-3).
  void decode_stage(const segment::RegionTree& tree, const Image<std::uint8_t>& binary, Detections& out) {
    const auto t0 = std::chrono::steady_clock::now();
    decoder_.decode(tree, binary.view(), out.fiducials, &out.decode_stats);
    roots_.find(tree, out.fiducials, out.roots);
    out.times.decode_us = since_us(t0);
  }

  void blob_stage(const segment::RegionTree& tree, HostView<const std::uint8_t> grey, Detections& out) {
    const auto t0 = std::chrono::steady_clock::now();
    decode::find_fingers_and_blobs(tree, grey, out.fiducials, config_.fingers, config_.blobs, out.fingers, out.blobs);
    out.fiducial_blobs.clear();
    out.root_blobs.clear();
    if (config_.blobs.object_blobs) {
      for (const auto& f : out.fiducials) out.fiducial_blobs.push_back(decode::region_blob(tree, f.root));
      for (const auto& c : out.roots) out.root_blobs.push_back(decode::region_blob(tree, c.region));
    }
    out.times.blobs_us = since_us(t0);
  }

  DetectorParams config_;
  std::unique_ptr<threshold::Thresholder> thresholder_;
  decode::Decoder decoder_;
  decode::RootCandidateFinder roots_;
  Image<std::uint8_t> binaries_[Detector::kMaxInFlight];  // each frame in flight's binary frame
  segment::RegionTree trees_[Detector::kMaxInFlight];  // each frame in flight's tree
  Detections pending_[Detector::kMaxInFlight];         // each frame in flight's detections
  Image<std::uint8_t> frames_[Detector::kMaxInFlight];   // each frame in flight's (equalised) grey frame
  int oldest_ = 0, in_flight_ = 0, received_ = 0;
};

}  // namespace

std::unique_ptr<Engine> make_cpu_engine(const DetectorParams& config, const decode::TreeSet& set) {
  return std::make_unique<CpuEngine>(config, set);
}

}  // namespace gpuvis::pipeline

// The CPU engine: threshold -> segment -> decode -> root candidates -> fingers and blobs, each
// stage a plain call on the host, timed.
#include <algorithm>
#include <chrono>

#include "gpuvis/decode/fiducial.hpp"
#include "pipeline/engine.hpp"

namespace gpuvis::pipeline {
namespace {

double since_us(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
}

class CpuEngine final : public Engine {
 public:
  CpuEngine(const DetectorConfig& config, const decode::TreeSet& set)
      : config_(config), thresholder_(threshold::make_thresholder(with_backend(config.threshold))), decoder_(set) {}

  bool overlaps() const override { return false; }

  void submit(HostView<const std::uint8_t> grey, bool /*device_times*/) override {
    const int slot = (oldest_ + in_flight_) % Detector::kMaxInFlight;
    Detections& out = pending_[slot];
    segment::RegionTree& tree = trees_[slot];
    out.width = grey.width;
    out.height = grey.height;
    if (keep_frames_) keep(grey, frames_[slot]);
    out.object_blobs = config_.blobs.object_blobs;
    out.finger_blobs = config_.blobs.finger_blobs;
    threshold_stage(grey, out.times);
    segment_stage(tree, out.times);
    decode_stage(tree, out);
    blob_stage(tree, grey, out);
    out.regions = tree.size();
    out.tree = &tree;
    next_band(out.fiducials);
    ++in_flight_;
  }

  HostView<const std::uint8_t> received_frame() const override { return frames_[received_].view(); }

  void receive(Detections& out) override {
    received_ = oldest_;
    std::swap(out, pending_[oldest_]);  // swaps the vectors' storage: nothing is allocated per frame
    oldest_ = (oldest_ + 1) % Detector::kMaxInFlight;
    --in_flight_;
  }

 private:
  // The caller may reuse its frame once submit() returns: the second look reads a copy.
  static void keep(HostView<const std::uint8_t> grey, Image<std::uint8_t>& kept) {
    if (kept.width() != grey.width || kept.height() != grey.height) kept = Image<std::uint8_t>(grey.width, grey.height);
    copy(grey, kept.view());
  }

  static threshold::Params with_backend(threshold::Params p) {
    p.backend = Backend::cpu;
    return p;
  }

  void threshold_stage(HostView<const std::uint8_t> grey, StageTimes& times) {
    if (binary_.width() != grey.width || binary_.height() != grey.height) binary_ = Image<std::uint8_t>(grey.width, grey.height);
    const auto t0 = std::chrono::steady_clock::now();
    thresholder_->apply(grey, binary_.view());
    times.threshold_us = since_us(t0);
  }

  // The region tree keeps each region's runs only when fingers or blobs are asked for, or
  // yamaarashi symbols (their root's oriented box).
  void segment_stage(segment::RegionTree& tree, StageTimes& times) {
    const auto t0 = std::chrono::steady_clock::now();
    const bool runs = decode::measures_blobs(config_.fingers, config_.blobs) || config_.yamaarashi;
    segment::segment_cpu(binary_.view(), decoder_.tree_set().cap(), tree, segment::SegmentOptions{.runs = runs});
    times.segment_us = since_us(t0);
  }

  void decode_stage(const segment::RegionTree& tree, Detections& out) {
    const auto t0 = std::chrono::steady_clock::now();
    decoder_.decode(tree, binary_.view(), out.fiducials, &out.decode_stats);
    decode::find_root_candidates(tree, out.fiducials, root_min_, root_max_, out.roots);
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

  // The root-candidate band of the next frame, from this frame's symbols (reacTIVision's object
  // band; the CUDA decoder does the same on the device).
  void next_band(const std::vector<decode::Fiducial>& fiducials) {
    int smallest = 0, largest = 0;
    for (const auto& f : fiducials)
      if (!f.fuzzy()) {
        smallest = smallest ? std::min(smallest, f.root_size) : f.root_size;
        largest = std::max(largest, f.root_size);
      }
    if (largest == 0) return;
    const auto band = decode::next_root_band(smallest, largest);
    root_min_ = band.min_size;
    root_max_ = band.max_size;
  }

  DetectorConfig config_;
  std::unique_ptr<threshold::Thresholder> thresholder_;
  decode::Decoder decoder_;
  Image<std::uint8_t> binary_;
  segment::RegionTree trees_[Detector::kMaxInFlight];  // each frame in flight's tree
  Detections pending_[Detector::kMaxInFlight];         // each frame in flight's detections
  Image<std::uint8_t> frames_[Detector::kMaxInFlight];   // each frame in flight's grey frame, for the second look
  bool keep_frames_ = config_.second_look.enabled;
  int oldest_ = 0, in_flight_ = 0, received_ = 0;
  int root_min_ = 0, root_max_ = 0;  // root-candidate size band (0 = no symbol seen yet)
};

}  // namespace

std::unique_ptr<Engine> make_cpu_engine(const DetectorConfig& config, const decode::TreeSet& set) {
  return std::make_unique<CpuEngine>(config, set);
}

}  // namespace gpuvis::pipeline

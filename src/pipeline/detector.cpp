#include "gpuvis/pipeline/detector.hpp"

#include <algorithm>
#include <chrono>
#include <string>

namespace gpuvis::pipeline {
namespace {
double since_us(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

threshold::Params DetectorConfig::default_threshold() {
  threshold::Params p;
  p.method = threshold::Method::bernsen;
  p.bernsen.half_window = 12;
  p.bernsen.gate = 32;
  return p;
}

Detector::Detector(DetectorConfig config)
    : config_(std::move(config)), decoder_(decode::TreeSet::load(config_.trees)) {
  if (config_.backend == Backend::cuda)
    device_ = make_cuda_detector(config_.threshold, decoder_.tree_set(), config_.fingers, config_.blobs);
  else front_end_ = make_front_end(config_.threshold, config_.backend);
}

void Detector::submit(HostView<const std::uint8_t> grey) {
  require(in_flight_ < kMaxInFlight,
          "detect: " + std::to_string(kMaxInFlight) + " frames in flight already: receive() before submitting more");
  check_grey_frame(grey);
  const int slot = (oldest_ + in_flight_) % kMaxInFlight;
  Detections& out = pending_[slot];
  out.width = grey.width;
  out.height = grey.height;
  out.object_blobs = config_.blobs.object_blobs;
  out.finger_blobs = config_.blobs.finger_blobs;
  if (device_) device_->submit(grey, config_.device_times);
  else detect_cpu(grey, out, trees_[slot]);
  ++in_flight_;
}

const Detections& Detector::receive() {
  require(in_flight_ > 0, "detect: no frame in flight: submit() first");
  Detections& out = pending_[oldest_];
  if (device_) {
    device_->receive(device_result_);
    std::swap(out.fiducials, device_result_.fiducials);
    std::swap(out.roots, device_result_.roots);
    std::swap(out.fingers, device_result_.blobs.fingers);
    std::swap(out.blobs, device_result_.blobs.blobs);
    std::swap(out.fiducial_blobs, device_result_.blobs.fiducial_blobs);
    std::swap(out.root_blobs, device_result_.blobs.root_blobs);
    out.decode_stats = device_result_.stats;
    out.times = device_result_.times;
    out.regions = device_result_.regions;
    out.tree = nullptr;
  }
  std::swap(result_, out);  // swaps the vectors' storage: nothing is allocated per frame
  oldest_ = (oldest_ + 1) % kMaxInFlight;
  --in_flight_;
  return result_;
}

void Detector::detect_cpu(HostView<const std::uint8_t> grey, Detections& out, segment::RegionTree& tree) {
  const bool blob_stages = decode::measures_blobs(config_.fingers, config_.blobs);
  front_end_->run(grey, decoder_.tree_set().cap(), segment::SegmentOptions{.runs = blob_stages}, tree, out.times);
  const auto t0 = std::chrono::steady_clock::now();
  decoder_.decode(tree, out.fiducials, &out.decode_stats);
  decode::find_root_candidates(tree, out.fiducials, root_min_, root_max_, out.roots);
  out.times.decode_us = since_us(t0);
  out.regions = tree.size();
  out.tree = &tree;
  const auto t1 = std::chrono::steady_clock::now();
  decode::find_fingers_and_blobs(tree, grey, out.fiducials, config_.fingers, config_.blobs, out.fingers, out.blobs);
  out.fiducial_blobs.clear();
  out.root_blobs.clear();
  if (config_.blobs.object_blobs) {
    for (const auto& f : out.fiducials) out.fiducial_blobs.push_back(decode::region_blob(tree, f.root));
    for (const auto& c : out.roots) out.root_blobs.push_back(decode::region_blob(tree, c.region));
  }
  out.times.blobs_us = since_us(t1);
  // The band of the next frame, as reacTIVision's object band (the CUDA decoder does the same on
  // the device).
  int smallest = 0, largest = 0;
  for (const auto& f : out.fiducials)
    if (!f.fuzzy()) {
      smallest = smallest ? std::min(smallest, f.root_size) : f.root_size;
      largest = std::max(largest, f.root_size);
    }
  if (largest > 0) {
    const auto band = decode::next_root_band(smallest, largest);
    root_min_ = band.min_size;
    root_max_ = band.max_size;
  }
}

}  // namespace gpuvis::pipeline

#include "gpuvis/pipeline/detector.hpp"

#include <algorithm>
#include <chrono>

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

const Detections& Detector::detect(HostView<const std::uint8_t> grey) {
  require(grey.channels == 1, "detect: frames must be 8-bit grey");
  check_image_shape(grey.width, grey.height, 1);
  result_.width = grey.width;
  result_.height = grey.height;
  const bool blob_stages = decode::finds_fingers_or_blobs(config_.fingers, config_.blobs) || config_.blobs.object_blobs;
  result_.object_blobs = config_.blobs.object_blobs;
  result_.finger_blobs = config_.blobs.finger_blobs;
  if (device_) {
    device_->detect(grey, root_min_, root_max_, device_result_);
    std::swap(result_.fiducials, device_result_.fiducials);
    std::swap(result_.roots, device_result_.roots);
    std::swap(result_.fingers, device_result_.blobs.fingers);
    std::swap(result_.blobs, device_result_.blobs.blobs);
    std::swap(result_.fiducial_blobs, device_result_.blobs.fiducial_blobs);
    std::swap(result_.root_blobs, device_result_.blobs.root_blobs);
    result_.decode_stats = device_result_.stats;
    result_.times = device_result_.times;
    result_.regions = device_result_.regions;
    result_.tree = nullptr;
  } else {
    front_end_->run(grey, decoder_.tree_set().cap(), segment::SegmentOptions{.runs = blob_stages}, tree_, result_.times);
    const auto t0 = std::chrono::steady_clock::now();
    decoder_.decode(tree_, result_.fiducials, &result_.decode_stats);
    decode::find_root_candidates(tree_, result_.fiducials, root_min_, root_max_, result_.roots);
    result_.times.decode_us = since_us(t0);
    result_.regions = tree_.size();
    result_.tree = &tree_;
    const auto t1 = std::chrono::steady_clock::now();
    decode::find_fingers_and_blobs(tree_, grey, result_.fiducials, config_.fingers, config_.blobs, result_.fingers,
                                   result_.blobs);
    result_.fiducial_blobs.clear();
    result_.root_blobs.clear();
    if (config_.blobs.object_blobs) {
      for (const auto& f : result_.fiducials) result_.fiducial_blobs.push_back(decode::region_blob(tree_, f.root));
      for (const auto& c : result_.roots) result_.root_blobs.push_back(decode::region_blob(tree_, c.region));
    }
    result_.times.blobs_us = since_us(t1);
  }
  int smallest = 0, largest = 0;
  for (const auto& f : result_.fiducials)
    if (!f.fuzzy()) {
      smallest = smallest ? std::min(smallest, f.root_size) : f.root_size;
      largest = std::max(largest, f.root_size);
    }
  if (largest > 0) {  // the band of the next frame, as reacTIVision's object band
    root_min_ = static_cast<int>(smallest / 1.2);
    root_max_ = static_cast<int>(largest * 1.2);
  }
  return result_;
}

}  // namespace gpuvis::pipeline

#pragma once
// One frame through the tracker's detection stages: threshold -> segment -> decode, fingers and
// blobs, all on the CPU or all on the GPU. The detector owns every buffer, so a stream of frames
// of one size allocates nothing after the first.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gpuvis/core/backend.hpp"
#include "gpuvis/decode/blobs.hpp"
#include "gpuvis/decode/fiducial.hpp"
#include "gpuvis/decode/root_candidates.hpp"
#include "gpuvis/pipeline/front_end.hpp"
#include "gpuvis/segment/region_tree.hpp"
#include "gpuvis/threshold/threshold.hpp"

namespace gpuvis::pipeline {

struct DetectorConfig {
  threshold::Params threshold = default_threshold();
  std::string trees = "default";  // default | small | mini | path to a .trees file
  // cpu, or cuda: threshold, segmentation, decoding, fingers and blobs on the device; only the
  // results come back.
  Backend backend = Backend::cpu;
  decode::FingerParams fingers;    // off unless fingers.size > 0
  decode::BlobParams blobs;        // off unless blobs.max_size > 0
  // CUDA: measure each frame's GPU time (Detections::times). Costs a few microseconds of latency
  // per frame (receive() then also waits for the frame's last event), so it is off unless asked.
  bool device_times = false;

  // The threshold chosen for detection from measurements on generated scenes (docs/decoding.md).
  static threshold::Params default_threshold();
};

struct Detections {
  int width = 0, height = 0;
  std::vector<decode::Fiducial> fiducials;  // valid IDs first, then fuzzy candidates (id -1)
  std::vector<decode::Finger> fingers;
  std::vector<decode::Blob> blobs;
  // Regions that may be the root of a symbol whose inside no longer decodes, in the size band of
  // the symbols of the last frame that had any (root sizes / 1.2 .. * 1.2, spec §6.2).
  std::vector<decode::RootCandidate> roots;
  // With blobs.object_blobs: the blob of each fiducial's root region and of each root candidate,
  // index for index (spec §7.6); empty otherwise.
  std::vector<decode::Blob> fiducial_blobs, root_blobs;
  // This frame's regions (valid until the next detect() or submit()) on the CPU backend; null on
  // the CUDA backend, which keeps them on the device.
  const segment::RegionTree* tree = nullptr;
  bool object_blobs = false, finger_blobs = false;  // the tracker attaches blobs to objects / cursors
  decode::DecodeStats decode_stats;
  int regions = 0;
  StageTimes times;
};

class Detector {
 public:
  static constexpr int kMaxInFlight = DeviceDetector::kMaxInFlight;
  explicit Detector(DetectorConfig config);
  const DetectorConfig& config() const { return config_; }
  void set_device_times(bool on) { config_.device_times = on; }
  // Runs the stages on an 8-bit grey frame. The result stays valid until the next call.
  const Detections& detect(HostView<const std::uint8_t> grey) {
    submit(grey);
    return receive();
  }

  // detect() in two steps, so that frames can be pipelined: submit() enqueues a frame, receive()
  // returns the detections of the oldest submitted frame (valid until the next receive()). Up to
  // kMaxInFlight frames may be submitted before receiving. On CUDA, submit() returns before the
  // frame is done, and a second frame in flight computes at the same time as the first (frames up
  // to 1920x1080; larger ones queue behind it); on the CPU, submit() does the work. Results are
  // the same however frames are submitted (the root-candidate band passes from frame to frame in
  // order). The frame may be
  // reused when submit() returns, except a frame in pinned memory on CUDA (DeviceDetector).
  void submit(HostView<const std::uint8_t> grey);
  const Detections& receive();
  int in_flight() const { return in_flight_; }
  // True when submit() returns before the frame is done (CUDA): only then does a second frame in
  // flight make the stream of frames faster.
  bool overlaps() const { return device_ != nullptr; }

  // The last submitted frame's region tree and decoded leaves: CPU backend only (the CUDA backend
  // keeps them on the device). The tree holds each region's runs only when fingers or blobs are
  // asked for.
  const segment::RegionTree& regions() const { return trees_[newest()]; }
  const std::vector<decode::LeafRef>& decoder_leaves() const { return decoder_.leaves(); }

 private:
  int newest() const { return (oldest_ + in_flight_ + kMaxInFlight - 1) % kMaxInFlight; }
  void detect_cpu(HostView<const std::uint8_t> grey, Detections& out, segment::RegionTree& tree);

  DetectorConfig config_;
  std::unique_ptr<FrontEnd> front_end_;       // cpu
  std::unique_ptr<DeviceDetector> device_;    // cuda
  DeviceDetections device_result_;
  decode::Decoder decoder_;
  segment::RegionTree trees_[kMaxInFlight];   // cpu: each frame in flight's tree
  Detections pending_[kMaxInFlight];          // each frame in flight's detections (cpu: complete)
  Detections result_;                         // the last received frame's
  int oldest_ = 0, in_flight_ = 0;
  int root_min_ = 0, root_max_ = 0;  // cpu: root-candidate size band (0 = no symbol seen yet)
};

}  // namespace gpuvis::pipeline

#pragma once
// Stages 1-2 of detection, threshold -> segment, behind one interface so that the GPU can keep the
// frame on the device between them. The CPU front end thresholds into a host image and segments
// it; the CUDA front end uploads the frame once (through pinned memory), thresholds and segments
// on the device, and downloads only the region tree.
#include <cstdint>
#include <memory>
#include <vector>

#include "gpuvis/core/backend.hpp"
#include "gpuvis/decode/blobs.hpp"
#include "gpuvis/decode/fiducial.hpp"
#include "gpuvis/decode/root_candidates.hpp"
#include "gpuvis/segment/region_tree.hpp"
#include "gpuvis/threshold/threshold.hpp"

namespace gpuvis::pipeline {

struct StageTimes {
  // CUDA: threshold_us is the upload and the threshold kernels (GPU time); segment_us is the device
  // segmentation (with the tree's download when the host needs the tree); decode_us is the device
  // decoding and the results' download (DeviceDetector).
  // With CUDA graphs (the default) a frame's device stages run as one graph and only device_us,
  // the whole frame on the device from upload to results copied back, is measured; the stages are
  // timed on frames launched eagerly (the first of each size, or GPUVIS_CUDA_GRAPH=0).
  double threshold_us = 0, segment_us = 0, decode_us = 0, blobs_us = 0;
  double device_us = 0;
};

// Throws a clear error unless `grey` is a one-channel 8-bit frame of a size the stages handle: the
// check every entry point of detection makes before it changes any state.
void check_grey_frame(HostView<const std::uint8_t> grey);

class FrontEnd {
 public:
  virtual ~FrontEnd() = default;
  virtual Backend backend() const = 0;
  // grey (8-bit, one channel) -> region tree; `cap` and `options` as for segment_cpu.
  virtual void run(HostView<const std::uint8_t> grey, int cap, segment::SegmentOptions options, segment::RegionTree& tree,
                   StageTimes& times) = 0;
};

// Stages 1-3 on the device (threshold, segmentation, fiducial decoding, root candidates, fingers and
// blobs): the frame goes up once and only the results come back (src/pipeline/detector_cuda.cu).
struct DeviceDetections {
  std::vector<decode::Fiducial> fiducials;  // as decode::Decoder orders them
  std::vector<decode::RootCandidate> roots;
  decode::BlobResults blobs;  // as decode::find_fingers_and_blobs and region_blob, when asked for
  decode::DecodeStats stats;
  int regions = 0;
  StageTimes times;
};

// Frames may be pipelined: submit() enqueues a frame and returns without waiting, receive() waits
// for the oldest submitted frame; with two in flight, the next frame goes up while the current one
// computes and then computes beside it (frames up to 1920x1080; larger ones, which fill the GPU on
// their own, queue behind it), so the GPU does not wait for the host in between. The
// root-candidate band (regions of the size of the last frame's symbols, spec §6.2) passes from
// frame to frame on the device, so results do not depend on how many frames are in flight.
class DeviceDetector {
 public:
  static constexpr int kMaxInFlight = 2;
  virtual ~DeviceDetector() = default;
  // The frame may be reused when this returns unless it lies in pinned memory (cuda::is_pinned),
  // which goes up without a staging copy and must stay unchanged until its frame is received.
  // `times`: measure the frame's GPU time (StageTimes::device_us, and the stage times of an eagerly
  // launched frame). It costs a few microseconds of latency: an event before the upload, and
  // receive() then also waits for the frame's last event.
  virtual void submit(HostView<const std::uint8_t> grey, bool times) = 0;
  // Returns as soon as the oldest frame's results have landed in host memory.
  virtual void receive(DeviceDetections& out) = 0;
  virtual int in_flight() const = 0;
};

// Throws ErrorCode::unsupported in builds without CUDA, or for tree sets the device decoder does
// not handle (decode_cuda.hpp). Fingers, blobs and object blobs are found as the parameters ask.
std::unique_ptr<DeviceDetector> make_cuda_detector(const threshold::Params& params, const decode::TreeSet& set,
                                                   const decode::FingerParams& fingers, const decode::BlobParams& blobs);

// backend must be cpu or cuda; parameters are validated here.
std::unique_ptr<FrontEnd> make_front_end(const threshold::Params& params, Backend backend);
// The CUDA front end (throws ErrorCode::unsupported in builds without CUDA).
std::unique_ptr<FrontEnd> make_cuda_front_end(const threshold::Params& params);

}  // namespace gpuvis::pipeline

#pragma once
// Stages 1-2 of detection, threshold -> segment, behind one interface so that the GPU can keep the
// frame on the device between them. The CPU front end thresholds into a host image and segments
// it; the CUDA front end uploads the frame once (through pinned memory), thresholds and segments
// on the device, and downloads only the region tree.
#include <cstdint>
#include <memory>

#include "gpuvis/core/backend.hpp"
#include "gpuvis/segment/region_tree.hpp"
#include "gpuvis/threshold/threshold.hpp"

namespace gpuvis::pipeline {

struct StageTimes {
  // CUDA: threshold_us is the upload and the threshold kernels (GPU time); segment_us is the device
  // segmentation and the tree's download, as the host waits for them.
  double threshold_us = 0, segment_us = 0, decode_us = 0, blobs_us = 0;
};

class FrontEnd {
 public:
  virtual ~FrontEnd() = default;
  virtual Backend backend() const = 0;
  // grey (8-bit, one channel) -> region tree; `cap` as for segment_cpu.
  virtual void run(HostView<const std::uint8_t> grey, int cap, segment::RegionTree& tree, StageTimes& times) = 0;
};

// backend must be cpu or cuda; parameters are validated here.
std::unique_ptr<FrontEnd> make_front_end(const threshold::Params& params, Backend backend);
// The CUDA front end (throws ErrorCode::unsupported in builds without CUDA).
std::unique_ptr<FrontEnd> make_cuda_front_end(const threshold::Params& params);

}  // namespace gpuvis::pipeline

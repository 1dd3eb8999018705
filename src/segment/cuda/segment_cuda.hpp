#pragma once
// CUDA implementation of the segmentation stage: the same RegionTree as segment_cpu (every field,
// same region numbers, docs/segmentation.md), built on the device from a binary frame that is
// already in device memory. Stages (src/segment/cuda/):
//
//   1. labels: connected components of both colours at once, 4-connectivity: union-find over
//      pixels with atomicMin unions (Playne & Hawick's scheme), each pixel starting at its run
//      start inside its warp's 32-pixel span, so unions are only needed where spans or runs begin;
//   2. numbering: the labelling's last pass marks, per 32-pixel word, which pixels are a region's
//      first pixel (the union-find root is the smallest pixel index) and which start a run; one
//      packed exclusive scan (CUB) over the words' counts then numbers regions and runs in raster
//      order (a pixel's number is its word's prefix plus a popcount); the totals stay on the
//      device (the arrays below have a capacity; a frame that overflows it is segmented again);
//   3. regions: runs, statistics (atomics per run), adjacency pairs straight into per-region sets
//      of cap + 1 slots (filling them means saturated);
//   4. finishing: flags, parent forest, depths, descendant counts, sorted neighbour lists.
//
// The segmenter keeps its device buffers between frames (they grow, never shrink).
#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>

#include "gpuvis/core/image.hpp"
#include "gpuvis/segment/region_tree.hpp"

namespace gpuvis::segment::cuda_impl {

// Device pointers to the arrays of the last segmented frame (valid until the next segment()).
// Coordinate sums are exact 64-bit integers on the device: sum of 2x and sum of y.
struct DeviceTree {
  int width = 0, height = 0, cap = 0;
  int regions = 0, runs = 0;  // -1 until the host knows them (Segmenter::accept)
  // The counts on the device (regions << 32 | runs) and the room in the arrays (regions, runs).
  const unsigned long long* totals = nullptr;
  int capacity = 0, run_capacity = 0;
  const std::uint8_t* colour = nullptr;
  const std::uint8_t* flags = nullptr;
  const std::int32_t *area = nullptr, *left = nullptr, *top = nullptr, *right = nullptr, *bottom = nullptr;
  const unsigned long long *sum_2x = nullptr, *sum_y = nullptr;
  const std::int32_t *first_x = nullptr, *first_y = nullptr;
  const std::int32_t *parent = nullptr, *child_count = nullptr, *descendant_count = nullptr, *depth = nullptr;
  bool nesting = true;  // child_count, descendant_count and depth hold this frame's values
  // The frame was finished by one block (few regions, see finishes_in_one_block()); the decoder
  // then selects its root candidates in one block too.
  bool one_block = false;
  const std::int32_t *adj_begin = nullptr, *adj = nullptr;
  // The clean leaves: regions with one kept neighbour and none of kBorder, kSaturated and
  // kFragmented (where the decoder's upward propagation starts), in no particular order, and their
  // count on the device.
  const std::int32_t* leaves = nullptr;
  const std::int32_t* leaf_count = nullptr;
  const Run* raster_runs = nullptr;          // all runs in raster order
  const std::int32_t* run_region = nullptr;  // the region of each raster run
};

// What segment_async computes: the whole tree, or what the CUDA decoder reads. The decoder finds
// descendant counts and heights itself (its propagation), so for it the segmenter leaves out child
// counts, descendant counts and depths: the ancestor walk behind them is a chain of dependent
// loads as long as the deepest nesting, on the frame's path.
enum class TreeFields { all, for_decoder };

// A grey frame to threshold with full Bernsen on the way into the segmentation: the labelling's
// first pass thresholds its own tiles and writes `binary` for the later passes (one launch instead
// of the threshold stage's two on a camera frame's path; threshold/cuda/bernsen_tile.cuh). The
// result is the threshold stage's, bit for bit. Half-windows 1..kThresholdInLabelsMaxRadius.
struct BernsenInput {
  DeviceView<const std::uint8_t> grey;
  DeviceView<std::uint8_t> binary;  // same size as grey
  int half_window = 16, gate = 32;  // the detector's default
};
inline constexpr int kThresholdInLabelsMaxRadius = 16;

// GPU time of the last frame's stages, in microseconds.
struct SegmentTimes {
  double labels_us = 0, numbering_us = 0, regions_us = 0, finishing_us = 0;
};

class Segmenter {
 public:
  Segmenter();
  ~Segmenter();
  Segmenter(Segmenter&&) noexcept;
  Segmenter& operator=(Segmenter&&) noexcept;

  // Segments `binary` (0 / non-zero, one channel, any pitch) and waits for the region and run
  // counts (tree().regions, runs). `cap` >= 1 as for segment_cpu.
  const DeviceTree& segment(DeviceView<const std::uint8_t> binary, int cap, cudaStream_t stream);
  // The same from a grey frame, thresholded by the labelling itself (BernsenInput).
  const DeviceTree& segment(const BernsenInput& grey, int cap, cudaStream_t stream);

  // The same without waiting, for a caller that keeps the whole frame on the device (one
  // synchronisation per frame, or a CUDA graph): the counts stay in device memory (totals) and
  // the arrays have the segmenter's current capacity. Once the stream has finished, hand the
  // totals to accept(): false means the frame had more regions or runs than the capacity, its
  // results are void, the capacity has grown, and the frame must be segmented again.
  const DeviceTree& segment_async(DeviceView<const std::uint8_t> binary, int cap, cudaStream_t stream,
                                  TreeFields fields = TreeFields::all);
  // The same from a grey frame, thresholded by the labelling itself (BernsenInput).
  const DeviceTree& segment_async(const BernsenInput& grey, int cap, cudaStream_t stream,
                                  TreeFields fields = TreeFields::all);
  bool accept(unsigned long long totals);
  // Whether the next frame's region finishing will run in one block: camera frames with few
  // regions (the last accepted frame's count decides). A CUDA graph captured with one choice must
  // be captured again when this changes.
  bool finishes_in_one_block() const;
  const DeviceTree& tree() const;

  // Stage times of the last segment() (waits for it to finish).
  SegmentTimes stage_times() const;

  // Copies the last frame's tree into host arrays, building the run lists by region on the way
  // (synchronises `stream`). The frame must have been segmented with TreeFields::all.
  void download(RegionTree& out, cudaStream_t stream) const;

 private:
  // Runs segment_once() (an enqueue of segment_async) until its counts fit the capacity.
  template <class Segment>
  const DeviceTree& segment_until_accepted(Segment&& segment_once, cudaStream_t stream);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpuvis::segment::cuda_impl

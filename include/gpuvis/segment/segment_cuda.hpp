#pragma once
// CUDA implementation of the segmentation stage: the same RegionTree as segment_cpu (every field,
// same region numbers, docs/segmentation.md), built on the device from a binary frame that is
// already in device memory. Stages:
//
//   1. connected components of both colours at once, 4-connectivity: union-find over pixels with
//      atomicMin unions (Playne & Hawick's scheme), each pixel starting at its run start inside
//      its warp's 32-pixel span, so unions are only needed where spans or runs begin;
//   2. region numbers in raster order of first pixel (the union-find root is the smallest pixel
//      index, so an exclusive scan of "is root" numbers the regions), runs and their statistics;
//   3. adjacency pairs at run starts, sorted and made unique with CUB, saturation and
//      fragmentation, the neighbour lists;
//   4. the parent forest, depths, child and descendant counts.
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
  int regions = 0, runs = 0, neighbours = 0;
  const std::uint8_t* colour = nullptr;
  const std::uint8_t* flags = nullptr;
  const std::int32_t *area = nullptr, *left = nullptr, *top = nullptr, *right = nullptr, *bottom = nullptr;
  const unsigned long long *sum_2x = nullptr, *sum_y = nullptr;
  const std::int32_t *first_x = nullptr, *first_y = nullptr;
  const std::int32_t *parent = nullptr, *child_count = nullptr, *descendant_count = nullptr, *depth = nullptr;
  const std::int32_t *adj_begin = nullptr, *adj = nullptr;
  const std::int32_t* run_begin = nullptr;
  const Run* run_list = nullptr;  // runs of each region, in raster order (CSR by run_begin)
};

class Segmenter {
 public:
  Segmenter();
  ~Segmenter();
  Segmenter(Segmenter&&) noexcept;
  Segmenter& operator=(Segmenter&&) noexcept;

  // Segments `binary` (0 / non-zero, one channel, any pitch). Three counts (runs, regions,
  // adjacency entries) are read back to size the device-wide sorts, so this synchronises `stream`
  // three times. `cap` >= 1 as for segment_cpu.
  const DeviceTree& segment(DeviceView<const std::uint8_t> binary, int cap, cudaStream_t stream);
  const DeviceTree& tree() const;

  // Copies the last frame's tree into host arrays (synchronises `stream`).
  void download(RegionTree& out, cudaStream_t stream) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpuvis::segment::cuda_impl

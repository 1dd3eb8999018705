#pragma once
// The CPU backend's segmentation (segment.cpp): the region tree of a binary frame, as the CUDA
// segmenter (segment/cuda/segment_cuda.hpp) builds it on the device.
#include <cstdint>

#include "gpuvis/core/image.hpp"
#include "gpuvis/segment/region_tree.hpp"

namespace gpuvis::segment {

// What segment_cpu builds beyond the per-region statistics, adjacency and parent forest.
struct SegmentParams {
  // Each region's runs (run_begin, runs): the finger and blob measures need them, fiducial
  // decoding does not. Without them both arrays are left empty (a noisy 640x480 frame saves ~8%).
  bool runs = true;
};

// Segments a binary frame (0 / non-zero; non-zero counts as white). `cap` >= 1 is the adjacency cap
// (the largest node count of the loaded tree set; 19 for the default amoeba set). O(pixels + runs)
// with union-find over runs, the labelling in bands of rows on the CPU backend's threads (the result
// does not depend on their number). Reuses `out`'s storage.
void segment_cpu(HostView<const std::uint8_t> binary, int cap, RegionTree& out, SegmentParams options = {});

}  // namespace gpuvis::segment

#pragma once
// The CPU segmenter's phases, the CUDA segmenter's stages on the host (src/segment/cuda/):
//   1. labels (labels.cpp, as labels.cu): runs of each row and union-find over them, in bands of
//      rows on the pool's threads;
//   2-3. numbering and regions (regions.cpp, as regions.cu): region numbers, statistics and the
//      §3.3 adjacency pairs in one forward pass over the runs;
//   4. finishing (finishing.cpp, as finishing.cu): the tree's arrays and parent forest, each
//      region's runs, the adjacency lists and saturation.
// segment_cpu (segment.cpp) runs them in that order.
#include <array>
#include <cstdint>
#include <vector>

#include "gpuvis/core/image.hpp"
#include "gpuvis/segment/region_tree.hpp"

namespace gpuvis::segment::cpu {

struct RawRun {
  std::int32_t x0, x1, y;
  std::uint8_t colour;  // 0 or 255
};

// An adjacency pair of regions (a pair of two different regions, so never a self-pair).
using Edge = std::array<std::int32_t, 2>;

// Per-region accumulators of the labelling pass, one 32-byte record per region (two per cache
// line): noisy frames touch regions in scattered order, and one record per touch moves far fewer
// cache lines than separate arrays do.
struct RegionAcc {
  std::int32_t area, left, right, bottom;
  std::int64_t sum_2x, sum_y;  // sum of 2x (a run adds (x0 + x1) * length) and of y: exact integers
};
static_assert(sizeof(RegionAcc) == 32);

// Per-thread scratch kept between frames: allocating these buffers every frame costs page faults
// that, on noisy frames, take longer than the work itself.
struct Scratch {
  std::vector<RawRun> runs;
  std::vector<std::int32_t> rid_a, rid_b, changes, uf, north, row_begin, region_of, first_run, count, fill, degree;
  std::vector<Edge> pairs, edges;
  std::vector<std::uint8_t> norm, saturated;
  std::vector<RegionAcc> acc;
};

// Stage 1: labels the binary frame's runs into s (runs, uf, north, row_begin). Returns the region
// count.
int label_runs(HostView<const std::uint8_t> binary, Scratch& s);

// Stages 2-3: region numbers (region_of, first_run), statistics (acc) and adjacency pairs (pairs).
// Returns the pair count.
int number_and_measure(int nregions, Scratch& s);

// Stage 4: the statistics and parent forest into t; each region's runs when `wanted`; the
// adjacency lists (at most `cap` neighbours, else saturated) from the first `npairs` pairs.
void write_regions(int nregions, int w, int h, const Scratch& s, RegionTree& t);
void write_runs(int nregions, bool wanted, Scratch& s, RegionTree& t);
void build_adjacency(int nregions, int npairs, int cap, Scratch& s, RegionTree& t);

}  // namespace gpuvis::segment::cpu

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
#include "segment/cpu/run_bands.hpp"

namespace gpuvis::segment::cpu {

struct RawRun {
  std::int32_t x0, x1, y;
  std::uint8_t colour;  // 0 or 255
};

// An adjacency pair of regions (a pair of two different regions, so never a self-pair).
using Edge = std::array<std::int32_t, 2>;


// Per-thread scratch kept between frames: allocating these buffers every frame costs page faults
// that, on noisy frames, take longer than the work itself.
struct Scratch {
  std::vector<RawRun> runs;
  std::vector<std::int32_t> rid_a, rid_b, changes, uf, north, row_begin, region_of, first_run, count, fill, degree;
  std::vector<Edge> pairs, edges;
  std::vector<std::uint8_t> norm, saturated;
  std::vector<RegionAcc> acc;
  std::vector<RunBand> bands;  // the stages after labelling, one band of runs per thread (run_bands.hpp)
  std::vector<std::int32_t> run_count, run_cursor;  // each region's runs in its own band; where the next goes
  std::vector<std::int32_t> neighbours;              // adjacency_bands.cpp: each region's neighbours,
  std::vector<Edge> routed;                          // the pairs' ends routed to their ranges,
  std::vector<std::int32_t> route_count;             // and per range and band, their count and place
};

// Cuts the labelled runs into bands of rows for the stages after labelling (one per thread, at
// least kLeastBandRows rows each).
void plan_bands(Scratch& s);

// Stage 1: labels the binary frame's runs into s (runs, uf, north, row_begin). Returns the region
// count.
int label_runs(HostView<const std::uint8_t> binary, Scratch& s);

// Stages 2-3: region numbers (region_of, first_run), statistics (acc) and adjacency pairs (pairs:
// each band's band.npairs from pairs[band.first] on). Returns the pair count.
int number_and_measure(int nregions, Scratch& s);

// Stage 4: the statistics and parent forest into t; each region's runs when `wanted`; the
// adjacency lists (at most `cap` neighbours, else saturated) from the bands' `npairs` pairs.
void write_regions(int nregions, int w, int h, const Scratch& s, RegionTree& t);
void write_runs(int nregions, bool wanted, Scratch& s, RegionTree& t);
void build_adjacency(int nregions, int npairs, int cap, Scratch& s, RegionTree& t);
// The same on several bands' threads (adjacency_bands.cpp), which build_adjacency calls for them.
void build_adjacency_in_bands(int nregions, int cap, Scratch& s, RegionTree& t);

}  // namespace gpuvis::segment::cpu

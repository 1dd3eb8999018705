#pragma once
// Stage 2 of the tracker: segmentation of a binary frame into regions of both colours and the
// region tree. Everything is stored as flat arrays indexed by region (structure of arrays), so the
// CPU and a GPU implementation can produce the same structure. Definitions (docs/segmentation.md):
//
//  * region: a 4-connected set of equal-valued pixels, for black (0) and white (255) alike.
//    Regions are numbered in raster order of their first pixel.
//  * adjacency: regions A, B are adjacent iff some pixel p of A (row >= 1) starts a run (x = 0 or
//    its west pixel differs) and its north pixel lies in B, or A and B meet horizontally in row 0
//    (reacTIVision's rule, spec §3.3). For nested shapes this is exactly parent + children.
//  * saturated: more than `cap` distinct neighbours (judged on final regions); a saturated region
//    keeps no adjacencies, and its neighbours are marked fragmented and lose it.
//  * parent: for a region that does not touch the border, the region directly above its first
//    pixel (the enclosing region for nested shapes); none (-1) for border regions.
//  * depth, children, descendants: from the parent forest.
#include <cstdint>
#include <vector>

#include "gpuvis/core/image.hpp"

namespace gpuvis::segment {

enum RegionFlags : std::uint8_t {
  kBorder = 1,      // touches row 0, row H-1, column 0 or column W-1
  kSaturated = 2,   // more than `cap` distinct neighbours: adjacencies dropped
  kFragmented = 4,  // lost a neighbour because that neighbour is saturated
};

// One horizontal run of a region: pixels [x0, x1] of row y.
struct Run {
  std::int32_t y, x0, x1;
};

struct RegionTree {
  int width = 0, height = 0;
  int cap = 0;  // adjacency cap used for saturation

  // Per region r in [0, size()).
  std::vector<std::uint8_t> colour;  // 0 or 255
  std::vector<std::uint8_t> flags;   // RegionFlags
  std::vector<std::int32_t> area;
  std::vector<std::int32_t> left, top, right, bottom;  // exact bounding box, inclusive
  std::vector<double> sum_x, sum_y;                    // centroid = sum / area
  std::vector<std::int32_t> first_x, first_y;          // first pixel in raster order
  std::vector<std::int32_t> parent;                    // -1 for none
  std::vector<std::int32_t> child_count, descendant_count, depth;

  // Adjacency lists (CSR): neighbours of r are adj[adj_begin[r] .. adj_begin[r+1]), ascending.
  std::vector<std::int32_t> adj_begin, adj;
  // Runs of each region (CSR), in raster order.
  std::vector<std::int32_t> run_begin;
  std::vector<Run> runs;

  int size() const { return static_cast<int>(colour.size()); }
  int degree(int r) const { return adj_begin[r + 1] - adj_begin[r]; }
  const std::int32_t* neighbours(int r) const { return adj.data() + adj_begin[r]; }
  double centroid_x(int r) const { return sum_x[r] / area[r]; }
  double centroid_y(int r) const { return sum_y[r] / area[r]; }
  int bbox_width(int r) const { return right[r] - left[r] + 1; }
  int bbox_height(int r) const { return bottom[r] - top[r] + 1; }
};

}  // namespace gpuvis::segment

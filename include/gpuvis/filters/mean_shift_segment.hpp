#pragma once
// Mean shift segmentation (Comaniciu & Meer 2002, with EDISON's region merging): the mean shift
// filter (either backend) gives every pixel its mode; neighbouring pixels whose modes are close
// are joined into regions, adjacent regions whose mean modes lie within h_r / 2 are fused, and
// regions smaller than a minimum size are merged into their most similar neighbour. The exact
// definition is in docs/meanshift.md.
#include <cstdint>
#include <vector>

#include "gpuvis/core/image.hpp"
#include "gpuvis/filters/mean_shift.hpp"

namespace gpuvis::filters {

struct MeanShiftSegmentParams {
  MeanShiftParams filter;   // bandwidths, kernel, colour space, convergence and backend
  // Neighbours (8-connected) whose modes differ by less than connect x h_r join one region.
  float connect = 0.25f;
  // Adjacent regions whose mean modes differ by less than fuse x h_r are fused (EDISON: 0.5).
  float fuse = 0.5f;
  int min_size = 20;        // regions with fewer pixels merge into their most similar neighbour (0: none)
};
void validate(const MeanShiftSegmentParams& p);

struct SegmentRegion {
  int label = 0;
  int size = 0;                    // pixels
  float mean[3] = {0, 0, 0};       // mean filtered value (grey: mean[0]; colour: R, G, B)
  double centroid_x = 0, centroid_y = 0;
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // bounding box, inclusive
};

struct MeanShiftSegmentation {
  Image<std::int32_t> labels;  // 0 .. regions.size() - 1, numbered in raster order of first pixel
  Image<std::uint8_t> filtered;
  std::vector<SegmentRegion> regions;
};

// 8-bit grey or RGB. Results do not depend on the thread count, and are the same on both backends
// (the filter's modes are; the linking and merging run on the host).
MeanShiftSegmentation mean_shift_segment(HostView<const std::uint8_t> src, const MeanShiftSegmentParams& params);

// Draws the region boundaries (pixels whose right or lower neighbour has another label) over
// `image` (1 or 3 channels) in `colour` (grey: colour[0]).
void draw_boundaries(HostView<std::uint8_t> image, HostView<const std::int32_t> labels, const std::uint8_t colour[3]);

}  // namespace gpuvis::filters

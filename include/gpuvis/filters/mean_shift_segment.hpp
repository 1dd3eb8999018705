#pragma once
// Mean shift segmentation (Comaniciu & Meer 2002, with EDISON's region merging): the mean shift
// filter (either backend) gives every voxel its mode; neighbouring voxels whose modes are close
// are joined into regions, adjacent regions whose mean modes lie within h_r / 2 are fused,
// regions smaller than a minimum size are merged into their most similar neighbour, and adjacent
// regions whose mean local colours lie within h_r / 2 are fused again. Images, volumes and
// sequences of volumes; the exact definition is in docs/meanshift.md.
#include <cstdint>
#include <vector>

#include "gpuvis/core/image.hpp"
#include "gpuvis/filters/mean_shift.hpp"

namespace gpuvis::filters {

struct MeanShiftSegmentParams {
  MeanShiftParams filter;   // bandwidths, kernel, colour space, convergence, backend and progress
  // Neighbours (8-connected in 2D, 26 in 3D, 80 in 4D) whose modes differ by less than
  // connect x h_r join one region.
  float connect = 0.25f;
  // Adjacent regions whose mean modes differ by less than fuse x h_r are fused (EDISON: 0.5), and
  // after the small regions' merge those whose voxels' mean local colours (each voxel's input
  // averaged over the 5-wide box around it, in the climb's units) do (0: neither).
  float fuse = 0.5f;
  int min_size = 20;        // regions with fewer voxels merge into their most similar neighbour (0: none)
  // Standard deviation (pixels) of a Gaussian the image is smoothed with before everything else,
  // on the CPU whatever the backend, so results stay the same on all (0: none; images only, not
  // volumes). For noisy colour images: L*u*v* magnifies the noise of dark and saturated colours
  // until neighbouring regions' climbs meet; 0.7 px keeps them apart (docs/meanshift.md, "Noisy
  // colour images"). The filtered image and the regions' colours are then those of the smoothed image.
  float smooth = 0.0f;
};
void validate(const MeanShiftSegmentParams& p);

struct SegmentRegion {
  int label = 0;
  long long size = 0;              // voxels
  float mean[4] = {0, 0, 0, 0};    // mean filtered sample per channel (colour: R, G, B)
  double centroid[4] = {0, 0, 0, 0};  // x, y, z, t
  int lo[4] = {0, 0, 0, 0};        // bounding box, inclusive: x, y, z, t
  int hi[4] = {0, 0, 0, 0};
};

template <class T>
struct MeanShiftSegmentation {
  Image<std::int32_t> labels;  // 0 .. regions.size() - 1, numbered in voxel order of first voxel; stacked like the input
  Image<T> filtered;
  std::vector<SegmentRegion> regions;
};

// Images of 1 to 4 channels with 8-bit, 16-bit or float samples, or volumes / sequences stacked
// as `shape` says. Results do not depend on the thread count, and are the same on both backends
// (the filter's modes are; the linking and merging run on the host).
template <class T>
MeanShiftSegmentation<T> mean_shift_segment(HostView<const T> src, const MeanShiftSegmentParams& params, VolumeShape shape = {});

// The two halves of mean_shift_segment, for callers that run the filter in pieces
// (gpuvis.dask.mean_shift_segment filters chunks on a cluster, then segments the whole image):
// the filter keeping every voxel's mode, and the linking, fusing and merging from the filtered
// image, those modes and the source. mean_shift_segment(src) is mean_shift_segment_from_modes of
// mean_shift_modes(src) and src, exactly. `modes` holds mean_shift_mode_lanes(channels) floats per
// voxel, in voxel order: the converged range values in units of h_r; `source` is the image that was
// filtered (its local means give each region's colour for the last fusion), of filtered's shape.
int mean_shift_mode_lanes(int channels);
// The image mean_shift_segment filters: src smoothed as params.smooth says (a copy of src when 0).
// Callers of the two halves start from it, and pass it as their `source`.
template <class T>
Image<T> mean_shift_segment_input(HostView<const T> src, const MeanShiftSegmentParams& params, VolumeShape shape = {});
template <class T>
void mean_shift_modes(HostView<const T> src, HostView<T> filtered, std::vector<float>& modes, const MeanShiftParams& params,
                      VolumeShape shape = {});
template <class T>
MeanShiftSegmentation<T> mean_shift_segment_from_modes(Image<T> filtered, const std::vector<float>& modes, HostView<const T> source,
                                                       const MeanShiftSegmentParams& params, VolumeShape shape = {});

// Draws the region boundaries (pixels whose right or lower neighbour in the same slice has another
// label) over `image` (1 to 4 channels) in `colour` (grey: colour[0]). Stacked slices are
// `slice_height` rows each (0: the whole image is one slice).
template <class T>
void draw_boundaries(HostView<T> image, HostView<const std::int32_t> labels, const T colour[3], int slice_height = 0);

}  // namespace gpuvis::filters

#pragma once
// Mean shift filtering in the joint space-range domain (Comaniciu & Meer 2002): every pixel climbs
// to the mode of the density of (x / h_s, y / h_s, value / h_r) around it and takes the value of
// that mode. The exact definition (window, kernels, borders, colour space) is docs/meanshift.md.
#include <cstdint>

#include "gpuvis/core/backend.hpp"
#include "gpuvis/core/image.hpp"

namespace gpuvis::filters {

enum class MeanShiftKernel {
  epanechnikov,  // flat mean of the points inside the unit ball (the Epanechnikov profile's shadow)
  gaussian,      // weights exp(-2 d^2) (sigma 1/2), truncated at d = 1
};
enum class MeanShiftColour {
  luv,  // colour images in CIE L*u*v* (D65), as EDISON and the clMeanShift study
  rgb,  // the raw channel values
};

struct MeanShiftParams {
  float spatial = 8;   // h_s in pixels (> 0)
  float range = 16;    // h_r in value units (grey levels, or L*u*v* units for colour in luv) (> 0)
  float axial = 0;     // volumes: h_z across slices, in slices (0: the spatial bandwidth h_s)
  MeanShiftKernel kernel = MeanShiftKernel::epanechnikov;
  MeanShiftColour colour = MeanShiftColour::luv;
  float eps = 0.01f;   // convergence: a step shorter than this (normalised units) ends the climb
  int max_iter = 100;  // at most this many steps per pixel
  Backend backend = Backend::automatic;  // resolved by resolve_backend(): CUDA when a device is usable
};

void validate(const MeanShiftParams& p);  // throws ErrorCode::invalid_argument naming the problem

// 8-bit grey or RGB images (1 or 3 channels); dst has src's shape. Results do not depend on the
// thread count.
void mean_shift_filter(HostView<const std::uint8_t> src, HostView<std::uint8_t> dst, const MeanShiftParams& params);

// Volumes (3D): `depth` slices of one size stacked in one image, slice z being rows z*h .. z*h+h-1
// (h = height / depth). Every voxel climbs in (x / h_s, y / h_s, z / h_z, value / h_r) with h_z =
// params.axial (h_s when 0); the window is clipped at the volume's faces. A volume of one slice is
// the image filter. dst has src's shape.
void mean_shift_filter_volume(HostView<const std::uint8_t> slices, HostView<std::uint8_t> dst, int depth,
                              const MeanShiftParams& params);

// The colour conversions used (EDISON's: linear RGB in [0, 255] to XYZ with D65 white, no gamma).
void rgb_to_luv(const std::uint8_t rgb[3], float luv[3]);
void luv_to_rgb(const float luv[3], std::uint8_t rgb[3]);

}  // namespace gpuvis::filters

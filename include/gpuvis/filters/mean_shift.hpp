#pragma once
// Mean shift filtering in the joint space-range domain (Comaniciu & Meer 2002): every pixel (or
// voxel) climbs to the mode of the density of (x / h_s, y / h_s, z / h_z, t / h_t, value / h_r)
// around it and takes the value of that mode. The exact definition (window, kernels, borders,
// colour space, volumes, sequences) is docs/meanshift.md.
#include <array>
#include <cstdint>
#include <functional>

#include "gpuvis/core/backend.hpp"
#include "gpuvis/core/image.hpp"
#include "gpuvis/core/volume.hpp"

namespace gpuvis::filters {

enum class MeanShiftKernel {
  epanechnikov,  // flat mean of the points inside the unit ball (the Epanechnikov profile's shadow)
  gaussian,      // weights exp(-2 d^2) (sigma 1/2), truncated at d = 1
};
enum class MeanShiftColour {
  luv,  // the first three channels of 3- and 4-channel images in CIE L*u*v* (D65), as EDISON and the clMeanShift study
  rgb,  // the raw channel values
};

struct MeanShiftParams {
  float spatial = 8;   // h_s in pixels, along x and y (> 0)
  float range = 16;    // h_r in value units (grey levels, or L*u*v* units for colour in luv) (> 0)
  // Per-channel range bandwidths (the study's sigma vector): entry c > 0 replaces `range` for
  // channel c (L*, u*, v* in luv).
  std::array<float, 4> channel_range{0, 0, 0, 0};
  float axial = 0;     // volumes: h_z across slices, in slices (0: the spatial bandwidth h_s)
  float time = 0;      // sequences of volumes: h_t across frames, in frames (0: h_s)
  MeanShiftKernel kernel = MeanShiftKernel::epanechnikov;
  MeanShiftColour colour = MeanShiftColour::luv;
  float eps = 0.01f;   // convergence: a step shorter than this (normalised units) ends the climb
  int max_iter = 100;  // at most this many steps per voxel
  Backend backend = Backend::automatic;  // resolved by resolve_backend(): CUDA when a device is usable
  // Called from the calling thread now and then with the fraction of voxels whose climb has ended
  // (0..1); may be empty.
  std::function<void(double)> progress;

  float range_of(int channel) const { return channel_range[channel] > 0 ? channel_range[channel] : range; }
};

void validate(const MeanShiftParams& p);  // throws ErrorCode::invalid_argument naming the problem

// Images of 1 to 4 channels with 8-bit, 16-bit or float samples (T = std::uint8_t, std::uint16_t,
// float); dst has src's shape. Float samples are taken as they are (luv expects RGB in [0, 1]).
// Results do not depend on the thread count, and are the same on both backends.
template <class T>
void mean_shift_filter(HostView<const T> src, HostView<T> dst, const MeanShiftParams& params);

// Volumes (3D) and sequences of volumes (4D), stacked as VolumeShape (gpuvis/core/volume.hpp) says. Every voxel climbs in
// (x / h_s, y / h_s, z / h_z, t / h_t, value / h_r); the window is clipped at the faces. A shape of
// one slice and one frame is the image filter, bit for bit.
template <class T>
void mean_shift_filter_volume(HostView<const T> stacked, HostView<T> dst, VolumeShape shape, const MeanShiftParams& params);

// The colour conversions used (EDISON's: linear RGB in [0, 255] to XYZ with D65 white, no gamma),
// the same on both backends.
void rgb_to_luv(const std::uint8_t rgb[3], float luv[3]);
void luv_to_rgb(const float luv[3], std::uint8_t rgb[3]);

}  // namespace gpuvis::filters

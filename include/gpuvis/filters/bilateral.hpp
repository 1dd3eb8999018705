#pragma once
// Bilateral filter (Tomasi & Manduchi): each output pixel is the average of its neighbours within
// a circle of `radius`, weighted by exp(-r²/2σs²) for the spatial distance r and exp(-d²/2σr²) for
// the range distance d between the values. CPU and CUDA backends.
#include <cstdint>

#include "gpuvis/core/backend.hpp"
#include "gpuvis/core/image.hpp"
#include "gpuvis/filters/convolve.hpp"

namespace gpuvis::filters {

enum class RangeMode {
  colour,       // one weight per pixel from the colour distance (all channels but alpha)
  per_channel,  // each channel filtered on its own
};
enum class ColourDistance {
  l2,  // Euclidean distance between colours
  l1,  // sum of absolute channel differences (OpenCV's bilateralFilter on 8-bit colour)
};

struct BilateralParams {
  int radius = 3;            // window: all (dx, dy) with dx² + dy² <= radius²
  float sigma_space = 3;     // > 0
  float sigma_range = 30;    // > 0 (in the image's units)
  bool adaptive = false;     // σr per pixel = 2 x the standard deviation in the window
  RangeMode mode = RangeMode::colour;
  ColourDistance distance = ColourDistance::l2;
  Border border;             // default reflect101, as OpenCV
  // Where it runs; automatic: CUDA when a device is usable, else the CPU (resolve_backend).
  Backend backend = Backend::automatic;
};

void validate(const BilateralParams& p);  // throws ErrorCode::invalid_argument naming the problem

// src and dst: same size, type and channels; must not overlap.
template <class T>
void bilateral(HostView<const T> src, HostView<T> dst, const BilateralParams& params);

}  // namespace gpuvis::filters

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
};

void validate(const BilateralParams& p);  // throws ErrorCode::invalid_argument naming the problem

template <class T>
void bilateral_cpu(HostView<const T> src, HostView<T> dst, const BilateralParams& params);
template <class T>
void bilateral_cuda(HostView<const T> src, HostView<T> dst, const BilateralParams& params);

template <class T>
void bilateral(HostView<const T> src, HostView<T> dst, const BilateralParams& params, Backend backend) {
  if (backend == Backend::cuda) bilateral_cuda(src, dst, params);
  else bilateral_cpu(src, dst, params);
}

}  // namespace gpuvis::filters

#pragma once
// 2D and separable convolution (correlation by default) on u8, u16 and f32 images with 1, 3 or 4
// interleaved channels, on the CPU and CUDA backends. Sums are accumulated in float (8-bit images
// under smoothing kernels: in fixed point, see ConvolveParams::fixed_point); integer results are
// rounded to nearest (ties to even) and saturated.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "gpuvis/core/backend.hpp"
#include "gpuvis/core/image.hpp"
#include "gpuvis/filters/kernel.hpp"

namespace gpuvis::filters {

enum class BorderMode {
  constant,    // outside pixels have `border_value`
  replicate,   // aaaa|abcd|dddd
  reflect,     // dcba|abcd|dcba (OpenCV BORDER_REFLECT)
  reflect101,  // dcb|abcd|cba   (OpenCV BORDER_REFLECT_101, OpenCV's default)
  wrap,        // bcd|abcd|abc
};

struct Border {
  BorderMode mode = BorderMode::reflect101;
  float value = 0;  // for constant
};

// "constant[:V]", "replicate", "reflect", "reflect101", "wrap".
Border parse_border(const std::string& text);
std::string to_string(const Border& border);

struct ConvolveParams {
  Border border;
  bool flip = false;               // true convolution (kernel rotated by 180°)
  bool allow_separable = true;     // use the two-pass path for rank-1 kernels
  // 8-bit images under a symmetric smoothing kernel (Gaussian, box, binomial: docs/filters.md says
  // which) are filtered in 16-bit fixed point, within 1 grey level of the float sums and the same
  // bytes on every backend; false keeps the float sums.
  bool fixed_point = true;
  std::size_t max_gpu_memory = 0;  // CUDA and OpenCL: device memory for the strips in flight at most (0 = no limit; OpenCL: half the device's)
  std::function<void(double)> progress;  // optional: fraction done, for long strip-processed jobs
  // Where it runs; automatic: CUDA when a device is usable, else an OpenCL GPU, else the CPU
  // (opencl::prefer_opencl_gpu). The backends give the same output (docs/filters.md states the
  // tolerance).
  Backend backend = Backend::automatic;
};

// src and dst: same size, type and channels; must not overlap. On CUDA the image goes up, is
// filtered and comes back in overlapped strips (page-locked images without staging copies).
template <class T>
void convolve(HostView<const T> src, HostView<T> dst, const Kernel& kernel, const ConvolveParams& options = {});

// The vector instructions the CPU filters use on this machine: "highway AVX2" and the like when
// built with Google Highway (chosen at run time), "portable" otherwise.
const char* cpu_vector_unit();

}  // namespace gpuvis::filters

#pragma once
// Each filter's two backends, which the public entry points (convolve, bilateral,
// mean_shift_filter) choose between; the tests and benchmarks call them directly to compare them.
#include <cstdint>

#include "gpuvis/filters/bilateral.hpp"
#include "gpuvis/filters/convolve.hpp"
#include "gpuvis/filters/mean_shift.hpp"

namespace gpuvis::filters {

// CPU: multi-threaded, results independent of the thread count.
template <class T>
void convolve_cpu(HostView<const T> src, HostView<T> dst, const Kernel& kernel, const ConvolveOptions& options = {});
// CUDA from host images: uploads (in strips when options.max_gpu_memory asks for it), filters,
// downloads. Results equal the one-shot path exactly.
template <class T>
void convolve_cuda(HostView<const T> src, HostView<T> dst, const Kernel& kernel, const ConvolveOptions& options = {});

template <class T>
void bilateral_cpu(HostView<const T> src, HostView<T> dst, const BilateralParams& params);
template <class T>
void bilateral_cuda(HostView<const T> src, HostView<T> dst, const BilateralParams& params);

// `depth` > 1: a volume of stacked slices (mean_shift_filter_volume).
void mean_shift_filter_cpu(HostView<const std::uint8_t> src, HostView<std::uint8_t> dst, const MeanShiftParams& params,
                           int depth = 1);
// One thread per pixel on the device; the colour conversions stay on the host (shared with the
// CPU), so the Epanechnikov kernel gives the CPU's results bit for bit (docs/meanshift.md).
void mean_shift_filter_cuda(HostView<const std::uint8_t> src, HostView<std::uint8_t> dst, const MeanShiftParams& params,
                            int depth = 1);

}  // namespace gpuvis::filters

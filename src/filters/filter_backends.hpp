#pragma once
// Each filter's two backends, which the public entry points (convolve, bilateral,
// mean_shift_filter) choose between; the tests and benchmarks call them directly to compare them.
#include <cstdint>
#include <vector>

#include "gpuvis/cuda/device_memory.hpp"
#include "gpuvis/filters/bilateral.hpp"
#include "gpuvis/filters/convolve.hpp"
#include "gpuvis/filters/mean_shift.hpp"
#include "filters/border_index.hpp"
#include "filters/mean_shift_common.hpp"
#include "filters/smooth_fixed.hpp"

namespace gpuvis::filters {

// CPU: multi-threaded, results independent of the thread count.
template <class T>
void convolve_cpu(HostView<const T> src, HostView<T> dst, const Kernel& kernel, const ConvolveParams& options = {});
// CUDA from host images: uploads (in strips when options.max_gpu_memory asks for it), filters,
// downloads. Results equal the one-shot path exactly.
template <class T>
void convolve_cuda(HostView<const T> src, HostView<T> dst, const Kernel& kernel, const ConvolveParams& options = {});

// 8-bit separable smoothing in fixed point on the CPU (filters/smooth_fixed.hpp), which convolve_cpu
// takes where fixed_smoothing() gives a form and ConvolveParams::fixed_point allows (as the CUDA and
// OpenCL backends do with their own kernels).
void smooth_fixed_cpu(HostView<const std::uint8_t> src, HostView<std::uint8_t> dst, const detail::FixedSmoothing& f, const Border& border);

template <class T>
void bilateral_cpu(HostView<const T> src, HostView<T> dst, const BilateralParams& params);
template <class T>
void bilateral_cuda(HostView<const T> src, HostView<T> dst, const BilateralParams& params);

// Mean shift over a stacked image or volume (mean_shift_filter_volume). `modes`, when given,
// receives every voxel's mode as features (divided by h_r, L*u*v* for luv colour), lanes<C>
// floats per voxel in voxel order; segmentation links those. `tuning` is for the benchmarks.
template <class T>
void mean_shift_filter_cpu(HostView<const T> src, HostView<T> dst, VolumeShape shape, const MeanShiftParams& params,
                           std::vector<float>* modes = nullptr, const mean_shift_detail::Tuning& tuning = {});
// The same on the device: the samples go up, the conversions, the neighbour structure and the
// climbs (in rounds, the unfinished ones gathered into a queue) run there, and the samples come
// back. Compiled without FMA contraction, so the results are the CPU's bit for bit.
template <class T>
void mean_shift_filter_cuda(HostView<const T> src, HostView<T> dst, VolumeShape shape, const MeanShiftParams& params,
                            std::vector<float>* modes = nullptr, const mean_shift_detail::Tuning& tuning = {});

// Mean shift on the backend `params.backend` names (auto: CUDA, then an OpenCL GPU, then the CPU),
// for the filter and the segmentation (mean_shift_common.cpp).
template <class T>
void mean_shift_filter_any(HostView<const T> src, HostView<T> dst, VolumeShape shape, const MeanShiftParams& params,
                           std::vector<float>* modes = nullptr);

// The CUDA filters on the caller's device memory (filters/cuda/device_entry.cu), behind the public
// device entry points (gpuvis/filters/device.hpp). Like every *_cuda function above, called only
// where cuda::kBuilt (cuda/built.hpp).
template <class T>
void convolve_on_device(DeviceView<const T> src, DeviceView<T> dst, const Kernel& kernel, const ConvolveParams& options,
                        cuda::StreamHandle stream);
template <class T>
void bilateral_on_device(DeviceView<const T> src, DeviceView<T> dst, const BilateralParams& params, cuda::StreamHandle stream);
// `modes`, when given, as mean_shift_filter_cuda's (on the host).
template <class T>
void mean_shift_on_device(DeviceView<const T> src, DeviceView<T> dst, VolumeShape shape, const MeanShiftParams& params,
                          cuda::StreamHandle stream, std::vector<float>* modes = nullptr);

}  // namespace gpuvis::filters

#pragma once
// The OpenCL backend of the filters (convolve_opencl.cpp, bilateral_opencl.cpp, mean_shift_opencl.cpp).
#include <vector>

#include "gpuvis/filters/bilateral.hpp"
#include "gpuvis/filters/convolve.hpp"
#include "gpuvis/filters/mean_shift.hpp"

namespace gpuvis::filters {

// filters::convolve on the OpenCL device (opencl::chosen_device): every sample type, channel count,
// border and kernel the CPU takes; the image must fit in the device's memory.
template <class T>
void convolve_opencl(HostView<const T> src, HostView<T> dst, const Kernel& kernel, const ConvolveParams& options);

// filters::bilateral on the OpenCL device: every sample type, channel count, border, radius, range
// mode and distance the CPU takes, adaptive σr too, the same bytes as the CPU; the image must fit
// in the device's memory.
template <class T>
void bilateral_opencl(HostView<const T> src, HostView<T> dst, const BilateralParams& params);

// Mean shift over a stacked image or volume on the OpenCL device (the CPU's modes bit for bit;
// `modes` as mean_shift_filter_cpu gives them); everything must fit in the device's memory.
template <class T>
void mean_shift_filter_opencl(HostView<const T> src, HostView<T> dst, VolumeShape shape, const MeanShiftParams& params,
                              std::vector<float>* modes = nullptr);

}  // namespace gpuvis::filters

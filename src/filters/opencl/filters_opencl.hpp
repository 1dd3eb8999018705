#pragma once
// The OpenCL backend of the filters (convolve_opencl.cpp); the others are not on OpenCL yet.
#include "gpuvis/filters/convolve.hpp"

namespace gpuvis::filters {

// filters::convolve on the OpenCL device (opencl::chosen_device): every sample type, channel count,
// border and kernel the CPU takes; the image must fit in the device's memory.
template <class T>
void convolve_opencl(HostView<const T> src, HostView<T> dst, const Kernel& kernel, const ConvolveParams& options);

}  // namespace gpuvis::filters

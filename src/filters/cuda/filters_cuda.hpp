#pragma once
// Device-level entry points of the CUDA filters, for callers that keep images on the GPU
// (pipelines, benchmarks). Asynchronous on `stream`; the whole image must fit in device memory
// (the host-level convolve_cuda() processes larger images in strips).
#include <cuda_runtime_api.h>

#include "cuda/memory.hpp"
#include "gpuvis/filters/bilateral.hpp"
#include "gpuvis/filters/convolve.hpp"

namespace gpuvis::filters::cuda_impl {

// `workspace` holds the separable path's intermediate rows; it grows on demand.
template <class T>
void convolve(DeviceView<const T> src, DeviceView<T> dst, const Kernel& kernel, const ConvolveParams& options,
              gpuvis::cuda::DeviceBuffer& workspace, cudaStream_t stream);

template <class T>
void bilateral(DeviceView<const T> src, DeviceView<T> dst, const BilateralParams& params, cudaStream_t stream);

}  // namespace gpuvis::filters::cuda_impl

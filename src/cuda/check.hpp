#pragma once
// Every CUDA runtime call goes through GPUVIS_CUDA_CHECK: a failure becomes a gpuvis::Error with
// the call, file, line and CUDA's message. Kernel launches are followed by GPUVIS_CUDA_CHECK_LAUNCH.
#include <cuda_runtime_api.h>

#include <string>

#include "gpuvis/core/error.hpp"

namespace gpuvis::cuda {

[[noreturn]] void throw_cuda_error(cudaError_t status, const char* expr, const char* file, int line);

}  // namespace gpuvis::cuda

#define GPUVIS_CUDA_CHECK(expr)                                                        \
  do {                                                                                 \
    const cudaError_t gpuvis_status_ = (expr);                                         \
    if (gpuvis_status_ != cudaSuccess)                                                 \
      ::gpuvis::cuda::throw_cuda_error(gpuvis_status_, #expr, __FILE__, __LINE__);     \
  } while (0)

#define GPUVIS_CUDA_CHECK_LAUNCH() GPUVIS_CUDA_CHECK(cudaGetLastError())

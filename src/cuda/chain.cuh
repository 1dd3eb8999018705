#pragma once
// Kernels that follow each other on one stream, chained with Hopper's programmatic dependent
// launch: a chained kernel may be scheduled onto the GPU while its predecessor is still running,
// and waits for it on the device (await_previous_kernel) instead of being started by the
// scheduler after it. On a small frame most of the frame's ~20 kernels do little work, and the gap
// between one kernel's end and the next one's start is a large part of each; chaining overlaps the
// next kernel's launch with the end of the current one (CUDA graphs keep the chain as
// programmatic edges).
//
// The contract, which makes chaining as safe as plain stream order:
// - every thread of a chained kernel calls await_previous_kernel() before it touches global
//   memory and before any early return, so the kernel cannot finish before its predecessor has,
//   and each kernel of a chain therefore also waits for all kernels before its predecessor;
// - await_previous_kernel() then lets the next kernel of the chain be scheduled.
// Without sm_90, or when a kernel is launched without the attribute, both are no-ops.
#include <cuda_runtime.h>  // cudaLaunchKernelEx's typed overload

#include <cstddef>
#include <utility>

#include "cuda/check.hpp"
#include "gpuvis/cuda/runtime.hpp"

namespace gpuvis::cuda {

// Allows the next chained kernel of the stream to be scheduled now (it still waits for this one's
// results in its own await_previous_kernel()). The first kernel of a chain, which waits for nothing
// on the device, calls this first.
__device__ __forceinline__ void allow_next_kernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaTriggerProgrammaticLaunchCompletion();
#endif
}

// Waits until the previous kernel of the stream has finished and its writes are visible, then
// allows the next chained kernel to be scheduled. First statement of every chained kernel.
__device__ __forceinline__ void await_previous_kernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();
#endif
  allow_next_kernel();
}

// Launches kernel<<<grid, block, smem, stream>>>(args...) chained to the stream's previous kernel
// (when the device supports it). The kernel must start with await_previous_kernel().
template <class... Params, class... Args>
void launch_chained(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t smem, cudaStream_t stream,
                    Args&&... args) {
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = smem;
  config.stream = stream;
  cudaLaunchAttribute chained{};
  chained.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  chained.val.programmaticStreamSerializationAllowed = 1;
  config.attrs = &chained;
  config.numAttrs = current_device_major() >= 9 ? 1 : 0;
  GPUVIS_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...));
}

}  // namespace gpuvis::cuda

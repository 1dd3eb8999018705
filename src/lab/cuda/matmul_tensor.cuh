#pragma once
// The lab's tensor-core matrix products (matmul_tensor.cu): row-major n x n, C = A B, on the
// device's tensor cores through the warp-level mma.sync instructions. bf16 inputs accumulate in
// f32; f32 inputs are rounded to TF32 (f32 accumulation); f64 runs on the FP64 tensor cores
// (DMMA), which compute f64 fused multiply-adds exactly as the FMA units do. Compute capability
// 8.0 or newer (the caller checks).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace gpuvis::lab::cuda_impl {

void launch_tensor(const __nv_bfloat16* a, const __nv_bfloat16* b, float* c, int n, cudaStream_t stream);
void launch_tensor(const float* a, const float* b, float* c, int n, cudaStream_t stream);
void launch_tensor(const double* a, const double* b, double* c, int n, cudaStream_t stream);

// Hopper's warpgroup products (wgmma, matmul_wgmma.cu), in builds for compute capability 9.0
// (GPUVIS_LAB_WGMMA): bf16, and f32 as TF32, for n a multiple of 8 (bf16) or 4 (f32) on a device of
// compute capability 9.0. launch_tensor takes them there.
void launch_tensor_wgmma(const __nv_bfloat16* a, const __nv_bfloat16* b, float* c, int n, cudaStream_t stream);
void launch_tensor_wgmma(const float* a, const float* b, float* c, int n, cudaStream_t stream);

}  // namespace gpuvis::lab::cuda_impl

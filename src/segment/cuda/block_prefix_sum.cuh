#pragma once
// Prefix sums of the segmentation's small arrays in one chained launch of one block.
//
// CUB's device-wide scan is two kernels (tile-state initialisation, then the scan with decoupled
// look-back), and neither is chained (cuda/chain.cuh): on a camera frame its ~10 000 elements cost
// two launch gaps for a few hundred nanoseconds of work. One block of 1024 threads scans up to
// kOneBlockMax elements instead (the word numbering of a 640x480 frame: 9 601 elements, the list
// offsets of a 1280x720 frame: 14 400). Larger arrays keep CUB's scan, which uses
// the whole GPU: measured on an H100 (run of 2026-11-22 (cfe2a3b)), one block over the 32 400 list offsets
// of a 1920x1080 frame made it 216-217 us end to end against 207-210 with CUB's scan.
#include "cuda/chain.cuh"

namespace gpuvis::segment::cuda_impl {

constexpr int kScanThreads = 1024;
constexpr int kOneBlockMax = 16384;

template <class T>
__device__ __forceinline__ T warp_inclusive_sum(T v, int lane) {
#pragma unroll
  for (int d = 1; d < 32; d *= 2) {
    const T t = __shfl_up_sync(0xffffffffu, v, d);
    if (lane >= d) v += t;
  }
  return v;
}

// out[i] = in[0] + ... + in[i - 1] (exclusive) or + in[i] (inclusive), for i < n <= kOneBlockMax,
// by the whole block (kScanThreads threads; every thread must call it, it has barriers). `in` is a
// pointer or an iterator indexed by int; T is the sum's type. The caller syncs before reading
// `out`. Each warp owns a contiguous segment of at most kSteps * 32 elements and loads all of it
// at once into registers (one memory latency, not one per step), sums it, the warps' sums are
// scanned, and the warp scans its segment 32 elements a step with a carry.
template <bool kInclusive, class T, class In>
__device__ void block_prefix_sum_in_block(In in, T* out, int n) {
  constexpr int kWarps = kScanThreads / 32;
  constexpr int kSteps = kOneBlockMax / kScanThreads;
  static_assert(kWarps == 32, "warp 0 scans one offset per lane");
  __shared__ T warp_offset[kWarps];
  const int lane = static_cast<int>(threadIdx.x) % 32, warp = static_cast<int>(threadIdx.x) / 32;
  const int per_warp = (n + kScanThreads - 1) / kScanThreads * 32;
  const int begin = min(n, warp * per_warp), end = min(n, begin + per_warp);
  T v[kSteps];
  T sum = 0;
#pragma unroll
  for (int k = 0; k < kSteps; ++k) {
    const int i = begin + k * 32 + lane;
    v[k] = i < end ? static_cast<T>(in[i]) : T(0);
  }
#pragma unroll
  for (int k = 0; k < kSteps; ++k) sum += v[k];
#pragma unroll
  for (int d = 16; d > 0; d /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, d);
  if (lane == 0) warp_offset[warp] = sum;
  __syncthreads();
  if (warp == 0) {
    const T total = warp_offset[lane];
    warp_offset[lane] = warp_inclusive_sum(total, lane) - total;
  }
  __syncthreads();
  T carry = warp_offset[warp];
#pragma unroll
  for (int k = 0; k < kSteps; ++k) {  // uniform in the warp: the shuffles need every lane
    if (begin + k * 32 >= end) break;
    const int i = begin + k * 32 + lane;
    const T inclusive = warp_inclusive_sum(v[k], lane);
    if (i < end) out[i] = carry + (kInclusive ? inclusive : inclusive - v[k]);
    carry += __shfl_sync(0xffffffffu, inclusive, 31);
  }
}

template <bool kInclusive, class T, class In>
__global__ void __launch_bounds__(kScanThreads) block_prefix_sum(In in, T* out, int n) {
  gpuvis::cuda::await_previous_kernel();
  block_prefix_sum_in_block<kInclusive, T>(in, out, n);
}

template <bool kInclusive, class T, class In>
void launch_block_prefix_sum(In in, T* out, int n, cudaStream_t stream) {
  gpuvis::cuda::launch_chained(block_prefix_sum<kInclusive, T, In>, dim3(1), dim3(kScanThreads), 0, stream, in, out, n);
}

}  // namespace gpuvis::segment::cuda_impl

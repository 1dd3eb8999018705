#pragma once
// Sliding-window reductions over lines held in shared memory: the van Herk / Gil-Werman scheme on
// the GPU. A line of n outputs is stored with its 2r halo as len = n + 2r padded elements; it is cut
// into blocks of k = 2r+1 and each (line, block) pair is one work item that computes the block's
// prefix (g) and suffix (s) reductions sequentially. The window starting at padded index y is
// op(s[y], g[y+2r]), or s[y] alone when y starts a block (needed for sums, harmless for max/min).
// Cost per element is constant whatever r is. Two reductions run side by side (max and min) so
// their dependency chains overlap.
#include <cstdint>

namespace gpuvis::threshold::cuda_impl {

struct MaxOp {
  template <class T> __device__ static T apply(T a, T b) { return a > b ? a : b; }
};
struct MinOp {
  template <class T> __device__ static T apply(T a, T b) { return a < b ? a : b; }
};
// Four packed bytes at once (SIMD within a 32-bit word).
struct MaxU4 {
  __device__ static unsigned apply(unsigned a, unsigned b) { return __vmaxu4(a, b); }
};
struct MinU4 {
  __device__ static unsigned apply(unsigned a, unsigned b) { return __vminu4(a, b); }
};
struct SumOp {
  template <class T> __device__ static T apply(T a, T b) { return static_cast<T>(a + b); }
};

// LINES lines of `len` elements. Vertical tiles interleave lines (element i of line l at
// i*LINES + l, so a warp reading one element of 32 lines hits 32 consecutive addresses);
// horizontal tiles store lines one after another.
template <int LINES, bool VERTICAL>
struct Tile {
  int len;
  __device__ int at(int l, int i) const { return VERTICAL ? i * LINES + l : l * len + i; }
};

// Fills gA/sA (with OpA over inA) and gB/sB (OpB over inB) for every k-block of every line. All
// threads of the block take part; __syncthreads() before reading the results. sA may alias inA
// (the suffix pass reads each input before overwriting it), which saves a shared array.
template <class OpA, class OpB, class T, int LINES, bool V>
__device__ void prefix_suffix(const T* inA, const T* inB, T* gA, T* sA, T* gB, T* sB, Tile<LINES, V> t, int k) {
  // (inA and sA may be the same array; nothing here is __restrict__.)
  const int blocks = (t.len + k - 1) / k;
  const int nthreads = blockDim.x * blockDim.y;
  for (int item = threadIdx.x + threadIdx.y * blockDim.x; item < LINES * blocks; item += nthreads) {
    const int l = item % LINES, b = (item / LINES) * k;
    const int e = min(b + k, t.len);
    T a = inA[t.at(l, b)], c = inB[t.at(l, b)];
    gA[t.at(l, b)] = a;
    gB[t.at(l, b)] = c;
#pragma unroll 4
    for (int i = b + 1; i < e; ++i) {
      a = OpA::apply(a, inA[t.at(l, i)]);
      c = OpB::apply(c, inB[t.at(l, i)]);
      gA[t.at(l, i)] = a;
      gB[t.at(l, i)] = c;
    }
    a = inA[t.at(l, e - 1)];
    c = inB[t.at(l, e - 1)];
    sA[t.at(l, e - 1)] = a;
    sB[t.at(l, e - 1)] = c;
#pragma unroll 4
    for (int i = e - 2; i >= b; --i) {
      a = OpA::apply(a, inA[t.at(l, i)]);
      c = OpB::apply(c, inB[t.at(l, i)]);
      sA[t.at(l, i)] = a;
      sB[t.at(l, i)] = c;
    }
  }
}

// One reduction only (the Bradley-Roth sums).
template <class Op, class T, int LINES, bool V>
__device__ void prefix_suffix(const T* in, T* g, T* s, Tile<LINES, V> t, int k) {
  const int blocks = (t.len + k - 1) / k;
  const int nthreads = blockDim.x * blockDim.y;
  for (int item = threadIdx.x + threadIdx.y * blockDim.x; item < LINES * blocks; item += nthreads) {
    const int l = item % LINES, b = (item / LINES) * k;
    const int e = min(b + k, t.len);
    T a = in[t.at(l, b)];
    g[t.at(l, b)] = a;
#pragma unroll 4
    for (int i = b + 1; i < e; ++i) {
      a = Op::apply(a, in[t.at(l, i)]);
      g[t.at(l, i)] = a;
    }
    a = in[t.at(l, e - 1)];
    s[t.at(l, e - 1)] = a;
#pragma unroll 4
    for (int i = e - 2; i >= b; --i) {
      a = Op::apply(a, in[t.at(l, i)]);
      s[t.at(l, i)] = a;
    }
  }
}

// The window [y, y+2r] of line l (padded-local indices); `starts_block` = (y % k == 0).
template <class Op, class T, int LINES, bool V>
__device__ T window(const T* g, const T* s, Tile<LINES, V> t, int l, int y, int k, bool starts_block) {
  const T sv = s[t.at(l, y)];
  return starts_block ? sv : Op::apply(sv, g[t.at(l, y + k - 1)]);
}

// floor(y / k) for 0 <= y < 2^23, k >= 1, without an integer division. Exact: (y + 0.5) / k is at
// least 0.5/k away from an integer, while the float error is about (y/k) * 2^-24 < 0.5/k.
__device__ inline int div_small(int y, float inv_k) { return __float2int_rz((static_cast<float>(y) + 0.5f) * inv_k); }

}  // namespace gpuvis::threshold::cuda_impl

#pragma once
// Sliding-window reductions over lines held in shared memory: the van Herk / Gil-Werman scheme on
// the GPU. A line of n outputs is stored with its 2r halo as len = n + 2r padded elements (neutral
// values outside the image); it is cut into blocks of k = 2r+1 and each (line, block) pair is one
// work item that computes the block's prefix (g) and suffix (s) reductions sequentially. The
// window starting at padded index y is then op(s[y], g[y+2r]), or s[y] alone when y starts a block
// (needed for sums, harmless for max/min). Cost per element is constant whatever r is.
#include <cstdint>

namespace gpuvis::threshold::cuda_impl {

struct MaxOp {
  template <class T> __device__ static T apply(T a, T b) { return a > b ? a : b; }
};
struct MinOp {
  template <class T> __device__ static T apply(T a, T b) { return a < b ? a : b; }
};
struct SumOp {
  template <class T> __device__ static T apply(T a, T b) { return a + b; }
};

// Addressing of element i of line l inside a shared array: l * line_stride + i * elem_stride.
struct LineLayout {
  int lines, len, line_stride, elem_stride;
  __device__ int at(int l, int i) const { return l * line_stride + i * elem_stride; }
};

// Fills g (block prefix) and s (block suffix) for every line of `in`; all threads of the block
// take part. Requires a __syncthreads() after it before g/s are read.
template <class Op, class T>
__device__ void block_prefix_suffix(const T* in, T* g, T* s, const LineLayout& L, int k) {
  const int blocks_per_line = (L.len + k - 1) / k;
  const int items = L.lines * blocks_per_line;
  const int tid = threadIdx.x + threadIdx.y * blockDim.x;
  const int nthreads = blockDim.x * blockDim.y;
  for (int item = tid; item < items; item += nthreads) {
    // Consecutive threads take consecutive lines: for the vertical layout (elem_stride = lines)
    // they then touch consecutive banks.
    const int l = item % L.lines;
    const int b = (item / L.lines) * k;
    const int e = min(b + k, L.len);
    T acc = in[L.at(l, b)];
    g[L.at(l, b)] = acc;
    for (int i = b + 1; i < e; ++i) {
      acc = Op::apply(acc, in[L.at(l, i)]);
      g[L.at(l, i)] = acc;
    }
    acc = in[L.at(l, e - 1)];
    s[L.at(l, e - 1)] = acc;
    for (int i = e - 2; i >= b; --i) {
      acc = Op::apply(acc, in[L.at(l, i)]);
      s[L.at(l, i)] = acc;
    }
  }
}

// The window [y, y+2r] of line l (padded indices).
template <class Op, class T>
__device__ T window(const T* g, const T* s, const LineLayout& L, int l, int y, int k) {
  const T sv = s[L.at(l, y)];
  return (y % k == 0) ? sv : Op::apply(sv, g[L.at(l, y + k - 1)]);
}

}  // namespace gpuvis::threshold::cuda_impl

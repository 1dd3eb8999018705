// Connected components of a binary frame, both colours at once, 4-connectivity, as a union-find
// forest over pixel indices whose roots are the smallest index of each component.
//
// A warp handles 32 consecutive pixels of one row. Each pixel starts pointing at the start of its
// run inside that 32-pixel span (found with one ballot), so a span's run is already one tree.
// Unions are then only needed where something begins: at each span's first pixel with its west
// neighbour, and vertically wherever a span run begins in this row or in the row above (the first
// pixel of every overlap between a run above and a run below). Unions use atomicMin on the parent
// of the larger root (Playne & Hawick, "A new algorithm for parallel connected-component
// labelling on GPUs", 2018): parents only ever decrease, so roots stay the smallest index and
// concurrent unions cannot create cycles. A final pass points every pixel at its root.
#include "gpuvis/cuda/check.hpp"
#include "labels.cuh"

namespace gpuvis::segment::cuda_impl {
namespace {

constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kRows = 8;  // rows per block; a block is 32 x kRows threads

__device__ __forceinline__ int find_root(const std::int32_t* label, int a) {
  for (int p = label[a]; p != a; p = label[a]) a = p;
  return a;
}

__device__ void unite(std::int32_t* label, int a, int b) {
  for (;;) {
    a = find_root(label, a);
    b = find_root(label, b);
    if (a == b) return;
    if (a > b) {
      const int t = a;
      a = b;
      b = t;
    }
    // b is (or was) a root bigger than a: hang it under a unless someone changed it meanwhile.
    const int old = atomicMin(&label[b], a);
    if (old == b) return;
    b = old;  // b had already been hung elsewhere: unite a with where it went
  }
}

struct SpanPixel {
  bool inside, white, span_start;
};

// The pixel (x, y) of a 32-pixel span and whether a span run starts there. Every lane of the
// warp must call this (it uses warp shuffles), inside the image or not.
__device__ __forceinline__ SpanPixel span_pixel(DeviceView<const std::uint8_t> bin, int x, int y, int lane) {
  const bool inside = x < bin.width && y >= 0 && y < bin.height;
  const bool white = inside && bin.row(y)[x] != 0;
  const bool west = __shfl_up_sync(kFullMask, white, 1);
  return {inside, white, lane == 0 || white != west};
}

__global__ void init_labels(DeviceView<const std::uint8_t> bin, std::int32_t* label) {
  const int lane = threadIdx.x;
  const int x = blockIdx.x * 32 + lane, y = blockIdx.y * kRows + threadIdx.y;
  const SpanPixel p = span_pixel(bin, x, y, lane);
  const unsigned starts = __ballot_sync(kFullMask, p.span_start);
  if (!p.inside) return;
  const int first = 31 - __clz(starts & (kFullMask >> (31 - lane)));  // last start at or before lane
  const int index = y * bin.width + x;
  label[index] = index - (lane - first);
}

__global__ void merge_labels(DeviceView<const std::uint8_t> bin, std::int32_t* label) {
  const int lane = threadIdx.x;
  const int x = blockIdx.x * 32 + lane, y = blockIdx.y * kRows + threadIdx.y;
  const SpanPixel here = span_pixel(bin, x, y, lane);
  const SpanPixel above = span_pixel(bin, x, y - 1, lane);
  if (!here.inside) return;
  const int index = y * bin.width + x;
  if (lane == 0 && x > 0 && here.white == (bin.row(y)[x - 1] != 0)) unite(label, index, index - 1);
  if (y > 0 && here.white == above.white && (here.span_start || above.span_start))
    unite(label, index, index - bin.width);
}

__global__ void flatten_labels(int n, std::int32_t* label) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) label[i] = find_root(label, i);
}

}  // namespace

void label_pixels(DeviceView<const std::uint8_t> binary, std::int32_t* label, cudaStream_t stream) {
  const dim3 block(32, kRows);
  const dim3 grid((binary.width + 31) / 32, (binary.height + kRows - 1) / kRows);
  init_labels<<<grid, block, 0, stream>>>(binary, label);
  GPUVIS_CUDA_CHECK_LAUNCH();
  merge_labels<<<grid, block, 0, stream>>>(binary, label);
  GPUVIS_CUDA_CHECK_LAUNCH();
  const int n = binary.width * binary.height;
  flatten_labels<<<(n + 255) / 256, 256, 0, stream>>>(n, label);
  GPUVIS_CUDA_CHECK_LAUNCH();
}

}  // namespace gpuvis::segment::cuda_impl

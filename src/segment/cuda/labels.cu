// Connected components of a binary frame, both colours at once, 4-connectivity, as a union-find
// forest over pixel indices whose roots are the smallest index of each component.
//
// Block-based union-find (after Allegretti, Bolelli & Grana's BUF): a block labels its 32 x 16 tile
// in shared memory, then only the tile borders are merged in global memory. Inside a tile, a warp
// holds one 32-pixel row span and each pixel starts pointing at the start of its run within the
// span (one ballot), so a span's run is already one tree; vertical unions are only needed where a
// span run begins in this row or in the row above (the first pixel of every overlap). Unions use
// atomicMin on the parent of the larger root (Playne & Hawick, "A new algorithm for parallel
// connected-component labelling on GPUs", 2018): parents only ever decrease, so roots stay the
// smallest index and concurrent unions cannot create cycles. The border unions run in global
// memory with finds that halve the path as they walk, and only where a run begins on either side
// of the border. A final pass points every pixel at its root and, a warp being one 32-pixel word of
// the raster, writes each word's root and run-start bits with two ballots.
#include "gpuvis/cuda/chain.cuh"
#include "gpuvis/cuda/check.hpp"
#include "labels.cuh"

namespace gpuvis::segment::cuda_impl {
namespace {

constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kRows = 16;  // rows per tile; a block is one 32 x kRows tile, one thread per pixel

__device__ __forceinline__ int find_root(const std::int32_t* label, int a) {
  for (int p = label[a]; p != a; p = label[a]) a = p;
  return a;
}

// Root of a in global memory, halving the path on the way: each visited node is pointed at its
// grandparent (both are ancestors, so a racing union loses nothing, as in Jaiganesh & Burtscher's
// ECL-CC). Without it the tile roots of a frame-sized background chain up through every tile above
// them, and every later find walks the chain (4K: 104 us for the merge, 38 for the flattening).
// Loads bypass L1: other blocks change parents during the kernel.
__device__ int find_halving(std::int32_t* label, int a) {
  int p = __ldcg(label + a);
  while (p != a) {
    const int g = __ldcg(label + p);
    if (g == p) return p;
    label[a] = g;
    a = g;
    p = __ldcg(label + a);
  }
  return a;
}

// Joins the trees of a and b. kGlobal: the forest is in global memory and finds halve paths;
// otherwise it is one tile's forest in shared memory, where chains are short.
template <bool kGlobal>
__device__ void unite(std::int32_t* label, int a, int b) {
  for (;;) {
    a = kGlobal ? find_halving(label, a) : find_root(label, a);
    b = kGlobal ? find_halving(label, b) : find_root(label, b);
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

// Labels each tile in shared memory; writes, for every pixel, the global index of its tile-local
// root (the tile's smallest pixel of that component, so parents still point to smaller indices).
__global__ void label_tiles(DeviceView<const std::uint8_t> bin, std::int32_t* label) {
  gpuvis::cuda::await_previous_kernel();
  __shared__ std::int32_t local[kRows * 32];
  const int lane = threadIdx.x, ly = threadIdx.y;
  const int x = blockIdx.x * 32 + lane, y = blockIdx.y * kRows + ly;
  const SpanPixel here = span_pixel(bin, x, y, lane);
  const SpanPixel above = span_pixel(bin, x, y - 1, lane);
  const unsigned starts = __ballot_sync(kFullMask, here.span_start);
  const int first = 31 - __clz(starts & (kFullMask >> (31 - lane)));  // last start at or before lane
  const int li = ly * 32 + lane;
  local[li] = ly * 32 + first;
  __syncthreads();
  if (here.inside && ly > 0 && here.white == above.white && (here.span_start || above.span_start))
    unite<false>(local, li, li - 32);
  __syncthreads();
  if (!here.inside) return;
  const int root = find_root(local, li);
  label[y * bin.width + x] = (blockIdx.y * kRows + root / 32) * bin.width + blockIdx.x * 32 + root % 32;
}

// Unions across tile borders: a tile's first row with the row above where a span run begins, and
// its first column with the west neighbour's last where a vertical run of equal pixels begins on
// either side (below that, both columns are already joined inside their tiles).
// One block of two warps per tile: warp 0 takes the first row, warp 1 the first column.
__global__ void merge_tile_borders(DeviceView<const std::uint8_t> bin, std::int32_t* label) {
  gpuvis::cuda::await_previous_kernel();
  const int lane = threadIdx.x, ly = threadIdx.y;
  const int x = blockIdx.x * 32 + lane, y = blockIdx.y * kRows + ly;
  const int index = y * bin.width + x;
  if (ly == 0) {  // the tile's first row: a whole warp, so the span helpers may shuffle
    const SpanPixel here = span_pixel(bin, x, y, lane);
    const SpanPixel above = span_pixel(bin, x, y - 1, lane);
    if (here.inside && y > 0 && here.white == above.white && (here.span_start || above.span_start))
      unite<true>(label, index, index - bin.width);
  } else {  // the tile's first column, lane = row
    const int cy = blockIdx.y * kRows + lane, cx = blockIdx.x * 32;
    const bool inside = lane < kRows && cx > 0 && cx < bin.width && cy < bin.height;
    const bool here = inside && bin.row(cy)[cx] != 0, west = inside && bin.row(cy)[cx - 1] != 0;
    const bool first = inside && (lane == 0 || here != (bin.row(cy - 1)[cx] != 0) || west != (bin.row(cy - 1)[cx - 1] != 0));
    if (inside && here == west && first) unite<true>(label, cy * bin.width + cx, cy * bin.width + cx - 1);
  }
}

// Blocks of whole warps over the raster, so warp k of the grid is word k. Every lane takes part in
// the ballots, past the last pixel too.
__global__ void flatten_labels(DeviceView<const std::uint8_t> bin, std::int32_t* label, WordMarks* marks) {
  gpuvis::cuda::await_previous_kernel();
  const int n = bin.width * bin.height;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  bool root = false, run_start = false;
  if (i < n) {
    const int r = find_root(label, i);
    label[i] = r;
    root = r == i;
    const int y = i / bin.width, x = i - y * bin.width;
    const std::uint8_t* row = bin.row(y);
    run_start = x == 0 || (row[x] != 0) != (row[x - 1] != 0);
  }
  const unsigned roots = __ballot_sync(kFullMask, root), starts = __ballot_sync(kFullMask, run_start);
  if (threadIdx.x % 32 == 0 && i < n) marks[i / 32] = {roots, starts};
}

}  // namespace

void label_pixels(DeviceView<const std::uint8_t> binary, std::int32_t* label, WordMarks* marks, cudaStream_t stream) {
  const dim3 block(32, kRows);
  const dim3 grid((binary.width + 31) / 32, (binary.height + kRows - 1) / kRows);
  gpuvis::cuda::launch_chained(label_tiles, grid, block, 0, stream, binary, label);
  gpuvis::cuda::launch_chained(merge_tile_borders, grid, dim3(32, 2), 0, stream, binary, label);
  const int n = binary.width * binary.height;
  gpuvis::cuda::launch_chained(flatten_labels, dim3((n + 255) / 256), dim3(256), 0, stream, binary, label, marks);
}

}  // namespace gpuvis::segment::cuda_impl

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
#include <array>
#include <string>
#include <utility>

#include "cuda/chain.cuh"
#include "cuda/check.hpp"
#include "threshold/cuda/bernsen_tile.cuh"
#include "segment/cuda/labels.cuh"

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

// A pixel of a 32-pixel span (a warp, lane = column) and whether a span run starts there. Every
// lane of the warp must call these (they use warp shuffles), inside the image or not.
__device__ __forceinline__ SpanPixel span_pixel(bool inside, bool white, int lane) {
  const bool west = __shfl_up_sync(kFullMask, white, 1);
  return {inside, white, lane == 0 || white != west};
}
__device__ __forceinline__ SpanPixel span_pixel(DeviceView<const std::uint8_t> bin, int x, int y, int lane) {
  const bool inside = x < bin.width && y >= 0 && y < bin.height;
  return span_pixel(inside, inside && bin.row(y)[x] != 0, lane);
}

// Labels the block's tile in shared memory. A block of 32 x (kRows / PER) threads; thread
// (x, y) holds the pixels of rows y + k kRows / PER (k < PER) in `here`, and the pixels above them
// in `above` (meaningful below the tile's first row). Writes, for every pixel of the frame, the
// global index of its tile-local root (the tile's smallest pixel of that component, so parents
// still point to smaller indices). A warp is one row of the tile, so the span helpers may shuffle.
template <int PER>
__device__ void label_tile(const SpanPixel (&here)[PER], const SpanPixel (&above)[PER], int width, std::int32_t* label) {
  __shared__ std::int32_t local[kRows * 32];
  const int lane = threadIdx.x, x = blockIdx.x * 32 + lane;
#pragma unroll
  for (int k = 0; k < PER; ++k) {
    const int ly = threadIdx.y + k * (kRows / PER);
    const unsigned starts = __ballot_sync(kFullMask, here[k].span_start);
    const int first = 31 - __clz(starts & (kFullMask >> (31 - lane)));  // last start at or before lane
    local[ly * 32 + lane] = ly * 32 + first;
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < PER; ++k) {
    const int ly = threadIdx.y + k * (kRows / PER), li = ly * 32 + lane;
    if (here[k].inside && ly > 0 && here[k].white == above[k].white && (here[k].span_start || above[k].span_start))
      unite<false>(local, li, li - 32);
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < PER; ++k) {
    if (!here[k].inside) continue;
    const int ly = threadIdx.y + k * (kRows / PER), y = blockIdx.y * kRows + ly;
    const int root = find_root(local, ly * 32 + lane);
    label[y * width + x] = (blockIdx.y * kRows + root / 32) * width + blockIdx.x * 32 + root % 32;
  }
}

// Two rows per thread: a block of 256 threads per tile, so that a 640x480 frame's 600 tiles are
// resident at once (four 512-thread blocks fit on an SM, 528 on an H100).
constexpr int kRowsPerThread = 2;

__global__ void __launch_bounds__(32 * kRows / kRowsPerThread) label_tiles(DeviceView<const std::uint8_t> bin, std::int32_t* label) {
  gpuvis::cuda::await_previous_kernel();
  const int lane = threadIdx.x, x = blockIdx.x * 32 + lane;
  SpanPixel here[kRowsPerThread], above[kRowsPerThread];
#pragma unroll
  for (int k = 0; k < kRowsPerThread; ++k) {
    const int y = blockIdx.y * kRows + threadIdx.y + k * (kRows / kRowsPerThread);
    here[k] = span_pixel(bin, x, y, lane);
    above[k] = span_pixel(bin, x, y - 1, lane);
  }
  label_tile<kRowsPerThread>(here, above, bin.width, label);
}

// The same from the grey frame: the block thresholds its tile first (full Bernsen with half-window
// R, bernsen_tile.cuh) and writes the binary frame for the later passes. The first kernel after the
// frame's upload (a copy): nothing to wait for on the device.
template <int R>
__global__ void __launch_bounds__(32 * kRows / kRowsPerThread)
    threshold_and_label_tiles(DeviceView<const std::uint8_t> grey, DeviceView<std::uint8_t> bin, int gate, std::int32_t* label) {
  gpuvis::cuda::allow_next_kernel();
  using threshold::cuda_impl::BernsenTile;
  static_assert(BernsenTile::kWidth == 32 && BernsenTile::kHeight == kRows && kRows / kRowsPerThread == 8);
  __shared__ BernsenTile tile;
  threshold::cuda_impl::bernsen_tile<R>(grey, blockIdx.x * 32, blockIdx.y * kRows, gate, tile);
  const int lane = threadIdx.x, x = blockIdx.x * 32 + lane;
  SpanPixel here[kRowsPerThread], above[kRowsPerThread];
#pragma unroll
  for (int k = 0; k < kRowsPerThread; ++k) {
    const int ly = threadIdx.y + k * (kRows / kRowsPerThread), y = blockIdx.y * kRows + ly;
    const bool inside = x < bin.width && y < bin.height;
    const std::uint8_t value = tile.binary[ly][lane];
    if (inside) bin.row(y)[x] = value;
    // Outside the frame a pixel is black, as span_pixel has it; the tile's first row needs no
    // pixel above.
    here[k] = span_pixel(inside, inside && value != 0, lane);
    above[k] = span_pixel(inside, ly > 0 && x < bin.width && y - 1 < bin.height && tile.binary[ly - 1][lane] != 0, lane);
  }
  label_tile<kRowsPerThread>(here, above, bin.width, label);
}

// threshold_and_label_tiles<R> for R = 1 .. kTileMaxRadius, indexed by R - 1.
template <int... Rm1>
constexpr auto threshold_and_label_kernels(std::integer_sequence<int, Rm1...>) {
  return std::array{&threshold_and_label_tiles<Rm1 + 1>...};
}
constexpr auto kThresholdAndLabel =
    threshold_and_label_kernels(std::make_integer_sequence<int, threshold::cuda_impl::kTileMaxRadius>{});

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

void merge_and_flatten(DeviceView<const std::uint8_t> binary, std::int32_t* label, WordMarks* marks, cudaStream_t stream) {
  const dim3 grid((binary.width + 31) / 32, (binary.height + kRows - 1) / kRows);
  gpuvis::cuda::launch_chained(merge_tile_borders, grid, dim3(32, 2), 0, stream, binary, label);
  const int n = binary.width * binary.height;
  gpuvis::cuda::launch_chained(flatten_labels, dim3((n + 255) / 256), dim3(256), 0, stream, binary, label, marks);
}

}  // namespace

void label_pixels(DeviceView<const std::uint8_t> binary, std::int32_t* label, WordMarks* marks, cudaStream_t stream) {
  const dim3 grid((binary.width + 31) / 32, (binary.height + kRows - 1) / kRows);
  gpuvis::cuda::launch_chained(label_tiles, grid, dim3(32, kRows / kRowsPerThread), 0, stream, binary, label);
  merge_and_flatten(binary, label, marks, stream);
}

void threshold_and_label_pixels(const BernsenInput& in, std::int32_t* label, WordMarks* marks, cudaStream_t stream) {
  static_assert(kThresholdInLabelsMaxRadius == threshold::cuda_impl::kTileMaxRadius);
  require(same_shape(in.grey, in.binary) && in.grey.channels == 1,
          "segment (CUDA): the grey and binary frames must be one-channel images of equal size");
  if (in.half_window < 1 || in.half_window > kThresholdInLabelsMaxRadius)  // the message only when it fails
    fail(ErrorCode::invalid_argument,
         "segment (CUDA): the labelling's own threshold takes half-windows 1.." + std::to_string(kThresholdInLabelsMaxRadius));
  require(in.gate >= 0 && in.gate <= 255, "segment (CUDA): the Bernsen gate must be 0..255");
  const dim3 grid((in.binary.width + 31) / 32, (in.binary.height + kRows - 1) / kRows);
  kThresholdAndLabel[in.half_window - 1]<<<grid, dim3(32, kRows / kRowsPerThread), 0, stream>>>(in.grey, in.binary, in.gate,
                                                                                                label);
  GPUVIS_CUDA_CHECK_LAUNCH();
  merge_and_flatten(in.binary, label, marks, stream);
}

}  // namespace gpuvis::segment::cuda_impl

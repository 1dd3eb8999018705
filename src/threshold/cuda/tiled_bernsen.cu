// reacTIVision's tiled Bernsen on the GPU, following the CPU definition (../rules.hpp) exactly.
//
// Cell statistics: reacTIVision scans each cell sequentially and a pixel that lowers the running
// min never raises the running max (quirk Q1). That scan is reformulated for a warp per cell: a
// pixel is a "new minimum" iff it is below the minimum of everything before it (starting from 255),
// which a warp prefix-min gives in parallel; the max is taken over the other pixels.
#include "threshold/rules.hpp"
#include "threshold/cuda/kernels.cuh"
#include "threshold/cuda/sliding_window.cuh"

namespace gpuvis::threshold::cuda_impl {
namespace {

constexpr int kWarpsPerBlock = 8;

__global__ void cell_stats_kernel(DeviceView<const std::uint8_t> src, rules::CellAxis cx, rules::CellAxis cy,
                                  unsigned* stats) {
  const int cell = blockIdx.x * kWarpsPerBlock + threadIdx.y;
  if (cell >= cx.count * cy.count) return;
  const int i = cell % cx.count, j = cell / cx.count;
  const int x0 = cx.begin(i, src.width), x1 = cx.end(i, src.width);
  const int y0 = cy.begin(j, src.height), y1 = cy.end(j, src.height);
  const int lane = threadIdx.x;
  unsigned run_min = 255, mx = 0;  // running min of all pixels scanned so far
  for (int y = y0; y < y1; ++y)
    for (int xb = x0; xb < x1; xb += 32) {
      const int x = xb + lane;
      const bool valid = x < x1;
      const unsigned v = valid ? src(x, y) : 255u;
      unsigned incl = v;  // inclusive prefix min within the chunk
      for (int d = 1; d < 32; d <<= 1) {
        const unsigned o = __shfl_up_sync(0xffffffffu, incl, d);
        if (lane >= d) incl = min(incl, o);
      }
      unsigned before = __shfl_up_sync(0xffffffffu, incl, 1);
      before = lane == 0 ? run_min : min(run_min, before);
      if (valid && v >= before) mx = max(mx, v);  // not a new minimum: it may raise the max
      run_min = min(run_min, __shfl_sync(0xffffffffu, incl, 31));
    }
  for (int d = 16; d > 0; d >>= 1) mx = max(mx, __shfl_xor_sync(0xffffffffu, mx, d));
  if (lane == 0) stats[cell] = run_min | mx << 8;
}

__device__ inline unsigned cell_at(const unsigned* stats, int cells, int stride, int i, int j) {
  const int idx = j * stride + i;  // linear addressing: column Cx wraps to the next row (quirk Q2)
  return idx < cells ? stats[idx] : 0u;
}

__global__ void apply_tiles_kernel(DeviceView<const std::uint8_t> src, DeviceView<std::uint8_t> dst,
                                   const unsigned* stats, int cells_x, int cells, float inv_tile, int gradient) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= src.width || y >= src.height) return;
  const int tx = div_small(x, inv_tile), ty = div_small(y, inv_tile);
  const unsigned c[4] = {cell_at(stats, cells, cells_x, tx, ty), cell_at(stats, cells, cells_x, tx + 1, ty),
                         cell_at(stats, cells, cells_x, tx, ty + 1), cell_at(stats, cells, cells_x, tx + 1, ty + 1)};
  int mn = 255, mx = 0;
  for (unsigned v : c) {
    mn = min(mn, static_cast<int>(v & 0xff));
    mx = max(mx, static_cast<int>(v >> 8));
  }
  const int t = rules::tiled_threshold(mn, mx, gradient);
  dst(x, y) = src(x, y) > t ? 255 : 0;
}

}  // namespace

void tiled_bernsen(DeviceView<const std::uint8_t> src, DeviceView<std::uint8_t> dst, const TiledParams& p,
                   Workspace& ws, cudaStream_t stream) {
  const auto cx = rules::CellAxis::make(src.width, p.tile), cy = rules::CellAxis::make(src.height, p.tile);
  const int cells = cx.count * cy.count;
  ws.a.reserve(sizeof(unsigned) * static_cast<std::size_t>(cells));
  unsigned* stats = ws.a.as<unsigned>();
  cell_stats_kernel<<<(cells + kWarpsPerBlock - 1) / kWarpsPerBlock, dim3(32, kWarpsPerBlock), 0, stream>>>(src, cx, cy, stats);
  GPUVIS_CUDA_CHECK_LAUNCH();
  const dim3 pb(64, 4);
  apply_tiles_kernel<<<dim3((src.width + pb.x - 1) / pb.x, (src.height + pb.y - 1) / pb.y), pb, 0, stream>>>(
      src, dst, stats, cx.count, cells, 1.0f / static_cast<float>(p.tile), p.gradient);
  GPUVIS_CUDA_CHECK_LAUNCH();
}

}  // namespace gpuvis::threshold::cuda_impl

// reacTIVision's tiled Bernsen on the GPU: one thread per cell runs the sequential cell scan
// (quirk Q1 makes the visiting order part of the result), then one thread per pixel applies its
// tile's threshold. Same definitions as the CPU version (../rules.hpp).
#include "../rules.hpp"
#include "kernels.cuh"

namespace gpuvis::threshold::cuda_impl {
namespace {

__global__ void cell_stats_kernel(DeviceView<const std::uint8_t> src, rules::CellAxis cx, rules::CellAxis cy,
                                  unsigned* stats) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= cx.count || j >= cy.count) return;
  stats[j * cx.count + i] = rules::cell_stats(src, cx.begin(i, src.width), cx.end(i, src.width),
                                              cy.begin(j, src.height), cy.end(j, src.height));
}

__device__ inline unsigned cell_at(const unsigned* stats, int cells, int stride, int i, int j) {
  const int idx = j * stride + i;  // linear addressing: column Cx wraps to the next row (quirk Q2)
  return idx < cells ? stats[idx] : 0u;
}

__global__ void apply_tiles_kernel(DeviceView<const std::uint8_t> src, DeviceView<std::uint8_t> dst,
                                   const unsigned* stats, int cells_x, int cells, int tile, int gradient) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= src.width || y >= src.height) return;
  const int tx = x / tile, ty = y / tile;
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
  const dim3 cb(16, 8);
  cell_stats_kernel<<<dim3((cx.count + cb.x - 1) / cb.x, (cy.count + cb.y - 1) / cb.y), cb, 0, stream>>>(src, cx, cy, stats);
  GPUVIS_CUDA_CHECK_LAUNCH();
  const dim3 pb(64, 4);
  apply_tiles_kernel<<<dim3((src.width + pb.x - 1) / pb.x, (src.height + pb.y - 1) / pb.y), pb, 0, stream>>>(
      src, dst, stats, cx.count, cells, p.tile, p.gradient);
  GPUVIS_CUDA_CHECK_LAUNCH();
}

}  // namespace gpuvis::threshold::cuda_impl

// Full Bernsen on the GPU: a vertical extrema pass and a horizontal extrema + decision pass, each
// over shared-memory tiles with the van Herk scheme (sliding_window.cuh), so the cost per pixel
// does not grow with the window. Edges: the truncated window's max/min equals the max/min with
// clamp-to-edge addressing (the edge pixel is always inside the truncated window).
#include "../rules.hpp"
#include "kernels.cuh"
#include "sliding_window.cuh"

namespace gpuvis::threshold::cuda_impl {
namespace {

constexpr int kColsV = 32;    // columns per vertical tile (one warp wide)
constexpr int kColsH = 256;   // output columns per horizontal tile
constexpr int kRowsH = 4;     // rows per horizontal tile

__host__ __device__ inline int rows_per_vertical_tile(int r) {
  const int ty = 4 * r;
  return ty < 64 ? 64 : (ty > 256 ? 256 : ty);
}

__global__ void vertical_extrema(DeviceView<const std::uint8_t> src, std::uint8_t* vmax, std::uint8_t* vmin,
                                 int pitch, int r) {
  extern __shared__ std::uint8_t smem[];
  const int ty = rows_per_vertical_tile(r);
  const int k = 2 * r + 1;
  const LineLayout L{kColsV, ty + 2 * r, 1, kColsV};
  const int area = L.lines * L.len;
  std::uint8_t* in = smem;
  std::uint8_t* gmax = in + area;
  std::uint8_t* smax = gmax + area;
  std::uint8_t* gmin = smax + area;
  std::uint8_t* smin = gmin + area;
  const int x0 = blockIdx.x * kColsV, y0 = blockIdx.y * ty;
  const int tid = threadIdx.x + threadIdx.y * blockDim.x, nthreads = blockDim.x * blockDim.y;
  for (int i = tid; i < area; i += nthreads) {
    const int c = i % kColsV, e = i / kColsV;
    const int x = min(x0 + c, src.width - 1);
    const int y = min(max(y0 - r + e, 0), src.height - 1);
    in[i] = src(x, y);
  }
  __syncthreads();
  block_prefix_suffix<MaxOp>(in, gmax, smax, L, k);
  block_prefix_suffix<MinOp>(in, gmin, smin, L, k);
  __syncthreads();
  for (int i = tid; i < kColsV * ty; i += nthreads) {
    const int c = i % kColsV, yl = i / kColsV;
    const int x = x0 + c, y = y0 + yl;
    if (x < src.width && y < src.height) {
      vmax[static_cast<std::size_t>(y) * pitch + x] = window<MaxOp>(gmax, smax, L, c, yl, k);
      vmin[static_cast<std::size_t>(y) * pitch + x] = window<MinOp>(gmin, smin, L, c, yl, k);
    }
  }
}

__global__ void horizontal_extrema_decide(DeviceView<const std::uint8_t> src, const std::uint8_t* vmax,
                                          const std::uint8_t* vmin, int pitch, DeviceView<std::uint8_t> dst,
                                          int r, int gate) {
  extern __shared__ std::uint8_t smem[];
  const int k = 2 * r + 1;
  const LineLayout L{kRowsH, kColsH + 2 * r, kColsH + 2 * r, 1};
  const int area = L.lines * L.len;
  std::uint8_t* inmax = smem;
  std::uint8_t* inmin = inmax + area;
  std::uint8_t* gmax = inmin + area;
  std::uint8_t* smax = gmax + area;
  std::uint8_t* gmin = smax + area;
  std::uint8_t* smin = gmin + area;
  const int x0 = blockIdx.x * kColsH, y0 = blockIdx.y * kRowsH;
  const int tid = threadIdx.x + threadIdx.y * blockDim.x, nthreads = blockDim.x * blockDim.y;
  for (int i = tid; i < area; i += nthreads) {
    const int l = i / L.len, e = i % L.len;
    const int y = min(y0 + l, src.height - 1);
    const int x = min(max(x0 - r + e, 0), src.width - 1);
    const std::size_t at = static_cast<std::size_t>(y) * pitch + x;
    inmax[i] = vmax[at];
    inmin[i] = vmin[at];
  }
  __syncthreads();
  block_prefix_suffix<MaxOp>(inmax, gmax, smax, L, k);
  block_prefix_suffix<MinOp>(inmin, gmin, smin, L, k);
  __syncthreads();
  for (int i = tid; i < kColsH * kRowsH; i += nthreads) {
    const int l = i / kColsH, xl = i % kColsH;
    const int x = x0 + xl, y = y0 + l;
    if (x < src.width && y < src.height) {
      const unsigned mx = window<MaxOp>(gmax, smax, L, l, xl, k);
      const unsigned mn = window<MinOp>(gmin, smin, L, l, xl, k);
      dst(x, y) = rules::bernsen(src(x, y), mx, mn, gate);
    }
  }
}

}  // namespace

void bernsen(DeviceView<const std::uint8_t> src, DeviceView<std::uint8_t> dst, const BernsenParams& p,
             Workspace& ws, cudaStream_t stream) {
  const int w = src.width, h = src.height, r = p.half_window;
  const std::size_t plane = static_cast<std::size_t>(w) * h;
  ws.a.reserve(plane);
  ws.b.reserve(plane);
  auto* vmax = ws.a.as<std::uint8_t>();
  auto* vmin = ws.b.as<std::uint8_t>();

  const int ty = rows_per_vertical_tile(r);
  const std::size_t smem_v = 5u * kColsV * static_cast<std::size_t>(ty + 2 * r);
  const std::size_t smem_h = 6u * kRowsH * static_cast<std::size_t>(kColsH + 2 * r);
  set_max_dynamic_smem(vertical_extrema, smem_v);
  set_max_dynamic_smem(horizontal_extrema_decide, smem_h);
  vertical_extrema<<<dim3((w + kColsV - 1) / kColsV, (h + ty - 1) / ty), dim3(32, 8), smem_v, stream>>>(src, vmax, vmin, w, r);
  GPUVIS_CUDA_CHECK_LAUNCH();
  horizontal_extrema_decide<<<dim3((w + kColsH - 1) / kColsH, (h + kRowsH - 1) / kRowsH), dim3(256), smem_h, stream>>>(
      src, vmax, vmin, w, dst, r, p.gate);
  GPUVIS_CUDA_CHECK_LAUNCH();
}

}  // namespace gpuvis::threshold::cuda_impl

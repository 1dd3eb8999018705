// Full Bernsen on the GPU: a vertical extrema pass and a horizontal extrema + decision pass, each
// over shared-memory tiles with the van Herk scheme (sliding_window.cuh), so the cost per pixel
// does not grow with the window. Edges: the truncated window's max/min equals the max/min with
// clamp-to-edge addressing (the edge pixel is always inside the truncated window).
#include "../rules.hpp"
#include "kernels.cuh"
#include "sliding_window.cuh"

namespace gpuvis::threshold::cuda_impl {
namespace {

constexpr int kColsV = 32;   // columns per vertical tile (one warp wide)
constexpr int kColsH = 256;  // output columns per horizontal tile
constexpr int kRowsH = 4;    // rows per horizontal tile

__host__ __device__ inline int rows_per_vertical_tile(int r) {
  const int ty = 4 * r;
  return ty < 128 ? 128 : (ty > 256 ? 256 : ty);
}

__global__ void vertical_extrema(DeviceView<const std::uint8_t> src, std::uint8_t* vmax, std::uint8_t* vmin,
                                 int pitch, int r) {
  extern __shared__ std::uint8_t smem[];
  const int ty = rows_per_vertical_tile(r), k = 2 * r + 1;
  const Tile<kColsV, true> t{ty + 2 * r};
  const int area = kColsV * t.len;
  std::uint8_t* in = smem;
  std::uint8_t* gmax = in + area;
  std::uint8_t* smax = gmax + area;
  std::uint8_t* gmin = smax + area;
  std::uint8_t* smin = gmin + area;
  const int x0 = blockIdx.x * kColsV, y0 = blockIdx.y * ty;
  const int x = min(x0 + static_cast<int>(threadIdx.x), src.width - 1);
  for (int e = threadIdx.y; e < t.len; e += blockDim.y) {
    const int y = min(max(y0 - r + e, 0), src.height - 1);
    in[t.at(threadIdx.x, e)] = src(x, y);
  }
  __syncthreads();
  prefix_suffix<MaxOp, MinOp>(in, in, gmax, smax, gmin, smin, t, k);
  __syncthreads();
  const int rows = min(ty, src.height - y0);
  const float inv_k = 1.0f / static_cast<float>(k);
  if (x0 + static_cast<int>(threadIdx.x) < src.width)
    for (int yl = threadIdx.y; yl < rows; yl += blockDim.y) {
      const bool start = div_small(yl, inv_k) * k == yl;
      const std::size_t at = static_cast<std::size_t>(y0 + yl) * pitch + x0 + threadIdx.x;
      vmax[at] = window<MaxOp>(gmax, smax, t, threadIdx.x, yl, k, start);
      vmin[at] = window<MinOp>(gmin, smin, t, threadIdx.x, yl, k, start);
    }
}

__global__ void horizontal_extrema_decide(DeviceView<const std::uint8_t> src, const std::uint8_t* vmax,
                                          const std::uint8_t* vmin, int pitch, DeviceView<std::uint8_t> dst,
                                          int r, int gate) {
  extern __shared__ std::uint8_t smem[];
  const int k = 2 * r + 1;
  const Tile<kRowsH, false> t{kColsH + 2 * r};
  const int area = kRowsH * t.len;
  std::uint8_t* inmax = smem;
  std::uint8_t* inmin = inmax + area;
  std::uint8_t* gmax = inmin + area;
  std::uint8_t* smax = gmax + area;
  std::uint8_t* gmin = smax + area;
  std::uint8_t* smin = gmin + area;
  const int x0 = blockIdx.x * kColsH, y0 = blockIdx.y * kRowsH;
  for (int l = 0; l < kRowsH; ++l) {
    const std::size_t row = static_cast<std::size_t>(min(y0 + l, src.height - 1)) * pitch;
    for (int e = threadIdx.x; e < t.len; e += blockDim.x) {
      const int x = min(max(x0 - r + e, 0), src.width - 1);
      inmax[t.at(l, e)] = vmax[row + x];
      inmin[t.at(l, e)] = vmin[row + x];
    }
  }
  __syncthreads();
  prefix_suffix<MaxOp, MinOp>(inmax, inmin, gmax, smax, gmin, smin, t, k);
  __syncthreads();
  const float inv_k = 1.0f / static_cast<float>(k);
  const int xl = threadIdx.x, x = x0 + xl;
  if (x >= src.width) return;
  const bool start = div_small(xl, inv_k) * k == xl;
  for (int l = 0; l < kRowsH && y0 + l < src.height; ++l) {
    const unsigned mx = window<MaxOp>(gmax, smax, t, l, xl, k, start);
    const unsigned mn = window<MinOp>(gmin, smin, t, l, xl, k, start);
    dst(x, y0 + l) = rules::bernsen(src(x, y0 + l), mx, mn, gate);
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
  vertical_extrema<<<dim3((w + kColsV - 1) / kColsV, (h + ty - 1) / ty), dim3(kColsV, 8), smem_v, stream>>>(src, vmax, vmin, w, r);
  GPUVIS_CUDA_CHECK_LAUNCH();
  horizontal_extrema_decide<<<dim3((w + kColsH - 1) / kColsH, (h + kRowsH - 1) / kRowsH), dim3(kColsH), smem_h, stream>>>(
      src, vmax, vmin, w, dst, r, p.gate);
  GPUVIS_CUDA_CHECK_LAUNCH();
}

}  // namespace gpuvis::threshold::cuda_impl

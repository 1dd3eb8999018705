// reacTIVision's Bradley-Roth on the GPU. Window sums are exact: a vertical sliding sum per column
// (van Herk over shared-memory tiles, zero padding = the clamped window) and a horizontal one over
// those column sums, then the per-pixel rule shared with the CPU (../rules.hpp).
#include "threshold/rules.hpp"
#include "threshold/cuda/kernels.cuh"
#include "threshold/cuda/sliding_window.cuh"

namespace gpuvis::threshold::cuda_impl {
namespace {

constexpr int kColsV = 32, kRowsV = 128;
constexpr int kColsH = 256, kRowsH = 4;

__global__ void vertical_sums(DeviceView<const std::uint8_t> src, std::uint16_t* colsum, int pitch, int r) {
  extern __shared__ std::uint16_t smem16[];
  const int k = 2 * r + 1;
  const Tile<kColsV, true> t{kRowsV + 2 * r};
  const int area = kColsV * t.len;
  std::uint16_t* in = smem16;
  std::uint16_t* g = in + area;
  std::uint16_t* s = g + area;
  const int x0 = blockIdx.x * kColsV, y0 = blockIdx.y * kRowsV;
  const int x = x0 + threadIdx.x;
  for (int e = threadIdx.y; e < t.len; e += blockDim.y) {
    const int y = y0 - r + e;
    in[t.at(threadIdx.x, e)] = (x < src.width && y >= 0 && y < src.height) ? src(x, y) : 0;
  }
  __syncthreads();
  prefix_suffix<SumOp>(in, g, s, t, k);
  __syncthreads();
  if (x >= src.width) return;
  const int rows = min(kRowsV, src.height - y0);
  const float inv_k = 1.0f / static_cast<float>(k);
  for (int yl = threadIdx.y; yl < rows; yl += blockDim.y)
    colsum[static_cast<std::size_t>(y0 + yl) * pitch + x] =
        window<SumOp>(g, s, t, threadIdx.x, yl, k, div_small(yl, inv_k) * k == yl);
}

__global__ void horizontal_sums_decide(DeviceView<const std::uint8_t> src, const std::uint16_t* colsum, int pitch,
                                       DeviceView<std::uint8_t> dst, rules::BradleyRothConst c) {
  extern __shared__ std::uint32_t smem32[];
  const int r = c.r, k = 2 * r + 1;
  const Tile<kRowsH, false> t{kColsH + 2 * r};
  const int area = kRowsH * t.len;
  std::uint32_t* in = smem32;
  std::uint32_t* g = in + area;
  std::uint32_t* s = g + area;
  const int x0 = blockIdx.x * kColsH, y0 = blockIdx.y * kRowsH;
  for (int l = 0; l < kRowsH; ++l) {
    const int y = y0 + l;
    for (int e = threadIdx.x; e < t.len; e += blockDim.x) {
      const int x = x0 - r + e;
      in[t.at(l, e)] = (y < src.height && x >= 0 && x < src.width) ? colsum[static_cast<std::size_t>(y) * pitch + x] : 0u;
    }
  }
  __syncthreads();
  prefix_suffix<SumOp>(in, g, s, t, k);
  __syncthreads();
  const int xl = threadIdx.x, x = x0 + xl;
  if (x >= src.width) return;
  const bool start = div_small(xl, 1.0f / static_cast<float>(k)) * k == xl;
  const int wx0 = max(0, x - r), wx1 = min(src.width, x + r + 1);
  for (int l = 0; l < kRowsH && y0 + l < src.height; ++l) {
    const int y = y0 + l;
    const std::uint32_t sum = window<SumOp>(g, s, t, l, xl, k, start);
    const int wy0 = max(0, y - r), wy1 = min(src.height, y + r + 1);
    dst(x, y) = rules::bradley_roth(src(x, y), sum, x, src.width, wx0, wx1, wy0, wy1, c);
  }
}

}  // namespace

void bradley_roth(DeviceView<const std::uint8_t> src, DeviceView<std::uint8_t> dst, const BradleyRothParams& p,
                  Workspace& ws, cudaStream_t stream) {
  const int w = src.width, h = src.height;
  const rules::BradleyRothConst c = rules::bradley_roth_const(h, p.size, p.bias, p.contrast);
  ws.a.reserve(sizeof(std::uint16_t) * static_cast<std::size_t>(w) * h);
  auto* colsum = ws.a.as<std::uint16_t>();
  const std::size_t smem_v = 3u * sizeof(std::uint16_t) * kColsV * static_cast<std::size_t>(kRowsV + 2 * c.r);
  const std::size_t smem_h = 3u * sizeof(std::uint32_t) * kRowsH * static_cast<std::size_t>(kColsH + 2 * c.r);
  set_max_dynamic_smem(vertical_sums, smem_v);
  set_max_dynamic_smem(horizontal_sums_decide, smem_h);
  vertical_sums<<<dim3((w + kColsV - 1) / kColsV, (h + kRowsV - 1) / kRowsV), dim3(kColsV, 8), smem_v, stream>>>(src, colsum, w, c.r);
  GPUVIS_CUDA_CHECK_LAUNCH();
  horizontal_sums_decide<<<dim3((w + kColsH - 1) / kColsH, (h + kRowsH - 1) / kRowsH), dim3(kColsH), smem_h, stream>>>(
      src, colsum, w, dst, c);
  GPUVIS_CUDA_CHECK_LAUNCH();
}

}  // namespace gpuvis::threshold::cuda_impl

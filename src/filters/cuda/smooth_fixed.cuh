#pragma once
// 8-bit separable smoothing in 16-bit fixed point on CUDA (filters/smooth_fixed.hpp), the CPU's
// bytes: smooth_fixed_rule.h's integers, which no order of additions changes. A block loads its
// tile of rule samples with the halo (border applied), runs the row pass for every tile row into
// shared memory, then each thread runs the column pass for kFixedTileY / 8 outputs of its column.
// Included by convolve_impl.cuh (for 8-bit images only).
#include <cstdint>
#include <mutex>
#include <vector>

#include "cuda/check.hpp"
#include "filters/cuda/strip.cuh"
#include "filters/smooth_fixed.hpp"

namespace gpuvis::filters {
namespace {

constexpr int kFixedMaxHalf = 63;  // weights w[0 .. m] for up to 127 taps
__constant__ std::uint16_t c_fixed_row[kFixedMaxHalf + 1];
__constant__ std::uint16_t c_fixed_col[kFixedMaxHalf + 1];

constexpr int kFixedTileX = 32, kFixedThreadsY = 8, kFixedTileY = 64;

inline std::size_t fixed_smem_bytes(int rx, int ry, int channels) {
  const std::size_t th = kFixedTileY + 2 * ry, tw = kFixedTileX + 2 * rx;
  return sizeof(std::uint16_t) * static_cast<std::size_t>(channels) * th * (tw + kFixedTileX);
}

template <int C>
__global__ void __launch_bounds__(kFixedTileX* kFixedThreadsY)
    smooth_fixed_kernel(Strip<std::uint8_t> s, std::uint8_t* out, std::size_t out_pitch, int out_rows, int rx, int ry, Border b) {
  extern __shared__ std::uint16_t fixed_smem[];
  const int tw = kFixedTileX + 2 * rx, th = kFixedTileY + 2 * ry;
  std::uint16_t* tile = fixed_smem;              // th x tw samples
  std::uint16_t* rows = fixed_smem + th * tw * C;  // th x kFixedTileX row-pass results
  const int x0 = blockIdx.x * kFixedTileX, yl0 = blockIdx.y * kFixedTileY;
  const int first_row = s.y0 + yl0 - ry;
  const int first_col = x0 - rx;
  const int first_local = s.map_rows ? first_row : first_row - (s.y0 - s.ry);
  const int local_rows = s.map_rows ? s.height : s.rows;
  if (first_col >= 0 && first_col + tw <= s.width && first_row >= 0 && first_row + th <= s.height && first_local >= 0 &&
      first_local + th <= local_rows) {
    const std::uint8_t* base = s.data + static_cast<std::size_t>(first_local) * s.pitch + static_cast<std::size_t>(first_col) * C;
    for (int ty = threadIdx.y; ty < th; ty += blockDim.y) {
      const std::uint8_t* row = base + static_cast<std::size_t>(ty) * s.pitch;
      for (int i = threadIdx.x; i < tw * C; i += blockDim.x) tile[ty * tw * C + i] = static_cast<std::uint16_t>(gpuvis_smooth_sample(row[i]));
    }
  } else {
    // The border value is a whole grey level (fixed_smoothing's condition), so strip_value is exact.
    for (int ty = threadIdx.y; ty < th; ty += blockDim.y)
      for (int tx = threadIdx.x; tx < tw; tx += blockDim.x)
#pragma unroll
        for (int ch = 0; ch < C; ++ch)
          tile[(ty * tw + tx) * C + ch] =
              static_cast<std::uint16_t>(gpuvis_smooth_sample(static_cast<unsigned>(strip_value(s, first_col + tx, first_row + ty, ch, b))));
  }
  __syncthreads();
  const unsigned row_bias = gpuvis_smooth_bias(rx), col_bias = gpuvis_smooth_bias(ry);
  for (int ty = threadIdx.y; ty < th; ty += blockDim.y) {
    const std::uint16_t* centre = tile + (ty * tw + threadIdx.x + rx) * C;
#pragma unroll
    for (int ch = 0; ch < C; ++ch) {
      unsigned acc = row_bias + gpuvis_smooth_tap(centre[ch], c_fixed_row[0]);
      for (int k = 1; k <= rx; ++k) acc += gpuvis_smooth_tap(unsigned{centre[ch - k * C]} + centre[ch + k * C], c_fixed_row[k]);
      rows[(ty * kFixedTileX + threadIdx.x) * C + ch] = static_cast<std::uint16_t>(acc);
    }
  }
  __syncthreads();
  const int x = x0 + threadIdx.x;
  if (x >= s.width) return;
  constexpr int R = kFixedTileY / kFixedThreadsY;
  const int oy0 = threadIdx.y * R;
#pragma unroll
  for (int j = 0; j < R; ++j) {
    const int y = yl0 + oy0 + j;
    if (y >= out_rows) break;
    const std::uint16_t* centre = rows + ((oy0 + j + ry) * kFixedTileX + threadIdx.x) * C;
    constexpr int step = kFixedTileX * C;
    std::uint8_t* o = out + static_cast<std::size_t>(y) * out_pitch + static_cast<std::size_t>(x) * C;
#pragma unroll
    for (int ch = 0; ch < C; ++ch) {
      unsigned acc = col_bias + gpuvis_smooth_tap(centre[ch], c_fixed_col[0]);
      for (int k = 1; k <= ry; ++k) acc += gpuvis_smooth_tap(unsigned{centre[ch - k * step]} + centre[ch + k * step], c_fixed_col[k]);
      o[ch] = static_cast<std::uint8_t>(gpuvis_smooth_output(acc));
    }
  }
}

// Weights into a constant-memory symbol unless `cached` already holds them: a copy from pageable
// memory synchronises the stream, which on a stream of frames filtered with one kernel would cost a
// round trip per frame; the copy is waited for before the weights count as current. Callers hold
// their lock (constant memory is shared by all streams).
template <class Symbol, class W>
void put_weights(const Symbol& symbol, std::vector<W>& cached, const std::vector<W>& want, cudaStream_t stream) {
  if (cached == want) return;
  GPUVIS_CUDA_CHECK(cudaMemcpyToSymbolAsync(symbol, want.data(), sizeof(W) * want.size(), 0, cudaMemcpyHostToDevice, stream));
  GPUVIS_CUDA_CHECK(cudaStreamSynchronize(stream));
  cached = want;
}

// The fixed-point weights into constant memory (as upload_weights does for the float weights).
void upload_fixed_weights(const detail::FixedSmoothing& f, cudaStream_t stream) {
  static std::mutex mutex;
  static std::vector<std::uint16_t> row, column;
  std::lock_guard<std::mutex> lock(mutex);
  put_weights(c_fixed_row, row, f.row, stream);
  put_weights(c_fixed_col, column, f.column, stream);
}

template <int C>
void launch_fixed(const detail::FixedSmoothing& f, const Strip<std::uint8_t>& s, std::uint8_t* out, std::size_t out_pitch, int out_rows,
                  const Border& b, cudaStream_t stream) {
  const int rx = f.row_half(), ry = f.column_half();
  const std::size_t smem = fixed_smem_bytes(rx, ry, C);
  if (smem > 48 * 1024)
    GPUVIS_CUDA_CHECK(cudaFuncSetAttribute(smooth_fixed_kernel<C>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  smooth_fixed_kernel<C><<<dim3((s.width + kFixedTileX - 1) / kFixedTileX, (out_rows + kFixedTileY - 1) / kFixedTileY),
                           dim3(kFixedTileX, kFixedThreadsY), smem, stream>>>(s, out, out_pitch, out_rows, rx, ry, b);
  GPUVIS_CUDA_CHECK_LAUNCH();
}

}  // namespace
}  // namespace gpuvis::filters

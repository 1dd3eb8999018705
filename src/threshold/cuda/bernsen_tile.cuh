#pragma once
// Full Bernsen for one block's tile of 32 x 16 pixels, as a block-level building block: the
// segmentation's first labelling pass thresholds its own tile with it (segment/cuda/labels.cu),
// so a camera frame's path loses the two van Herk passes of bernsen.cu and their launches.
//
// The block copies its tile and the 2R halo into shared memory (clamped addresses: the truncated
// window's max and min are those of the clamp-to-edge window), then takes the window's extrema
// down the columns and along the rows, four outputs at a time: four consecutive windows of 2R+1
// share 2R-2 elements, so a quad costs 2R+7 steps instead of 4(2R+1). That is still O(R) per
// pixel, so it serves small windows (kTileMaxRadius) on camera-sized frames, where saving launches
// matters more. Every pixel is held as one "extrema word", the value in the low 16-bit lane and
// 255 - value in the high one, so one max.u16x2 moves both the running max and the running min.
// R is a template parameter: the loops unroll into shared-memory loads at fixed offsets.
#include <cstdint>

#include "threshold/rules.hpp"
#include "gpuvis/core/image.hpp"

namespace gpuvis::threshold::cuda_impl {

// The largest half-window the tile threshold takes.
constexpr int kTileMaxRadius = 16;

__device__ __forceinline__ unsigned extrema_word(unsigned v) { return v | (255u - v) << 16; }

__device__ __forceinline__ unsigned max_u16x2(unsigned a, unsigned b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  unsigned d;
  asm("max.u16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));  // one instruction on sm_90
  return d;
#else
  return __vmaxu2(a, b);
#endif
}

// The extrema of the four windows p[k .. k + 2R] (k = 0..3, elements `stride` apart).
template <int R>
__device__ __forceinline__ void four_windows(const unsigned* p, int stride, unsigned out[4]) {
  if constexpr (R >= 2) {  // the four windows share p[3 .. 2R]
    unsigned common = p[3 * stride];
#pragma unroll
    for (int i = 4; i <= 2 * R; ++i) common = max_u16x2(common, p[i * stride]);
    const unsigned t2 = p[2 * stride], t1 = max_u16x2(t2, p[stride]), t0 = max_u16x2(t1, p[0]);
    const unsigned b1 = p[(2 * R + 1) * stride], b2 = max_u16x2(b1, p[(2 * R + 2) * stride]),
                   b3 = max_u16x2(b2, p[(2 * R + 3) * stride]);
    out[0] = max_u16x2(common, t0);
    out[1] = max_u16x2(max_u16x2(common, t1), b1);
    out[2] = max_u16x2(max_u16x2(common, t2), b2);
    out[3] = max_u16x2(common, b3);
  } else {
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      unsigned m = p[k * stride];
#pragma unroll
      for (int i = 1; i <= 2 * R; ++i) m = max_u16x2(m, p[(k + i) * stride]);
      out[k] = m;
    }
  }
}

struct BernsenTile {
  static constexpr int kWidth = 32, kHeight = 16;
  static constexpr int kCols = kWidth + 2 * kTileMaxRadius, kRows = kHeight + 2 * kTileMaxRadius;
  unsigned in[kRows][kCols];         // the tile and its halo as extrema words
  unsigned columns[kHeight][kCols];  // each column's extrema over the window's rows
  std::uint8_t binary[kHeight][kWidth];  // the result: 0 or 255 (rules::bernsen)
};

// Called by the whole block of 32 x 8 threads; leaves the binary values of the tile at (x0, y0)
// in s.binary (pixels outside the frame get meaningless values) and synchronises the block.
template <int R>
__device__ void bernsen_tile(DeviceView<const std::uint8_t> grey, int x0, int y0, int gate, BernsenTile& s) {
  static_assert(R >= 1 && R <= kTileMaxRadius);
  constexpr int kW = BernsenTile::kWidth, kH = BernsenTile::kHeight, kCols = kW + 2 * R, kRows = kH + 2 * R;
  constexpr int kThreadRows = 8, kLoadRows = (kRows + kThreadRows - 1) / kThreadRows, kLoadCols = (kCols + 31) / 32;
  static_assert(kCols * 4 <= 32 * kThreadRows, "one column quad per thread");
  const int lane = threadIdx.x, t = threadIdx.y * 32 + lane;
  // The tile with its halo: every load of a thread is issued before its stores.
  unsigned v[kLoadRows][kLoadCols];
#pragma unroll
  for (int i = 0; i < kLoadRows; ++i) {
    const int row = threadIdx.y + i * kThreadRows, y = min(max(y0 - R + row, 0), grey.height - 1);
#pragma unroll
    for (int j = 0; j < kLoadCols; ++j) {
      const int col = lane + 32 * j, x = min(max(x0 - R + col, 0), grey.width - 1);
      if (row < kRows && col < kCols) v[i][j] = grey.row(y)[x];
    }
  }
#pragma unroll
  for (int i = 0; i < kLoadRows; ++i)
#pragma unroll
    for (int j = 0; j < kLoadCols; ++j) {
      const int row = threadIdx.y + i * kThreadRows, col = lane + 32 * j;
      if (row < kRows && col < kCols) s.in[row][col] = extrema_word(v[i][j]);
    }
  __syncthreads();
  // Down the columns: thread t takes column t % kCols, rows 4q .. 4q+3 for q = t / kCols.
  if (t < 4 * kCols) {
    const int col = t % kCols, q = t / kCols;
    unsigned out[4];
    four_windows<R>(&s.in[4 * q][col], BernsenTile::kCols, out);
#pragma unroll
    for (int k = 0; k < 4; ++k) s.columns[4 * q + k][col] = out[k];
  }
  __syncthreads();
  // Along the rows and the decision: thread t < 128 takes row t / 8, columns 4(t % 8) .. +3.
  if (t < kH * kW / 4) {
    const int row = t / 8, x = 4 * (t % 8);
    unsigned out[4];
    four_windows<R>(&s.columns[row][x], 1, out);
#pragma unroll
    for (int k = 0; k < 4; ++k)
      s.binary[row][x + k] = rules::bernsen(s.in[row + R][x + k + R] & 0xffu, out[k] & 0xffffu, 255u - (out[k] >> 16), gate);
  }
  __syncthreads();
}

}  // namespace gpuvis::threshold::cuda_impl

// Full Bernsen in one kernel for a frame in mapped pinned host memory, for windows up to h = 8.
//
// Reading across the bus costs a bus round trip per byte read, so every byte of the frame must
// cross it once: re-reading halo rows from host memory is not cached and costs as much as the
// first read (measured on an H200: 16-row bands with a 6-row halo took 22 us against 18 us for a
// plain copy). Each tile therefore reads only its own pixels from the host, keeps them in a device
// copy of the frame and publishes a flag; the tile that needs them as halo reads them from the
// copy (in L2) once the flag is up. Reads, arithmetic and the writes of the result across the bus
// of different tiles then overlap in one launch, where the two-pass kernels (bernsen.cu) read the
// whole frame before the first result is written.
//
// No deadlock whatever the grid size or residency: blocks take tickets in the order they run;
// ticket t loads tile t, then computes tile t - (tiles_x + 1), whose neighbours all have tiles
// <= t, so everything a block waits for belongs to a ticket already drawn by a running block,
// which publishes before it waits. The grid is a few blocks per SM that draw tickets until none
// are left (on a 4K frame the bus then serves tiles roughly in order, so results start going
// back early: 217 us end to end against 252 us with one block per tile). The last block out
// resets the tickets and advances the frame epoch, so flags never need clearing between frames
// (graph replays included).
#include <cuda/atomic>

#include <algorithm>
#include <cstdint>

#include "threshold/rules.hpp"
#include "gpuvis/cuda/runtime.hpp"
#include "threshold/cuda/frame_words.cuh"
#include "threshold/cuda/kernels.cuh"
#include "threshold/cuda/sliding_window.cuh"

namespace gpuvis::threshold::cuda_impl {
namespace {

// Tiles of 128 columns (one 128-byte line per row: a warp reads and writes whole lines across the
// bus) and 8 rows. Swept on an H200 (h=6, end to end, us; 640x480 / 3840x2160): 64x16 27.4 / 347,
// 64x8 26.6 / 340, 128x8 25.7 / 250, 128x16 26.7 / 300, 256x8 29.2 / 292 with one block per tile;
// with at most 4 blocks per SM 128x8 is 26.9 / 217 (2 per SM: 30.0 / 256, 1: 35.8 / 444).
constexpr int kTileW = 128, kTileH = 8;
constexpr int kBlocksPerSm = 4;
constexpr int kHaloWords = kMappedFusedMaxRadius / 4;  // words of halo left and right
constexpr int kRowWords = kTileW / 4 + 2 * kHaloWords;
constexpr int kThreads = 128;
static_assert(kMappedFusedMaxRadius % 4 == 0 && kMappedFusedMaxRadius <= kTileH, "the halo is whole words from adjacent tiles");

// Words of the handoff state: ticket counter, finished-block counter, frame epoch, then one flag per tile.
enum : int { kTicket = 0, kDone = 1, kEpoch = 2, kFlags = 3 };

using DeviceAtomic = ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device>;

// Word x/4 of row y of the device copy with columns clamped to the image (x is a multiple of 4,
// possibly outside the image). __ldcg: the copy was written by other blocks of this launch, so
// it is read from L2, never from this SM's L1.
__device__ unsigned copy_word(const unsigned* copy, int pitch_words, int width, int x, int y) {
  const unsigned* row = copy + static_cast<std::size_t>(y) * pitch_words;
  if (x >= 0 && x + 3 < width) return __ldcg(row + x / 4);
  unsigned w = 0;
  for (int j = 0; j < 4; ++j) {
    const int c = min(max(x + j, 0), width - 1);
    w |= ((__ldcg(row + c / 4) >> (8 * (c % 4))) & 0xffu) << (8 * j);
  }
  return w;
}

// Four bytes starting `b` bytes into word q of a shared row (b = 0..16).
__device__ unsigned shifted(const unsigned* row, int q, int b) {
  const unsigned lo = row[q + b / 4];
  return b % 4 == 0 ? lo : __byte_perm(lo, row[q + b / 4 + 1], 0x3210 + 0x1111 * (b % 4));
}

// The frame's tile t, read across the bus into the device copy; its flag goes up once every
// word is in L2.
__device__ void publish_tile(const DeviceView<const std::uint8_t>& src, unsigned* copy, int copy_pitch_words, unsigned* flag,
                             unsigned mark, int x0, int y0) {
  const int tid = static_cast<int>(threadIdx.x);
  const bool aligned = ((reinterpret_cast<std::uintptr_t>(src.data) | src.stride) & 3) == 0;
  constexpr int kPerThread = kTileW / 4 * kTileH / kThreads;
  unsigned word[kPerThread];
#pragma unroll
  for (int j = 0; j < kPerThread; ++j) {  // all loads in flight before any store
    const int i = tid + j * kThreads, x = x0 + 4 * (i % (kTileW / 4)), y = y0 + i / (kTileW / 4);
    if (x < src.width && y < src.height)
      word[j] = aligned && x + 3 < src.width ? *reinterpret_cast<const unsigned*>(src.row(y) + x) : load4(src, x, y);
  }
#pragma unroll
  for (int j = 0; j < kPerThread; ++j) {
    const int i = tid + j * kThreads, x = x0 + 4 * (i % (kTileW / 4)), y = y0 + i / (kTileW / 4);
    if (x < src.width && y < src.height) copy[static_cast<std::size_t>(y) * copy_pitch_words + x / 4] = word[j];
  }
  __threadfence();
  __syncthreads();
  if (tid == 0) DeviceAtomic(*flag).store(mark, ::cuda::memory_order_release);
}

// Returns once the tiles around (cx, cy) (itself included) are published.
__device__ void wait_for_neighbours(unsigned* flags, unsigned mark, int cx, int cy, int tiles_x, int tiles_y) {
  const int tid = static_cast<int>(threadIdx.x);
  if (tid < 9) {
    const int nx = cx + tid % 3 - 1, ny = cy + tid / 3 - 1;
    if (nx >= 0 && nx < tiles_x && ny >= 0 && ny < tiles_y) {
      DeviceAtomic flag(flags[ny * tiles_x + nx]);
      while (flag.load(::cuda::memory_order_acquire) != mark) __nanosleep(64);
    }
  }
  __syncthreads();
}

// Horizontal extrema of four output pixels from a row of vertical extrema (halo words included)
// and the decision for them.
__device__ unsigned decide_word(const unsigned* vmax_row, const unsigned* vmin_row, unsigned pixels, int q, int r, int gate) {
  const int b0 = 4 * kHaloWords - r;
  Extrema4 e;
  e.start(shifted(vmax_row, q, b0), shifted(vmin_row, q, b0));
  for (int d = 1; d <= 2 * r; ++d) e.add(shifted(vmax_row, q, b0 + d), shifted(vmin_row, q, b0 + d));
  return rules::bernsen4(pixels, e.max(), e.min(), gate);
}

__global__ void __launch_bounds__(kThreads) bernsen_mapped_fused(DeviceView<const std::uint8_t> src, DeviceView<std::uint8_t> dst,
                                                                 unsigned* copy, int copy_pitch_words, unsigned* state, int r,
                                                                 int gate, int tiles_x, int tiles) {
  __shared__ unsigned in[kTileH + 2 * kMappedFusedMaxRadius][kRowWords];
  __shared__ unsigned vmax[kTileH][kRowWords], vmin[kTileH][kRowWords];
  __shared__ int ticket;
  __shared__ unsigned mark;
  const int tid = static_cast<int>(threadIdx.x), w = src.width, h = src.height;
  const int tiles_y = tiles / tiles_x;
  unsigned* flags = state + kFlags;
  if (tid == 0) mark = DeviceAtomic(state[kEpoch]).load(::cuda::memory_order_relaxed) + 1;
  for (;;) {
    if (tid == 0) ticket = static_cast<int>(atomicAdd(state + kTicket, 1u));
    __syncthreads();
    const int t = ticket;
    if (t >= tiles + tiles_x + 1) break;
    if (t < tiles) publish_tile(src, copy, copy_pitch_words, flags + t, mark, (t % tiles_x) * kTileW, (t / tiles_x) * kTileH);

    const int c = t - (tiles_x + 1);  // the tile whose neighbours are all published by tickets up to t
    if (c >= 0) {
      const int cx = c % tiles_x, cy = c / tiles_x, x0 = cx * kTileW, y0 = cy * kTileH;
      wait_for_neighbours(flags, mark, cx, cy, tiles_x, tiles_y);
      for (int i = tid; i < (kTileH + 2 * r) * kRowWords; i += kThreads) {
        const int e = i / kRowWords, q = i % kRowWords;
        in[e][q] = copy_word(copy, copy_pitch_words, w, x0 + 4 * (q - kHaloWords), min(max(y0 - r + e, 0), h - 1));
      }
      __syncthreads();
      // Vertical extrema of every word column (halo columns included) for the tile's rows.
      for (int i = tid; i < kTileH * kRowWords; i += kThreads) {
        const int o = i / kRowWords, q = i % kRowWords;
        Extrema4 e;
        e.start(in[o][q]);
        for (int d = 1; d <= 2 * r; ++d) e.add(in[o + d][q]);
        vmax[o][q] = e.max();
        vmin[o][q] = e.min();
      }
      __syncthreads();
      // Horizontal extrema and the decision, written across the bus: one 128-byte line per warp.
      const bool aligned = ((reinterpret_cast<std::uintptr_t>(dst.data) | dst.stride) & 3) == 0;
      for (int i = tid; i < kTileH * (kTileW / 4); i += kThreads) {
        const int o = i / (kTileW / 4), q = i % (kTileW / 4), x = x0 + 4 * q, y = y0 + o;
        if (x >= w || y >= h) continue;
        const unsigned out = decide_word(vmax[o], vmin[o], in[o + r][q + kHaloWords], q, r, gate);
        if (aligned && x + 3 < w)
          *reinterpret_cast<unsigned*>(dst.row(y) + x) = out;
        else
          for (int j = 0; j < 4 && x + j < w; ++j) dst.row(y)[x + j] = static_cast<std::uint8_t>(out >> (8 * j));
      }
    }
    __syncthreads();  // shared memory and `ticket` are reused by the next ticket
  }
  // The last block out resets the tickets and opens the next frame's epoch.
  if (tid == 0 && atomicAdd(state + kDone, 1u) == gridDim.x - 1) {
    state[kTicket] = 0;
    state[kDone] = 0;
    DeviceAtomic(state[kEpoch]).store(mark, ::cuda::memory_order_relaxed);
  }
}

}  // namespace

void bernsen_mapped_fused(DeviceView<const std::uint8_t> src, DeviceView<std::uint8_t> dst, const BernsenParams& p, Workspace& ws,
                          cudaStream_t stream) {
  require(p.half_window >= 1 && p.half_window <= kMappedFusedMaxRadius, "bernsen_mapped_fused: window out of range");
  const int w = src.width, h = src.height;
  const int tiles_x = (w + kTileW - 1) / kTileW, tiles = tiles_x * ((h + kTileH - 1) / kTileH);
  const int copy_pitch = (w + kTileW - 1) / kTileW * kTileW;
  ws.frame.reserve(static_cast<std::size_t>(copy_pitch) * h);
  const std::size_t state_bytes = sizeof(unsigned) * (kFlags + static_cast<std::size_t>(tiles));
  if (ws.handoff.size() < state_bytes) {  // new state starts at epoch 0 with every flag down
    ws.handoff.reserve(state_bytes);
    GPUVIS_CUDA_CHECK(cudaMemsetAsync(ws.handoff.get(), 0, ws.handoff.size(), stream));
  }
  const int blocks = std::min(tiles + tiles_x + 1, kBlocksPerSm * std::max(1, gpuvis::cuda::current_device_multiprocessors()));
  bernsen_mapped_fused<<<blocks, kThreads, 0, stream>>>(src, dst, ws.frame.as<unsigned>(), copy_pitch / 4, ws.handoff.as<unsigned>(),
                                                        p.half_window, p.gate, tiles_x, tiles);
  GPUVIS_CUDA_CHECK_LAUNCH();
}

}  // namespace gpuvis::threshold::cuda_impl

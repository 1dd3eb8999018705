// Convolution on the GPU. The host gathers each strip of rows the output needs (the vertical
// border already applied by row mapping) into pinned memory and uploads it; kernels read their
// weights from constant memory and their input through shared-memory tiles with the horizontal
// border applied on load. Separable kernels whose tiles fit in shared memory run as one fused pass
// (row pass into shared memory, then the column pass); larger ones as a row pass into a float
// buffer and a column pass.
// Frames larger than options.max_gpu_memory are processed in strips; each output row is computed
// from exactly the same inputs as in one shot, so the results are identical.
//
// Included by convolve_u8.cu, convolve_u16.cu and convolve_f32.cu, which instantiate it for one
// sample type each, so that the three compile in parallel (together they were the longest file
// of the build). Each has its own constant-memory weights and upload cache.
#pragma once
#include <algorithm>
#include <cstdint>
#include <mutex>
#include <optional>
#include <type_traits>
#include <vector>

#include "filters/convolve_common.hpp"
#include "cuda/check.hpp"
#include "cuda/memory.hpp"
#include "cuda/strip_pipeline.hpp"
#include "filters/cuda/filters_cuda.hpp"
#include "filters/cuda/smooth_fixed.cuh"
#include "filters/cuda/strip.cuh"
#include "filters/filter_backends.hpp"

namespace gpuvis::filters {
namespace {

__constant__ float c_weights[kMaxKernel2D * kMaxKernel2D];
__constant__ float c_row[kMaxKernel1D];
__constant__ float c_col[kMaxKernel1D];

constexpr int kTileX = 32, kTileY = 32, kThreadsY = 8;

// Loads the tile of source values (border applied) that a block of outputs needs: rows
// [first_row, first_row + th) and columns [x0 - rx, x0 - rx + tw), C floats per pixel.
template <class T, int C>
__device__ inline void load_tile(float* tile, const Strip<T>& s, int x0, int rx, int first_row, int tw, int th, Border b) {
  // Most tiles lie wholly inside the image and the staged rows: load them without border logic.
  const int first_col = x0 - rx;
  const int first_local = s.map_rows ? first_row : first_row - (s.y0 - s.ry);
  const int local_rows = s.map_rows ? s.height : s.rows;
  if (first_col >= 0 && first_col + tw <= s.width && first_row >= 0 && first_row + th <= s.height &&
      first_local >= 0 && first_local + th <= local_rows) {
    const T* base = s.data + static_cast<std::size_t>(first_local) * s.pitch + static_cast<std::size_t>(first_col) * C;
    for (int ty = threadIdx.y; ty < th; ty += blockDim.y) {
      const T* row = base + static_cast<std::size_t>(ty) * s.pitch;
      for (int i = threadIdx.x; i < tw * C; i += blockDim.x) tile[ty * tw * C + i] = static_cast<float>(row[i]);
    }
    return;
  }
  for (int ty = threadIdx.y; ty < th; ty += blockDim.y)
    for (int tx = threadIdx.x; tx < tw; tx += blockDim.x)
#pragma unroll
      for (int ch = 0; ch < C; ++ch) tile[(ty * tw + tx) * C + ch] = strip_value(s, x0 - rx + tx, first_row + ty, ch, b);
}

// Stores R vertically adjacent outputs of column x, from strip row `first` on (rounded and
// saturated for integer types; rows past out_rows are skipped).
template <class T, int C, int R>
__device__ inline void store_column(const float (&acc)[R][C], T* out, std::size_t out_pitch, int first, int out_rows, int x) {
#pragma unroll
  for (int k = 0; k < R; ++k) {
    if (first + k >= out_rows) break;
    T* o = out + static_cast<std::size_t>(first + k) * out_pitch + static_cast<std::size_t>(x) * C;
#pragma unroll
    for (int ch = 0; ch < C; ++ch) o[ch] = detail::saturate<T>(acc[k][ch]);
  }
}

// KW > 0: the kernel width is known at compile time (3, 5, 7, 9) and the tap loop unrolls.
template <class T, int C, int KW>
__global__ void conv2d_kernel(Strip<T> s, T* out, std::size_t out_pitch, int out_rows, int kw_runtime, int kh, Border b) {
  extern __shared__ float tile[];
  const int kw = KW > 0 ? KW : kw_runtime;
  const int rx = kw / 2, ry = kh / 2;
  const int tw = kTileX + 2 * rx, th = kTileY + 2 * ry;
  const int x0 = blockIdx.x * kTileX, yl0 = blockIdx.y * kTileY;  // yl: output row within the strip
  load_tile<T, C>(tile, s, x0, rx, s.y0 + yl0 - ry, tw, th, b);
  __syncthreads();
  const int x = x0 + threadIdx.x;
  if (x >= s.width) return;
  for (int oy = threadIdx.y; oy < kTileY && yl0 + oy < out_rows; oy += blockDim.y) {
    float acc[C];
#pragma unroll
    for (int ch = 0; ch < C; ++ch) acc[ch] = 0.0f;
    for (int j = 0; j < kh; ++j)
#pragma unroll
      for (int i = 0; i < (KW > 0 ? KW : kMaxKernel2D); ++i) {
        if (KW == 0 && i >= kw) break;
        const float w = c_weights[j * kw + i];
        const float* p = tile + ((oy + j) * tw + threadIdx.x + i) * C;
#pragma unroll
        for (int ch = 0; ch < C; ++ch) acc[ch] += w * p[ch];
      }
    T* o = out + static_cast<std::size_t>(yl0 + oy) * out_pitch + static_cast<std::size_t>(x) * C;
#pragma unroll
    for (int ch = 0; ch < C; ++ch) o[ch] = detail::saturate<T>(acc[ch]);
  }
}

// Square kernels of compile-time size K: each thread computes R vertically adjacent outputs and
// reuses every shared-memory value it loads for all of them (R + K - 1 rows instead of R * K).
constexpr int kBlockedTileY = 64;  // 8 outputs per thread (16 measured slower on an H200)

template <class T, int C, int K>
__global__ void conv2d_blocked_kernel(Strip<T> s, T* out, std::size_t out_pitch, int out_rows, Border b) {
  constexpr int R = kBlockedTileY / kThreadsY, r = K / 2;
  extern __shared__ float tile[];
  constexpr int tw = kTileX + 2 * r, th = kBlockedTileY + 2 * r;
  const int x0 = blockIdx.x * kTileX, yl0 = blockIdx.y * kBlockedTileY;
  load_tile<T, C>(tile, s, x0, r, s.y0 + yl0 - r, tw, th, b);
  __syncthreads();
  const int x = x0 + threadIdx.x;
  if (x >= s.width) return;
  const int oy0 = threadIdx.y * R;
  float acc[R][C] = {};
  // Same order of additions per output as the generic kernel and the CPU: rows j, then taps i.
#pragma unroll
  for (int t = 0; t < R + K - 1; ++t)
#pragma unroll
    for (int i = 0; i < K; ++i) {
      float v[C];
#pragma unroll
      for (int ch = 0; ch < C; ++ch) v[ch] = tile[((oy0 + t) * tw + threadIdx.x + i) * C + ch];
#pragma unroll
      for (int k = 0; k < R; ++k) {
        const int j = t - k;
        if (j >= 0 && j < K) {
          const float w = c_weights[j * K + i];
#pragma unroll
          for (int ch = 0; ch < C; ++ch) acc[k][ch] += w * v[ch];
        }
      }
    }
  store_column<T, C, R>(acc, out, out_pitch, yl0 + oy0, out_rows, x);
}

// Row pass over every staged row: tmp[r][x] = sum_i row[i] * src(x + i - rx, staged row r).
template <class T, int C>
__global__ void row_pass_kernel(Strip<T> s, float* tmp, int kw, Border b) {
  extern __shared__ float tile[];
  const int rx = kw / 2, tw = kTileX * 4 + 2 * rx;  // 128 outputs per block row
  const int x0 = blockIdx.x * kTileX * 4, r = blockIdx.y * blockDim.y + threadIdx.y;
  const bool row_ok = r < s.rows;
  const int gy = s.y0 - s.ry + r;
  float* my = tile + threadIdx.y * tw * C;
  const int first_col = x0 - rx;
  if (row_ok && first_col >= 0 && first_col + tw <= s.width && gy >= 0 && gy < s.height) {
    // Inside the image: no border logic.
    const T* row = s.data + static_cast<std::size_t>(s.map_rows ? gy : r) * s.pitch + static_cast<std::size_t>(first_col) * C;
    for (int i = threadIdx.x; i < tw * C; i += blockDim.x) my[i] = static_cast<float>(row[i]);
  } else if (row_ok) {
    for (int tx = threadIdx.x; tx < tw; tx += blockDim.x)
#pragma unroll
      for (int ch = 0; ch < C; ++ch) my[tx * C + ch] = strip_value(s, x0 - rx + tx, gy, ch, b);
  }
  __syncthreads();
  if (!row_ok) return;
  for (int ox = threadIdx.x; ox < kTileX * 4 && x0 + ox < s.width; ox += blockDim.x) {
    float acc[C];
#pragma unroll
    for (int ch = 0; ch < C; ++ch) acc[ch] = 0.0f;
    for (int i = 0; i < kw; ++i) {
      const float w = c_row[i];
#pragma unroll
      for (int ch = 0; ch < C; ++ch) acc[ch] += w * my[(ox + i) * C + ch];
    }
    float* t = tmp + (static_cast<std::size_t>(r) * s.width + x0 + ox) * C;
#pragma unroll
    for (int ch = 0; ch < C; ++ch) t[ch] = acc[ch];
  }
}

// Column pass: out[y][x] = sum_j col[j] * tmp[y + j][x] (tmp row y + j is global row y0 + y + j - ry).
// Each thread produces kColRows consecutive rows of one sample and reads every intermediate
// value once for all of them.
constexpr int kColRows = 8;

template <class T, int C>
__global__ void column_pass_kernel(const float* tmp, int width, T* out, std::size_t out_pitch, int out_rows, int kh) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;  // one sample (pixel * channel) per thread
  const int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * kColRows;
  if (x >= width * C || y0 >= out_rows) return;
  const std::size_t stride = static_cast<std::size_t>(width) * C;
  float acc[kColRows];
#pragma unroll
  for (int k = 0; k < kColRows; ++k) acc[k] = 0.0f;
  const int last = min(kColRows, out_rows - y0) + kh - 1;  // tmp rows this thread needs
  for (int t = 0; t < last; ++t) {
    const float v = tmp[static_cast<std::size_t>(y0 + t) * stride + x];
#pragma unroll
    for (int k = 0; k < kColRows; ++k) {
      const int j = t - k;
      if (j >= 0 && j < kh) acc[k] += c_col[j] * v;
    }
  }
#pragma unroll
  for (int k = 0; k < kColRows; ++k)
    if (y0 + k < out_rows) out[static_cast<std::size_t>(y0 + k) * out_pitch + x] = detail::saturate<T>(acc[k]);
}

// Separable kernels whose tiles fit in 48 KB of shared memory, in one pass: a block loads its input
// tile with the halo (border applied), runs the row pass for every tile row into shared memory,
// then each thread runs the column pass for kFusedTileY / kThreadsY outputs of its column. The
// intermediate image never goes to DRAM. Additions happen in the same order as in the two-pass
// path (taps i, then taps j), so both give the same results.
constexpr int kFusedTileY = 64;  // 8 column outputs per thread (128 rows measured slower: occupancy)
constexpr int kFusedMaxTaps = 33;  // the runtime-size fused kernel unrolls up to this many taps

inline std::size_t fused_smem_bytes(int kw, int kh, int channels) {
  const std::size_t th = kFusedTileY + 2 * (kh / 2), tw = kTileX + 2 * (kw / 2);
  return sizeof(float) * static_cast<std::size_t>(channels) * th * (tw + kTileX);
}

// True when a separable kernel takes the fused path (and so needs no intermediate image).
inline bool fuses(const detail::PreparedKernel& p, int channels) {
  const int kw = static_cast<int>(p.separable.row.size()), kh = static_cast<int>(p.separable.column.size());
  return p.separable.separable && kw <= kFusedMaxTaps && kh <= kFusedMaxTaps &&
         fused_smem_bytes(kw, kh, channels) <= 48 * 1024;
}

// Calls f(std::integral_constant<int, K>{}) for the K among Ks that equals `taps` and returns true,
// or returns false: picks the kernel instantiation with a compile-time tap count.
template <int... Ks, class F>
bool with_taps(int taps, F&& f) {
  return ((taps == Ks ? (f(std::integral_constant<int, Ks>{}), true) : false) || ...);
}

// K > 0: a square K-tap kernel known at compile time, so every tap loop unrolls and each weight is
// an operand of its FMA (the runtime-size version is instruction-bound: about 6x the instructions).
template <class T, int C, int K>
__global__ void separable_fused_kernel(Strip<T> s, T* out, std::size_t out_pitch, int out_rows, int kw_runtime,
                                       int kh_runtime, Border b) {
  extern __shared__ float smem[];
  constexpr int R = kFusedTileY / kThreadsY;
  const int kw = K > 0 ? K : kw_runtime, kh = K > 0 ? K : kh_runtime;
  const int rx = kw / 2, ry = kh / 2;
  const int tw = kTileX + 2 * rx, th = kFusedTileY + 2 * ry;
  float* tile = smem;                // th x tw samples
  float* rows = smem + th * tw * C;  // th x kTileX row-pass results
  const int x0 = blockIdx.x * kTileX, yl0 = blockIdx.y * kFusedTileY;
  load_tile<T, C>(tile, s, x0, rx, s.y0 + yl0 - ry, tw, th, b);
  __syncthreads();
  for (int ty = threadIdx.y; ty < th; ty += blockDim.y) {
    float acc[C];
#pragma unroll
    for (int ch = 0; ch < C; ++ch) acc[ch] = 0.0f;
#pragma unroll
    for (int i = 0; i < (K > 0 ? K : kFusedMaxTaps); ++i) {
      if (K == 0 && i >= kw) break;
      const float w = c_row[i];
#pragma unroll
      for (int ch = 0; ch < C; ++ch) acc[ch] += w * tile[(ty * tw + threadIdx.x + i) * C + ch];
    }
#pragma unroll
    for (int ch = 0; ch < C; ++ch) rows[(ty * kTileX + threadIdx.x) * C + ch] = acc[ch];
  }
  __syncthreads();
  const int x = x0 + threadIdx.x;
  if (x >= s.width) return;
  const int oy0 = threadIdx.y * R;
  float acc[R][C] = {};
#pragma unroll
  for (int t = 0; t < R + (K > 0 ? K : kFusedMaxTaps) - 1; ++t) {
    if (K == 0 && t >= R + kh - 1) break;
    float v[C];
#pragma unroll
    for (int ch = 0; ch < C; ++ch) v[ch] = rows[((oy0 + t) * kTileX + threadIdx.x) * C + ch];
#pragma unroll
    for (int k = 0; k < R; ++k) {
      const int j = t - k;
      if (j >= 0 && j < kh) {
#pragma unroll
        for (int ch = 0; ch < C; ++ch) acc[k][ch] += c_col[j] * v[ch];
      }
    }
  }
  store_column<T, C, R>(acc, out, out_pitch, yl0 + oy0, out_rows, x);
}

// One-channel separable kernels of compile-time size K (the common case: Gaussian and box filters
// on grey or float images). Each thread owns 4 adjacent columns: the row pass reads 4 + 2P inputs
// straight from global memory (P = the radius rounded up to whole float4s; one float4 load per 4
// inputs when rows are 16-byte aligned) and produces 4 outputs, and the column pass reads one
// float4 of row-pass results per tile row for 4 columns. About half the instructions of the
// generic fused kernel, with the same order of additions (so the same results).
constexpr int kWideTileX = 4 * kTileX;  // 128 columns per block
constexpr int kWideTileY = 32;          // 4 rows per thread: small tiles keep more blocks resident

template <class T, int N>
__device__ inline void load_span(float (&v)[N], const T* p) {
  if constexpr (std::is_same_v<T, float> && N % 4 == 0) {
    if ((reinterpret_cast<std::uintptr_t>(p) & 15) == 0) {
#pragma unroll
      for (int q = 0; q < N / 4; ++q) {
        const float4 f = __ldg(reinterpret_cast<const float4*>(p) + q);
        v[4 * q] = f.x, v[4 * q + 1] = f.y, v[4 * q + 2] = f.z, v[4 * q + 3] = f.w;
      }
      return;
    }
  }
#pragma unroll
  for (int i = 0; i < N; ++i) v[i] = static_cast<float>(p[i]);
}

template <class T, int K>
__global__ void __launch_bounds__(kTileX* kThreadsY) separable_wide_kernel(Strip<T> s, T* out, std::size_t out_pitch, int out_rows, Border b) {
  constexpr int r = K / 2, P = (r + 3) / 4 * 4, N = 4 + 2 * P;
  constexpr int R = kWideTileY / kThreadsY, th = kWideTileY + 2 * r;
  __shared__ float4 rows[th][kTileX];  // row-pass results, 4 columns per element
  const int x0 = blockIdx.x * kWideTileX, yl0 = blockIdx.y * kWideTileY;
  const int first_row = s.y0 + yl0 - r;  // global row of tile row 0
  const int xs = x0 + 4 * static_cast<int>(threadIdx.x) - P;  // this thread's first input column
  const int first_local = s.map_rows ? first_row : first_row - (s.y0 - s.ry);
  const bool interior = x0 - P >= 0 && x0 + kWideTileX + P <= s.width && first_row >= 0 && first_row + th <= s.height &&
                        first_local >= 0 && first_local + th <= (s.map_rows ? s.height : s.rows);
  for (int ty = threadIdx.y; ty < th; ty += kThreadsY) {
    float v[N];
    if (interior) {
      load_span<T, N>(v, s.data + static_cast<std::size_t>(first_local + ty) * s.pitch + xs);
    } else {
#pragma unroll
      for (int i = 0; i < N; ++i) v[i] = strip_value(s, xs + i, first_row + ty, 0, b);
    }
    float o[4] = {};
#pragma unroll
    for (int c = 0; c < 4; ++c)
#pragma unroll
      for (int i = 0; i < K; ++i) o[c] += c_row[i] * v[P - r + c + i];
    rows[ty][threadIdx.x] = make_float4(o[0], o[1], o[2], o[3]);
  }
  __syncthreads();
  const int x = x0 + 4 * static_cast<int>(threadIdx.x);
  if (x >= s.width) return;
  const int oy0 = threadIdx.y * R;
  float acc[R][4] = {};
#pragma unroll
  for (int t = 0; t < R + K - 1; ++t) {
    const float4 f = rows[oy0 + t][threadIdx.x];
    const float v[4] = {f.x, f.y, f.z, f.w};
#pragma unroll
    for (int k = 0; k < R; ++k) {
      const int j = t - k;
      if (j >= 0 && j < K) {
#pragma unroll
        for (int c = 0; c < 4; ++c) acc[k][c] += c_col[j] * v[c];
      }
    }
  }
  const int columns = min(4, s.width - x);
#pragma unroll
  for (int k = 0; k < R; ++k) {
    const int y = yl0 + oy0 + k;
    if (y >= out_rows) break;
    T* o = out + static_cast<std::size_t>(y) * out_pitch + x;
    if constexpr (std::is_same_v<T, float>) {
      if (columns == 4 && (reinterpret_cast<std::uintptr_t>(o) & 15) == 0) {
        *reinterpret_cast<float4*>(o) = make_float4(acc[k][0], acc[k][1], acc[k][2], acc[k][3]);
        continue;
      }
    }
#pragma unroll
    for (int c = 0; c < 4; ++c)
      if (c < columns) o[c] = detail::saturate<T>(acc[k][c]);
  }
}

// Puts a kernel's weights into constant memory. They are uploaded only when they differ from the
// last upload: a copy from pageable memory synchronises the stream, which on a stream of frames
// filtered with one kernel would cost a round trip per frame. (Constant memory is shared by all
// streams: concurrent calls with different kernels are serialised by the lock but must not
// overlap in flight; the upload waits for its copy before the weights count as current.)
void upload_weights(const detail::PreparedKernel& p, cudaStream_t stream) {
  static std::mutex mutex;
  static std::vector<float> row, column, weights2d;
  std::lock_guard<std::mutex> lock(mutex);
  if (p.separable.separable) {
    put_weights(c_row, row, p.separable.row, stream);
    put_weights(c_col, column, p.separable.column, stream);
  } else {
    put_weights(c_weights, weights2d, p.kernel.weights, stream);
  }
}

// fixed: the kernel's fixed-point form for 8-bit images (smooth_fixed.cuh), when it has one.
template <class T, int C>
void launch(const detail::PreparedKernel& p, const detail::FixedSmoothing* fixed, const Strip<T>& s, T* out, std::size_t out_pitch,
            int out_rows, float* tmp, const Border& b, cudaStream_t stream) {
  if constexpr (std::is_same_v<T, std::uint8_t>) {
    if (fixed) return launch_fixed<C>(*fixed, s, out, out_pitch, out_rows, b, stream);
  }
  if (!p.separable.separable) {
    const int rx = p.kernel.width / 2, ry = p.kernel.height / 2;
    const std::size_t smem = sizeof(float) * C * (kTileX + 2 * rx) * (kTileY + 2 * ry);
    auto go = [&](auto kernel_fn) {
      if (smem > 48 * 1024)
        GPUVIS_CUDA_CHECK(cudaFuncSetAttribute(kernel_fn, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
      kernel_fn<<<dim3((s.width + kTileX - 1) / kTileX, (out_rows + kTileY - 1) / kTileY), dim3(kTileX, kThreadsY), smem, stream>>>(
          s, out, out_pitch, out_rows, p.kernel.width, p.kernel.height, b);
      GPUVIS_CUDA_CHECK_LAUNCH();
    };
    auto go_blocked = [&](auto kernel_fn) {
      const std::size_t bsmem = sizeof(float) * C * (kTileX + 2 * rx) * (kBlockedTileY + 2 * ry);
      if (bsmem > 48 * 1024)
        GPUVIS_CUDA_CHECK(cudaFuncSetAttribute(kernel_fn, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bsmem)));
      kernel_fn<<<dim3((s.width + kTileX - 1) / kTileX, (out_rows + kBlockedTileY - 1) / kBlockedTileY), dim3(kTileX, kThreadsY), bsmem,
                  stream>>>(s, out, out_pitch, out_rows, b);
      GPUVIS_CUDA_CHECK_LAUNCH();
    };
    const bool square = p.kernel.width == p.kernel.height;
    if (square && with_taps<3, 5, 7, 9>(p.kernel.width, [&](auto k) { go_blocked(conv2d_blocked_kernel<T, C, decltype(k)::value>); })) return;
    if (!with_taps<3, 5, 7, 9>(p.kernel.width, [&](auto k) { go(conv2d_kernel<T, C, decltype(k)::value>); })) go(conv2d_kernel<T, C, 0>);
    return;
  }
  const int kw = static_cast<int>(p.separable.row.size()), kh = static_cast<int>(p.separable.column.size());
  if (fuses(p, C)) {
    const std::size_t fsmem = fused_smem_bytes(kw, kh, C);
    auto fused = [&](auto kernel_fn) {
      kernel_fn<<<dim3((s.width + kTileX - 1) / kTileX, (out_rows + kFusedTileY - 1) / kFusedTileY), dim3(kTileX, kThreadsY),
                  fsmem, stream>>>(s, out, out_pitch, out_rows, kw, kh, b);
      GPUVIS_CUDA_CHECK_LAUNCH();
    };
    if constexpr (C == 1) {
      // The wide kernel has a quarter as many blocks: it wins once they fill the GPU several times
      // over (H200: 4K 50 us vs 56 us), and loses on smaller frames (1080p: 24 us vs 18 us).
      if (static_cast<long>(s.width) * out_rows >= 4L * 1024 * 1024) {
        auto wide = [&](auto kernel_fn) {
          kernel_fn<<<dim3((s.width + kWideTileX - 1) / kWideTileX, (out_rows + kWideTileY - 1) / kWideTileY), dim3(kTileX, kThreadsY), 0,
                      stream>>>(s, out, out_pitch, out_rows, b);
          GPUVIS_CUDA_CHECK_LAUNCH();
        };
        if (kw == kh && with_taps<3, 5, 7, 9, 11, 13, 15>(kw, [&](auto k) { wide(separable_wide_kernel<T, decltype(k)::value>); })) return;
      }
    }
    if (kw != kh || !with_taps<3, 5, 7, 9, 11, 13, 15>(kw, [&](auto k) { fused(separable_fused_kernel<T, C, decltype(k)::value>); }))
      fused(separable_fused_kernel<T, C, 0>);
    return;
  }
  const std::size_t smem = sizeof(float) * C * (kTileX * 4 + 2 * (kw / 2)) * 4;
  if (smem > 48 * 1024)
    GPUVIS_CUDA_CHECK(cudaFuncSetAttribute(row_pass_kernel<T, C>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  row_pass_kernel<T, C><<<dim3((s.width + kTileX * 4 - 1) / (kTileX * 4), (s.rows + 3) / 4), dim3(kTileX, 4), smem, stream>>>(s, tmp, kw, b);
  GPUVIS_CUDA_CHECK_LAUNCH();
  column_pass_kernel<T, C><<<dim3((s.width * C + 127) / 128, (out_rows + 4 * kColRows - 1) / (4 * kColRows)), dim3(128, 4), 0,
                             stream>>>(tmp, s.width, out, out_pitch, out_rows, kh);
  GPUVIS_CUDA_CHECK_LAUNCH();
}

}  // namespace

// The fixed-point form that 8-bit images take (filters/smooth_fixed.hpp), as convolve_cpu does.
template <class T>
std::optional<detail::FixedSmoothing> fixed_form(const detail::PreparedKernel& p, const ConvolveParams& options) {
  if constexpr (std::is_same_v<T, std::uint8_t>) {
    if (options.fixed_point) return detail::fixed_smoothing(p.separable, options.border);
  }
  return std::nullopt;
}

template <class T>
void convolve_cuda(HostView<const T> src, HostView<T> dst, const Kernel& kernel, const ConvolveParams& options) {
  detail::check_images(src, dst);
  const detail::PreparedKernel p = detail::prepare(kernel, options);
  const bool sep = p.separable.separable;
  const int w = src.width, h = src.height, c = src.channels;
  const int ry = (sep ? static_cast<int>(p.separable.column.size()) : p.kernel.height) / 2;
  // Strips from the memory budget: per strip in flight, the staged input (+2ry rows), the float
  // row-pass buffer (none when the separable kernel fuses) and the output.
  const std::size_t row_in = sizeof(T) * static_cast<std::size_t>(w) * c;
  const std::optional<detail::FixedSmoothing> fixed = fixed_form<T>(p, options);
  const std::size_t row_tmp = sep && !fixed && !fuses(p, c) ? sizeof(float) * static_cast<std::size_t>(w) * c : 0;
  const cuda::StripPlan plan = cuda::plan_strips(row_in, row_in, h, ry, row_tmp, options.max_gpu_memory);
  if (plan.strip_rows == 0)
    fail(ErrorCode::invalid_argument, "--max-gpu-memory " + std::to_string(options.max_gpu_memory >> 10) +
                                          " KiB is too small: this image and kernel need at least " +
                                          std::to_string((plan.min_budget + 1023) >> 10) + " KiB");
  auto& pipeline = cuda::StripPipeline<T>::for_this_thread();
  if (fixed) upload_fixed_weights(*fixed, nullptr);
  else upload_weights(p, nullptr);
  // The vertical border is applied by row mapping (constant rows are recognised in the kernel from
  // their global row and need no data).
  auto map_row = [&](int y) { return border_index(y, h, options.border.mode); };
  const detail::FixedSmoothing* f = fixed ? &*fixed : nullptr;
  pipeline.run(src, dst, ry, plan, map_row, [&](const typename cuda::StripPipeline<T>::Strip& strip) {
    const Strip<T> s = staged_strip(strip.in, strip.y0, ry, h);
    if (row_tmp) strip.scratch->reserve(row_tmp * static_cast<std::size_t>(plan.strip_rows + 2 * ry));
    const std::size_t out_pitch = static_cast<std::size_t>(strip.out.stride) / sizeof(T);
    float* tmp = strip.scratch->template as<float>();
    switch (c) {
      case 1: launch<T, 1>(p, f, s, strip.out.data, out_pitch, strip.out.height, tmp, options.border, strip.stream); break;
      case 3: launch<T, 3>(p, f, s, strip.out.data, out_pitch, strip.out.height, tmp, options.border, strip.stream); break;
      default: launch<T, 4>(p, f, s, strip.out.data, out_pitch, strip.out.height, tmp, options.border, strip.stream); break;
    }
  }, options.progress);
}

namespace cuda_impl {

template <class T>
void convolve(DeviceView<const T> src, DeviceView<T> dst, const Kernel& kernel, const ConvolveParams& options,
              gpuvis::cuda::DeviceBuffer& workspace, cudaStream_t stream) {
  detail::check_images(src, dst);
  const detail::PreparedKernel p = detail::prepare(kernel, options);
  const bool sep = p.separable.separable;
  const int w = src.width, h = src.height, c = src.channels;
  const int ry = (sep ? static_cast<int>(p.separable.column.size()) : p.kernel.height) / 2;
  const std::optional<detail::FixedSmoothing> fixed = fixed_form<T>(p, options);
  if (fixed) upload_fixed_weights(*fixed, stream);
  else upload_weights(p, stream);
  // The row pass writes rows -ry .. h+ry-1 (mapped), so the column pass needs no border logic.
  if (sep && !fixed && !fuses(p, c)) workspace.reserve(sizeof(float) * static_cast<std::size_t>(w) * c * (h + 2 * ry));
  const Strip<T> s{src.data, static_cast<std::size_t>(src.stride) / sizeof(T), w, c, h + 2 * ry, 0, ry, h, true};
  T* out = dst.data;
  const std::size_t out_pitch = static_cast<std::size_t>(dst.stride) / sizeof(T);
  const detail::FixedSmoothing* f = fixed ? &*fixed : nullptr;
  switch (c) {
    case 1: launch<T, 1>(p, f, s, out, out_pitch, h, workspace.as<float>(), options.border, stream); break;
    case 3: launch<T, 3>(p, f, s, out, out_pitch, h, workspace.as<float>(), options.border, stream); break;
    default: launch<T, 4>(p, f, s, out, out_pitch, h, workspace.as<float>(), options.border, stream); break;
  }
}

}  // namespace cuda_impl

}  // namespace gpuvis::filters

// Full Bernsen on the GPU: a vertical extrema pass and a horizontal extrema + decision pass, each
// over shared-memory tiles with the van Herk scheme (sliding_window.cuh), so the cost per pixel
// does not grow with the window. Both passes work on four pixels per 32-bit word: the vertical
// pass on four adjacent columns, the horizontal pass on the same column of four rows (the vertical
// pass writes its results transposed, so the horizontal one reads them as they are). The running
// extrema of the van Herk chains use 16-bit lanes on sm_90 (Extrema4); on small frames with large
// windows the chains run over blocks of r+1 instead of 2r+1 (van_herk_block). Edges: the truncated
// window's max/min equals the max/min with clamp-to-edge addressing (the edge pixel is always
// inside the truncated window).
#include <cstdint>

#include "threshold/rules.hpp"
#include "cuda/chain.cuh"
#include "gpuvis/cuda/runtime.hpp"
#include "threshold/cuda/frame_words.cuh"
#include "threshold/cuda/kernels.cuh"
#include "threshold/cuda/sliding_window.cuh"

namespace gpuvis::threshold::cuda_impl {
namespace {

constexpr int kWordsV = 16;   // word columns per vertical tile (64 pixels)
constexpr int kThreadsV = 256;
constexpr int kThreadsH = 256;  // at most; see horizontal_threads()
constexpr int kRowsH = 4;     // rows per horizontal tile = bytes per word
constexpr int kPlaneAlign = 64;

// Transposes a 4x4 byte block: row words r0..r3 (four columns each) -> column words c0..c3 (four
// rows each, row l in byte l). Its own inverse.
__device__ inline void transpose4x4(unsigned r0, unsigned r1, unsigned r2, unsigned r3, unsigned c[4]) {
  const unsigned lo01 = __byte_perm(r0, r1, 0x5140), lo23 = __byte_perm(r2, r3, 0x5140);
  const unsigned hi01 = __byte_perm(r0, r1, 0x7362), hi23 = __byte_perm(r2, r3, 0x7362);
  c[0] = __byte_perm(lo01, lo23, 0x5410);
  c[1] = __byte_perm(lo01, lo23, 0x7632);
  c[2] = __byte_perm(hi01, hi23, 0x5410);
  c[3] = __byte_perm(hi01, hi23, 0x7632);
}

// The vertical pass. Its results go out transposed, as column words: word (q, x) of a plane holds
// column x of rows 4q..4q+3 (row 4q+l in byte l), so the horizontal pass reads one coalesced word
// per column and four rows, with no transposing of its own. COPY: the frame's rows are also
// written to `copy` (copy_pitch words per row), so a frame read across the bus from mapped host
// memory is read once and the decision reads device memory.
template <bool COPY>
__global__ void __launch_bounds__(kThreadsV) vertical_extrema(DeviceView<const std::uint8_t> src, unsigned* vmax_t,
                                                              unsigned* vmin_t, int tpitch, unsigned* copy, int copy_pitch,
                                                              int r, int ty, int kb) {
  gpuvis::cuda::allow_next_kernel();  // the decision kernel may be scheduled now; it waits for this grid's results
  extern __shared__ unsigned smem_u[];
  const int k = 2 * r + 1;
  const Tile<kWordsV, true> t{ty + 2 * r};
  const int area = kWordsV * t.len;
  unsigned* in_smax = smem_u;  // input, then overwritten by the max suffixes
  unsigned* gmax = in_smax + area;
  unsigned* gmin = gmax + area;
  unsigned* smin = gmin + area;
  const int wx = threadIdx.x, x0 = blockIdx.x * kWordsV * 4, y0 = blockIdx.y * ty;
  const int x = x0 + 4 * wx, last_row = src.height - 1;
  // Whole aligned words in every row of the tile: one load per word (the common case).
  const bool words = x0 + kWordsV * 4 <= src.width && ((reinterpret_cast<std::uintptr_t>(src.data) | src.stride) & 3) == 0;
  constexpr int kBatch = 8;  // loads in flight per thread before their stores (a 64-row halo in one round)
  const int step = blockDim.y;
  for (int e0 = threadIdx.y; e0 < t.len; e0 += kBatch * step) {
    unsigned w[kBatch];
#pragma unroll
    for (int j = 0; j < kBatch; ++j) {
      const int e = e0 + j * step, y = min(max(y0 - r + e, 0), last_row);
      if (e < t.len) w[j] = words ? *reinterpret_cast<const unsigned*>(src.row(y) + x) : load4(src, min(x, src.width - 1), y);
    }
#pragma unroll
    for (int j = 0; j < kBatch; ++j) {
      const int e = e0 + j * step;
      if (e >= t.len) break;
      in_smax[t.at(wx, e)] = w[j];
      // Each row of the frame lies in exactly one tile's own (non-halo) rows.
      if constexpr (COPY) {
        const int y = y0 - r + e;
        if (e >= r && e < r + ty && y <= last_row && x < src.width) copy[static_cast<std::size_t>(y) * copy_pitch + x / 4] = w[j];
      }
    }
  }
  __syncthreads();
  prefix_suffix_extrema<true>(in_smax, in_smax, gmax, in_smax, gmin, smin, t, kb);
  __syncthreads();
  // A thread finishes four rows of one word column: 4x4 bytes, transposed into column words and
  // stored as one 16-byte write per plane (the planes' row pitch is a multiple of 64 columns).
  const int quads = min(ty, src.height - y0 + 3) / 4;
  for (int item = threadIdx.x + threadIdx.y * blockDim.x; item < kWordsV * quads; item += blockDim.x * blockDim.y) {
    const int c = item % kWordsV, yl = 4 * (item / kWordsV);
    unsigned mx[4], mn[4];
#pragma unroll
    for (int l = 0; l < 4; ++l) {
      mx[l] = window_extremum<MaxU4>(gmax, in_smax, t, c, yl + l, kb, k);
      mn[l] = window_extremum<MinU4>(gmin, smin, t, c, yl + l, kb, k);
    }
    unsigned cx[4], cn[4];
    transpose4x4(mx[0], mx[1], mx[2], mx[3], cx);
    transpose4x4(mn[0], mn[1], mn[2], mn[3], cn);
    const std::size_t at = static_cast<std::size_t>((y0 + yl) / 4) * tpitch + x0 + 4 * c;
    *reinterpret_cast<uint4*>(vmax_t + at) = make_uint4(cx[0], cx[1], cx[2], cx[3]);
    *reinterpret_cast<uint4*>(vmin_t + at) = make_uint4(cn[0], cn[1], cn[2], cn[3]);
  }
}

// The horizontal pass over the vertical pass's column words (four rows at once) and the decision.
__global__ void __launch_bounds__(kThreadsH) horizontal_extrema_decide(DeviceView<const std::uint8_t> src, const unsigned* vmax_t,
                                                                       const unsigned* vmin_t, int tpitch,
                                                                       DeviceView<std::uint8_t> dst, int r, int gate, int cols,
                                                                       int kb) {
  gpuvis::cuda::await_previous_kernel();  // the vertical pass's planes are complete
  extern __shared__ unsigned smem_u[];
  const int k = 2 * r + 1;
  const Tile<1, false> t{cols + 2 * r};
  unsigned* inmax_smax = smem_u;  // inputs, then overwritten by the suffixes
  unsigned* inmin_smin = inmax_smax + t.len;
  unsigned* gmax = inmin_smin + t.len;
  unsigned* gmin = gmax + t.len;
  const int x0 = blockIdx.x * cols, y0 = blockIdx.y * kRowsH, last_col = src.width - 1;
  const unsigned* line_max = vmax_t + static_cast<std::size_t>(blockIdx.y) * tpitch;
  const unsigned* line_min = vmin_t + static_cast<std::size_t>(blockIdx.y) * tpitch;
  constexpr int kBatch = 4;
  for (int e0 = threadIdx.x; e0 < t.len; e0 += kBatch * blockDim.x) {
    unsigned wx[kBatch], wn[kBatch];
#pragma unroll
    for (int j = 0; j < kBatch; ++j) {
      const int x = min(max(x0 - r + e0 + j * static_cast<int>(blockDim.x), 0), last_col);
      wx[j] = line_max[x];
      wn[j] = line_min[x];
    }
#pragma unroll
    for (int j = 0; j < kBatch; ++j) {
      const int e = e0 + j * static_cast<int>(blockDim.x);
      if (e >= t.len) break;
      inmax_smax[e] = wx[j];
      inmin_smin[e] = wn[j];
    }
  }
  __syncthreads();
  prefix_suffix_extrema<false>(inmax_smax, inmin_smin, gmax, inmax_smax, gmin, inmin_smin, t, kb);
  __syncthreads();
  // Each thread decides a 4x4 block: the window words of four columns (four rows each) are
  // transposed into row words and compared with four source words, four pixels per instruction.
  const bool full_rows = y0 + kRowsH <= src.height;
  const bool aligned =
      ((reinterpret_cast<std::uintptr_t>(src.data) | reinterpret_cast<std::uintptr_t>(dst.data) | src.stride | dst.stride) & 3) == 0;
  for (int xq = 4 * static_cast<int>(threadIdx.x); xq < cols && x0 + xq < src.width; xq += 4 * blockDim.x) {
    const int x = x0 + xq;
    const bool words = full_rows && aligned && x + 3 < src.width;
    unsigned in[kRowsH] = {};
    if (words) {  // the source loads go out before the window work, to overlap their latency
#pragma unroll
      for (int l = 0; l < kRowsH; ++l) in[l] = *reinterpret_cast<const unsigned*>(src.row(y0 + l) + x);
    }
    unsigned mxc[4], mnc[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      mxc[j] = window_extremum<MaxU4>(gmax, inmax_smax, t, 0, xq + j, kb, k);
      mnc[j] = window_extremum<MinU4>(gmin, inmin_smin, t, 0, xq + j, kb, k);
    }
    unsigned mxr[4], mnr[4];
    transpose4x4(mxc[0], mxc[1], mxc[2], mxc[3], mxr);
    transpose4x4(mnc[0], mnc[1], mnc[2], mnc[3], mnr);
    if (words) {
#pragma unroll
      for (int l = 0; l < kRowsH; ++l)
        *reinterpret_cast<unsigned*>(dst.row(y0 + l) + x) = rules::bernsen4(in[l], mxr[l], mnr[l], gate);
      continue;
    }
    for (int l = 0; l < kRowsH && y0 + l < src.height; ++l) {
      const std::uint8_t* row_in = src.row(y0 + l) + x;
      std::uint8_t* row_out = dst.row(y0 + l) + x;
      for (int j = 0; j < 4 && x + j < src.width; ++j)
        row_out[j] = rules::bernsen(row_in[j], (mxr[l] >> (8 * j)) & 0xff, (mnr[l] >> (8 * j)) & 0xff, gate);
    }
  }
}

// Rows per vertical tile: long tiles amortise the 2r halo, but small frames need enough tiles to
// fill the GPU. Swept on an H200 with the 16-bit-lane chains (run of 2026-11-21 (e4e8a73), 4K kernels): h=6
// 32.3 us at 32 rows, 30.5 at 64, 28.9 at 128; h=32 51.3, 43.6, 40.6.
int rows_per_vertical_tile(int width, int height) {
  int ty = 128;
  const long columns = (width + kWordsV * 4 - 1) / (kWordsV * 4);
  while (ty > 32 && columns * ((height + ty - 1) / ty) < 264) ty /= 2;
  return ty;
}

// The van Herk block length of both passes: the window 2r+1 itself, or r+1 (each window then
// the union of two overlapping blocks' windows, window_extremum) where the frame is too small to
// fill the GPU and the chains are long: the chains, one thread's serial work, are then the time.
// Swept on an H200 (run of 2026-11-22 (36ae547), kernels launched / as a graph, us): 640x480 h=32 11.6 /
// 10.4 with 2r+1, 9.5 / 8.3 with r+1; h=12 8.7 / 7.1 and 9.1 / 6.7; h=6 7.4 / 5.9 and 8.6 / 6.3;
// 3840x2160 h=32 39.5 / 37.7 and 41.8 / 40.1 (the extra reads cost more than the shorter chains).
int van_herk_block(int width, int height, int r) {
  const bool small_frame = static_cast<long>(width) * height < (1 << 20);
  return small_frame && r >= 16 ? r + 1 : 2 * r + 1;
}

// Output columns and threads per horizontal tile. Only (cols+2r)/k work items exist in the
// prefix/suffix phase, so the tile must be wide for the threads to have work; on large frames
// blocks of 128 threads keep more tiles resident, small frames need 256 for their loads. Swept on
// an H200 (run of 2026-11-21 (e4e8a73); 4K kernels h=6 / h=32: 512 cols and 128 threads 33.1 / 45.7 us,
// 768/128 30.2 / 40.7, 1024/128 30.2 / 37.9, 1024/256 31.4 / 42.1; 640x480 h=6: 320/256 6.9,
// 640/256 7.2, 640/64 17.1).
constexpr int kColsH = 1024;
int horizontal_threads(int width, int height) { return static_cast<long>(width) * height >= (1 << 20) ? 128 : 256; }

}  // namespace

void bernsen(DeviceView<const std::uint8_t> src, DeviceView<std::uint8_t> dst, const BernsenParams& p,
             Workspace& ws, cudaStream_t stream, bool src_is_mapped_host) {
  // A frame in mapped host memory with a small window: one launch, each pixel across the bus once.
  if (src_is_mapped_host && p.half_window <= kMappedFusedMaxRadius) return bernsen_mapped_fused(src, dst, p, ws, stream);
  const int w = src.width, h = src.height, r = p.half_window;
  // The planes between the passes: one word per column and four rows; rows of whole vertical tiles.
  const int tpitch = (w + kWordsV * 4 - 1) / (kWordsV * 4) * (kWordsV * 4);
  const std::size_t plane = sizeof(unsigned) * static_cast<std::size_t>(tpitch) * ((h + kRowsH - 1) / kRowsH);
  ws.a.reserve(plane);
  ws.b.reserve(plane);
  const int ty = rows_per_vertical_tile(w, h);
  const int kb = van_herk_block(w, h, r);
  const std::size_t smem_v = 4u * sizeof(unsigned) * kWordsV * static_cast<std::size_t>(ty + 2 * r);
  const std::size_t smem_h = 4u * sizeof(unsigned) * static_cast<std::size_t>(kColsH + 2 * r);
  // A frame in mapped host memory (larger windows) is read across the bus once: the vertical pass
  // keeps a copy of it on the device for the decision.
  const auto vertical = src_is_mapped_host ? vertical_extrema<true> : vertical_extrema<false>;
  set_max_dynamic_smem(vertical, smem_v);
  set_max_dynamic_smem(horizontal_extrema_decide, smem_h);
  DeviceView<const std::uint8_t> decide_src = src;
  unsigned* copy = nullptr;
  int copy_words = 0;
  if (src_is_mapped_host) {
    const int copy_pitch = (w + kPlaneAlign - 1) / kPlaneAlign * kPlaneAlign;
    ws.frame.reserve(static_cast<std::size_t>(copy_pitch) * h);
    decide_src = DeviceView<const std::uint8_t>{ws.frame.as<std::uint8_t>(), w, h, 1, copy_pitch};
    copy = ws.frame.as<unsigned>();
    copy_words = copy_pitch / 4;
  }
  vertical<<<dim3((w + kWordsV * 4 - 1) / (kWordsV * 4), (h + ty - 1) / ty), dim3(kWordsV, kThreadsV / kWordsV), smem_v, stream>>>(
      src, ws.a.as<unsigned>(), ws.b.as<unsigned>(), tpitch, copy, copy_words, r, ty, kb);
  GPUVIS_CUDA_CHECK_LAUNCH();
  // The decision kernel is chained (cuda/chain.cuh): on Hopper it is scheduled while the vertical
  // pass still runs, so the launch gap leaves the frame time.
  gpuvis::cuda::launch_chained(horizontal_extrema_decide, dim3((w + kColsH - 1) / kColsH, (h + kRowsH - 1) / kRowsH),
                               dim3(horizontal_threads(w, h)), smem_h, stream, decide_src,
                               static_cast<const unsigned*>(ws.a.as<unsigned>()), static_cast<const unsigned*>(ws.b.as<unsigned>()),
                               tpitch, dst, r, p.gate, kColsH, kb);
}

}  // namespace gpuvis::threshold::cuda_impl

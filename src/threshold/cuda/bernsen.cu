// Full Bernsen on the GPU: a vertical extrema pass and a horizontal extrema + decision pass, each
// over shared-memory tiles with the van Herk scheme (sliding_window.cuh), so the cost per pixel
// does not grow with the window. Both passes work on four bytes at once with the SIMD-in-a-word
// instructions __vmaxu4/__vminu4: the vertical pass packs four adjacent columns into a word, the
// horizontal pass packs the same column of four rows. Edges: the truncated window's max/min equals
// the max/min with clamp-to-edge addressing (the edge pixel is always inside the truncated window).
#include <cstdint>

#include "../rules.hpp"
#include "gpuvis/cuda/runtime.hpp"
#include "kernels.cuh"
#include "sliding_window.cuh"

namespace gpuvis::threshold::cuda_impl {
namespace {

constexpr int kWordsV = 16;   // word columns per vertical tile (64 pixels)
constexpr int kThreadsV = 256;
constexpr int kThreadsH = 256;  // at most; see horizontal_threads()
constexpr int kRowsH = 4;     // rows per horizontal tile = bytes per word
constexpr int kPlaneAlign = 64;

// Four source bytes starting at column x of row y (clamped to the image), packed little-endian.
__device__ inline unsigned load4(const DeviceView<const std::uint8_t>& src, int x, int y) {
  const std::uint8_t* row = src.row(y);
  if (x + 3 < src.width && (reinterpret_cast<std::uintptr_t>(row + x) & 3) == 0)
    return *reinterpret_cast<const unsigned*>(row + x);
  const int last = src.width - 1;
  return row[min(x, last)] | row[min(x + 1, last)] << 8 | row[min(x + 2, last)] << 16 |
         static_cast<unsigned>(row[min(x + 3, last)]) << 24;
}

// copy (optional): the frame's rows are also written there (pitch_words words per row), so a frame
// read across the bus from mapped host memory is read once and the second pass reads device memory.
__global__ void __launch_bounds__(kThreadsV) vertical_extrema(DeviceView<const std::uint8_t> src, unsigned* vmax,
                                                              unsigned* vmin, unsigned* copy, int pitch_words, int r, int ty) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaTriggerProgrammaticLaunchCompletion();  // the decision kernel may be scheduled now; it waits for this grid's results
#endif
  extern __shared__ unsigned smem_u[];
  const int k = 2 * r + 1;
  const Tile<kWordsV, true> t{ty + 2 * r};
  const int area = kWordsV * t.len;
  unsigned* in_smax = smem_u;  // input, then overwritten by the max suffixes
  unsigned* gmax = in_smax + area;
  unsigned* gmin = gmax + area;
  unsigned* smin = gmin + area;
  const int wx = threadIdx.x, x0 = blockIdx.x * kWordsV * 4, y0 = blockIdx.y * ty;
  const int x = x0 + 4 * wx;
  for (int e = threadIdx.y; e < t.len; e += blockDim.y) {
    const int y = y0 - r + e;
    const unsigned word = load4(src, min(x, src.width - 1), min(max(y, 0), src.height - 1));
    in_smax[t.at(wx, e)] = word;
    // Each row of the frame lies in exactly one tile's own (non-halo) rows.
    if (copy && e >= r && e < r + ty && y < src.height && x < src.width) copy[static_cast<std::size_t>(y) * pitch_words + x / 4] = word;
  }
  __syncthreads();
  prefix_suffix<MaxU4, MinU4>(in_smax, in_smax, gmax, in_smax, gmin, smin, t, k);
  __syncthreads();
  if (x >= src.width) return;
  const int rows = min(ty, src.height - y0);
  const float inv_k = 1.0f / static_cast<float>(k);
  for (int yl = threadIdx.y; yl < rows; yl += blockDim.y) {
    const bool start = div_small(yl, inv_k) * k == yl;
    const std::size_t at = static_cast<std::size_t>(y0 + yl) * pitch_words + x / 4;
    vmax[at] = window<MaxU4>(gmax, in_smax, t, wx, yl, k, start);
    vmin[at] = window<MinU4>(gmin, smin, t, wx, yl, k, start);
  }
}

// Byte `l` of column x in four consecutive rows of a plane, packed: row y0+l in byte l.
__device__ inline unsigned column4(const std::uint8_t* plane, std::size_t pitch, int x, int y0, int last_row) {
  unsigned w = 0;
#pragma unroll
  for (int l = 0; l < 4; ++l) w |= static_cast<unsigned>(plane[static_cast<std::size_t>(min(y0 + l, last_row)) * pitch + x]) << (8 * l);
  return w;
}

// Transposes a 4x4 byte block: row words r0..r3 (four columns each) -> column words c0..c3 (four
// rows each, row l in byte l).
__device__ inline void transpose4x4(unsigned r0, unsigned r1, unsigned r2, unsigned r3, unsigned c[4]) {
  const unsigned lo01 = __byte_perm(r0, r1, 0x5140), lo23 = __byte_perm(r2, r3, 0x5140);
  const unsigned hi01 = __byte_perm(r0, r1, 0x7362), hi23 = __byte_perm(r2, r3, 0x7362);
  c[0] = __byte_perm(lo01, lo23, 0x5410);
  c[1] = __byte_perm(lo01, lo23, 0x7632);
  c[2] = __byte_perm(hi01, hi23, 0x5410);
  c[3] = __byte_perm(hi01, hi23, 0x7632);
}

// Fills line[e] = column (xs + e) of rows y0..y0+3 packed, for e in [0, len), clamping to the frame.
// Interior quads use four aligned word loads and a register transpose instead of 16 byte loads.
__device__ inline void load_columns(unsigned* line, const std::uint8_t* plane, int pitch, int xs, int len, int y0,
                                    int width, int last_row) {
  const int a = xs >= 0 ? (xs & ~3) : -((-xs + 3) & ~3);  // xs rounded down to a multiple of 4
  const std::uint8_t* rows[4];
#pragma unroll
  for (int l = 0; l < 4; ++l) rows[l] = plane + static_cast<std::size_t>(min(y0 + l, last_row)) * pitch;
  for (int xq = a + 4 * static_cast<int>(threadIdx.x); xq < xs + len; xq += 4 * blockDim.x) {
    if (xq >= 0 && xq + 3 < width) {
      unsigned c[4];
      transpose4x4(*reinterpret_cast<const unsigned*>(rows[0] + xq), *reinterpret_cast<const unsigned*>(rows[1] + xq),
                   *reinterpret_cast<const unsigned*>(rows[2] + xq), *reinterpret_cast<const unsigned*>(rows[3] + xq), c);
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const int e = xq + j - xs;
        if (e >= 0 && e < len) line[e] = c[j];
      }
    } else {
      for (int j = 0; j < 4; ++j) {
        const int e = xq + j - xs;
        if (e >= 0 && e < len) line[e] = column4(plane, pitch, min(max(xq + j, 0), width - 1), y0, last_row);
      }
    }
  }
}

__global__ void __launch_bounds__(kThreadsH) horizontal_extrema_decide(DeviceView<const std::uint8_t> src, const std::uint8_t* vmax,
                                                                       const std::uint8_t* vmin, int pitch,
                                                                       DeviceView<std::uint8_t> dst, int r, int gate, int cols) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();  // the vertical pass's planes are complete (no-op without early launch)
#endif
  extern __shared__ unsigned smem_u[];
  const int k = 2 * r + 1;
  const Tile<1, false> t{cols + 2 * r};
  unsigned* inmax_smax = smem_u;
  unsigned* inmin = inmax_smax + t.len;
  unsigned* gmax = inmin + t.len;
  unsigned* gmin = gmax + t.len;
  unsigned* smin = gmin + t.len;
  const int x0 = blockIdx.x * cols, y0 = blockIdx.y * kRowsH, last_row = src.height - 1;
  load_columns(inmax_smax, vmax, pitch, x0 - r, t.len, y0, src.width, last_row);
  load_columns(inmin, vmin, pitch, x0 - r, t.len, y0, src.width, last_row);
  __syncthreads();
  prefix_suffix<MaxU4, MinU4>(inmax_smax, inmin, gmax, inmax_smax, gmin, smin, t, k);
  __syncthreads();
  // Each thread decides a 4x4 block: the window words of four columns (four rows each) are
  // transposed into row words and compared with four source words, four pixels per instruction.
  const float inv_k = 1.0f / static_cast<float>(k);
  const bool full_rows = y0 + kRowsH <= src.height;
  for (int xq = 4 * static_cast<int>(threadIdx.x); xq < cols && x0 + xq < src.width; xq += 4 * blockDim.x) {
    unsigned mxc[4], mnc[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int xl = xq + j;
      const bool start = div_small(xl, inv_k) * k == xl;
      mxc[j] = window<MaxU4>(gmax, inmax_smax, t, 0, xl, k, start);
      mnc[j] = window<MinU4>(gmin, smin, t, 0, xl, k, start);
    }
    unsigned mxr[4], mnr[4];
    transpose4x4(mxc[0], mxc[1], mxc[2], mxc[3], mxr);
    transpose4x4(mnc[0], mnc[1], mnc[2], mnc[3], mnr);
    const int x = x0 + xq;
    const bool full_quad = x + 3 < src.width;
#pragma unroll
    for (int l = 0; l < kRowsH; ++l) {
      if (!full_rows && y0 + l >= src.height) break;
      const std::uint8_t* in = src.row(y0 + l) + x;
      std::uint8_t* out = dst.row(y0 + l) + x;
      const bool words = full_quad && ((reinterpret_cast<std::uintptr_t>(in) | reinterpret_cast<std::uintptr_t>(out)) & 3) == 0;
      if (words) {
        *reinterpret_cast<unsigned*>(out) = rules::bernsen4(*reinterpret_cast<const unsigned*>(in), mxr[l], mnr[l], gate);
      } else {
        for (int j = 0; j < 4 && x + j < src.width; ++j)
          out[j] = rules::bernsen(in[j], (mxr[l] >> (8 * j)) & 0xff, (mnr[l] >> (8 * j)) & 0xff, gate);
      }
    }
  }
}

// Rows per vertical tile: long tiles amortise the 2r halo, but small frames need enough tiles to
// fill the GPU, and beyond 128 rows the shared memory of a tile limits the resident blocks more
// than the halo costs (4K, h=32: 71 us at 128 rows, 82 us at 256 on an H200).
int rows_per_vertical_tile(int r, int width, int height) {
  int ty = 8 * r < 64 ? 64 : (8 * r > 128 ? 128 : 8 * r);
  const long columns = (width + kWordsV * 4 - 1) / (kWordsV * 4);
  while (ty > 32 && columns * ((height + ty - 1) / ty) < 264) ty /= 2;
  return ty;
}

// Output columns and threads per horizontal tile. Only (cols+2r)/k work items exist in the
// prefix/suffix phase, so the tile must be wide for the threads to have work (barrier stalls
// dominated with 256 columns); on large frames blocks of 128 threads keep more tiles resident,
// small frames need 256 for their loads. Swept on an H200 (4K, h=6: 256 cols/64 threads 47.8 us,
// 768/128 37.3 us, 1024/128 38.9 us; 640x480: 768/256 9.4 us, 256/256 10.3 us).
constexpr int kColsH = 768;
int horizontal_threads(int width, int height) { return static_cast<long>(width) * height >= (1 << 20) ? 128 : 256; }

}  // namespace

void bernsen(DeviceView<const std::uint8_t> src, DeviceView<std::uint8_t> dst, const BernsenParams& p,
             Workspace& ws, cudaStream_t stream, bool src_is_mapped_host) {
  const int w = src.width, h = src.height, r = p.half_window;
  const int pitch = (w + kPlaneAlign - 1) / kPlaneAlign * kPlaneAlign;  // whole words, aligned rows
  const std::size_t plane = static_cast<std::size_t>(pitch) * h;
  ws.a.reserve(plane);
  ws.b.reserve(plane);
  const int ty = rows_per_vertical_tile(r, w, h);
  const std::size_t smem_v = 4u * sizeof(unsigned) * kWordsV * static_cast<std::size_t>(ty + 2 * r);
  const int cols = kColsH;
  const std::size_t smem_h = 5u * sizeof(unsigned) * static_cast<std::size_t>(cols + 2 * r);
  set_max_dynamic_smem(vertical_extrema, smem_v);
  set_max_dynamic_smem(horizontal_extrema_decide, smem_h);
  // A frame in mapped host memory is read across the bus once: the first pass keeps a copy.
  if (src_is_mapped_host) ws.frame.reserve(plane);
  unsigned* copy = src_is_mapped_host ? ws.frame.as<unsigned>() : nullptr;
  const DeviceView<const std::uint8_t> decide_src =
      src_is_mapped_host ? DeviceView<const std::uint8_t>{ws.frame.as<std::uint8_t>(), w, h, 1, pitch} : src;
  vertical_extrema<<<dim3((w + kWordsV * 4 - 1) / (kWordsV * 4), (h + ty - 1) / ty), dim3(kWordsV, kThreadsV / kWordsV),
                     smem_v, stream>>>(src, ws.a.as<unsigned>(), ws.b.as<unsigned>(), copy, pitch / 4, r, ty);
  GPUVIS_CUDA_CHECK_LAUNCH();
  // On Hopper the second kernel is launched while the first still runs (programmatic dependent
  // launch) and waits for it in cudaGridDependencySynchronize: the launch gap leaves the frame time.
  cudaLaunchConfig_t config{};
  config.gridDim = dim3((w + cols - 1) / cols, (h + kRowsH - 1) / kRowsH);
  config.blockDim = dim3(horizontal_threads(w, h));
  config.dynamicSmemBytes = smem_h;
  config.stream = stream;
  cudaLaunchAttribute early{};
  early.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  early.val.programmaticStreamSerializationAllowed = 1;
  config.attrs = &early;
  config.numAttrs = gpuvis::cuda::current_device_major() >= 9 ? 1 : 0;
  GPUVIS_CUDA_CHECK(cudaLaunchKernelEx(&config, horizontal_extrema_decide, decide_src, static_cast<const std::uint8_t*>(ws.a.as<std::uint8_t>()),
                                       static_cast<const std::uint8_t*>(ws.b.as<std::uint8_t>()), pitch, dst, r, p.gate, cols));
  GPUVIS_CUDA_CHECK_LAUNCH();
}

}  // namespace gpuvis::threshold::cuda_impl

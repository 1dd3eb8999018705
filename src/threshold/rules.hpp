#pragma once
// The per-pixel decision rules of each threshold method, shared verbatim by the CPU and CUDA
// implementations so both follow one definition (docs/thresholds.md).
#include <cstdint>

#include "gpuvis/core/image.hpp"

#define GPUVIS_RULE GPUVIS_HD static inline
#include "threshold/bernsen_rule.h"
#include "threshold/equalize_rule.h"
#include "threshold/bradley_roth_rule.h"
#include "threshold/tiled_rule.h"
#undef GPUVIS_RULE

namespace gpuvis::threshold::rules {

// Full Bernsen: T = floor((max+min)/2); low contrast (max-min < gate) -> black if T < 127 else white;
// otherwise white iff v > T. Defined once in C for the three backends (bernsen_rule.h).
GPUVIS_HD inline std::uint8_t bernsen(unsigned v, unsigned mx, unsigned mn, int gate) { return gpuvis_bernsen_rule(v, mx, mn, gate); }

// The same rule over a row, written without branches so the compiler vectorises it (the CPU
// backend's decision loop): floor((mx+mn)/2) in eight bits is (mx & mn) + ((mx ^ mn) >> 1), and
// the contrast fits eight bits because mx >= mn for the extrema of one window. gate is 0..255.
inline void bernsen_row(const std::uint8_t* v, const std::uint8_t* mx, const std::uint8_t* mn, std::uint8_t* out, int n, int gate) {
  const auto g = static_cast<std::uint8_t>(gate);
  for (int x = 0; x < n; ++x) {
    const auto t = static_cast<std::uint8_t>((mx[x] & mn[x]) + ((mx[x] ^ mn[x]) >> 1));
    const auto contrast = static_cast<std::uint8_t>(mx[x] - mn[x]);
    const std::uint8_t low_value = t >= 127 ? 255 : 0;
    const std::uint8_t normal = v[x] > t ? 255 : 0;
    out[x] = contrast < g ? low_value : normal;
  }
}

#if defined(__CUDACC__)
// The same rule for four pixels packed in a word (byte i = pixel i), with the SIMD-in-a-word
// instructions: floor((mx+mn)/2) per byte is (mx & mn) + ((mx ^ mn) >> 1), without carries between
// bytes; the comparison results are 0xff/0x00 per byte, which are exactly the output values.
__device__ inline unsigned bernsen4(unsigned v, unsigned mx, unsigned mn, int gate) {
  const unsigned t = (mx & mn) + (((mx ^ mn) >> 1) & 0x7f7f7f7fu);
  const unsigned low = __vcmpltu4(__vsub4(mx, mn), 0x01010101u * static_cast<unsigned>(gate));
  const unsigned low_white = __vcmpgeu4(t, 0x7f7f7f7fu);
  const unsigned normal = __vcmpgtu4(v, t);
  return (low & low_white) | (~low & normal);
}
#endif

// Tiled Bernsen (spec §2.4): the tile threshold, the cell grid and a cell's statistics, defined
// once in C for the three backends (tiled_rule.h).
GPUVIS_HD inline int tiled_threshold(int mn, int mx, int gradient) { return gpuvis_tiled_threshold(mn, mx, gradient); }

// The cell grid along one axis of n pixels for tile T (gpuvis_cell_count and friends).
struct CellAxis {
  int tile;   // T
  int count;  // F + 2
  GPUVIS_HD static CellAxis make(int n, int tile) { return {tile, gpuvis_cell_count(n, tile)}; }
  GPUVIS_HD int begin(int k, int n) const { return gpuvis_cell_begin(k, n, tile); }
  GPUVIS_HD int end(int k, int n) const { return gpuvis_cell_end(k, n, tile); }
};

// One cell's (min, max) packed as min | max << 8 (gpuvis_cell_stats: the quirk Q1 scan).
inline unsigned cell_stats(HostView<const std::uint8_t> src, int x0, int x1, int y0, int y1) {
  return gpuvis_cell_stats(src.data, static_cast<long>(src.stride), x0, x1, y0, y1);
}

// Bradley-Roth constants (spec §2.5), derived once per call.
struct BradleyRothConst {
  int r;           // clamped window half-size
  std::uint32_t k; // 1024 - trunc(bias*1024)
  std::uint32_t m; // minimum mean
};

// Classifies one pixel from its clamped window sum S, window bounds and value v (defined once in C
// for the three backends: bradley_roth_rule.h).
GPUVIS_HD inline std::uint8_t bradley_roth(std::uint32_t v, std::uint32_t s, int x, int width, int x0, int x1,
                                           int y0, int y1, const BradleyRothConst& c) {
  return gpuvis_bradley_roth_rule(v, s, x, width, x0, x1, y0, y1, c.r, c.k, c.m);
}

inline BradleyRothConst bradley_roth_const(int height, int size, float bias, int contrast) {
  // reacTIVision clamps the window to [1, min(63, Hs/2)] with Hs = H for one strip; a frame of one
  // row would give an empty range, so 1 wins there.
  int max_window = height / 2 < 63 ? height / 2 : 63;
  int r = size < max_window ? size : max_window;
  if (r < 1) r = 1;
  const auto bi = static_cast<std::int32_t>(bias * 1024.0f);  // trunc, computed in float
  return {r, static_cast<std::uint32_t>(1024 - bi), static_cast<std::uint32_t>(contrast)};
}

}  // namespace gpuvis::threshold::rules

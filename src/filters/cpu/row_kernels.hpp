#pragma once
// The CPU filters' inner loops, one output row at a time over float rows the caller has already
// padded per the border mode, so no loop here checks bounds. Two implementations share this
// interface: row_kernels_hwy.cpp (Google Highway, the best vector unit of the running CPU chosen at
// run time) when the build found Highway, else row_kernels_portable.cpp (plain loops the compiler
// vectorises for the baseline instruction set). Both sum in the same order; they may differ in the
// last bits of a float where one fuses a multiply-add and the other does not.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpuvis::filters::cpu_rows {

// out[x] = Σ_t weights[t] · taps[t][x] for x in [0, n), summed in the order of t. A tap is a
// pointer into a padded row at the kernel entry's offset, so one call computes a whole output row
// of a 2D correlation (one tap per non-zero weight), or one pass of a separable one.
void correlate(const float* const* taps, const float* weights, int tap_count, std::size_t n, float* out);

// Several output rows of a 2D correlation at once, so that each vector loaded from an input row
// serves every output row it is a tap of (a kernel of H rows reads each input row for H outputs;
// one row at a time it was loaded H times, from L2 for wide images):
//   out[j][x] = Σ_r Σ_o weights[r·cols + o] · rows[j + r][x + offsets[o]],  j < count,
// over the kernel's rows r < kernel_rows and columns o < kernel_cols whose weight is not 0, summed
// in the order of r then o, so each output is correlate()'s sum of the same non-zero taps in the
// same order, bit for bit. rows: kernel_rows + count - 1 pointers; count: 1 .. kRowsAtOnce.
inline constexpr int kRowsAtOnce = 4;
void correlate_rows(const float* const* rows, const float* weights, int kernel_rows, int kernel_cols, const std::ptrdiff_t* offsets, int count,
                    std::size_t n, float* const* out);

// Output row j's non-zero taps of correlate_rows(), in its order: their pointers appended to
// `pointers` and, where `tap_weights` is given, their weights (the same for every j).
inline void append_row_taps(const float* const* rows, const float* weights, int kernel_rows, int kernel_cols, const std::ptrdiff_t* offsets,
                            int j, std::vector<const float*>& pointers, std::vector<float>* tap_weights) {
  for (int r = 0; r < kernel_rows; ++r)
    for (int o = 0; o < kernel_cols; ++o)
      if (const float w = weights[r * kernel_cols + o]; w != 0.0f) {
        pointers.push_back(rows[j + r] + offsets[o]);
        if (tap_weights) tap_weights->push_back(w);
      }
}

// Samples to float, and floats back to samples rounded to nearest (ties to even) and saturated, as
// detail::saturate does.
void to_float(const std::uint8_t* src, std::size_t n, float* dst);
void to_float(const std::uint16_t* src, std::size_t n, float* dst);
void from_float(const float* src, std::size_t n, std::uint8_t* dst);
void from_float(const float* src, std::size_t n, std::uint16_t* dst);
// Floats are copied, so callers need no case for float images.
inline void to_float(const float* src, std::size_t n, float* dst) { std::copy_n(src, n, dst); }
inline void from_float(const float* src, std::size_t n, float* dst) { std::copy_n(src, n, dst); }

// Whether bilateral() looks colour distances' 8-bit weights up in BilateralRow's d2_table (760 KB
// for RGB); when not (it computes them), callers need not build it. The 1 KB abs_table is always
// worth building for 8-bit images: an implementation reads it where that is faster than computing.
bool bilateral_uses_colour_table();
// How 8-bit per-channel range weights are found: computed (weight_exp on a vector), gathered from
// the 1 KB abs_table, or looked up in a copy of that table held in sixteen AVX-512 registers (two-
// table permutes; AVX-512 CPUs only, elsewhere it means gathered). All give the same values; which
// is fastest depends on the CPU (gathers are slow on some x86 cores and fast on others).
enum class WeightLookup { fastest = -1, compute = 0, gather = 1, registers = 2 };
// For tests: force one way; `fastest` (the default) picks the fastest on this CPU, measured at
// the first call.
void set_bilateral_lookup(WeightLookup choice);
// The way in use, and its name for reports ("computed", "gathered", "registers").
WeightLookup bilateral_lookup();
const char* bilateral_lookup_name();

// The bilateral filter's fixed-σr case for one output row, on planar rows: plane c of source row
// (y + dy) starts at rows[(dy + radius) * channels + c], padded by `radius` on each side, so that
// pixel x's neighbour dx is at index x + radius + dx. Taps are the window's offsets (dx, dy) with
// their spatial weights. The range weight is detail::weight_exp(d² · range_coeff), range_coeff = -1/2σr²; for
// 8-bit images, whose differences are integers, tables may hold it: `abs_table[|d|]` (256 entries)
// where one channel's difference decides (grey, per-channel mode), `d2_table[d²]` for the colour
// distance. An implementation may compute a weight instead of looking it up.
struct BilateralRow {
  const float* const* rows;
  int channels;  // 1, 3 or 4 (the fourth is filtered, not compared)
  int radius;
  const int* tap_dx;
  const int* tap_dy;
  const float* tap_weight;  // weight_exp(r² · space_coeff)
  int tap_count;
  bool per_channel;  // RangeMode::per_channel: each channel weighs by its own distance
  bool l1;           // ColourDistance::l1 (colour mode): (Σ|d|)² instead of Σd²
  const float* abs_table;
  const float* d2_table;
  float range_coeff;
  // Weights shared with other rows (where bilateral_reuses_weights()). A tap's weight is the same
  // for the two pixels it joins: pixel x's tap (dx, dy) and pixel x + dx of row y + dy's tap
  // (-dx, -dy) compare the same two values at the same distance. So a row stores the weights of
  // its taps below (store[t], for taps with dy > 0) and a later row reads them for its taps above
  // (reuse[t], for dy < 0: what row y + dy stored for the opposite tap) instead of computing
  // them again. A tap's weights are one plane of floats per pixel (per-channel mode: one plane per
  // channel, weight_stride floats apart); only pixels in whole vectors of the implementation are
  // stored, and a reuse pointer is read only where every pixel it needs was. Null: compute.
  float* const* store = nullptr;
  const float* const* reuse = nullptr;
  std::size_t weight_stride = 0;
};
// out: `channels` planes of `width` floats, plane c at out + c * width.
void bilateral(const BilateralRow& row, int width, float* out);
// Whether bilateral() honours BilateralRow::store and reuse (else callers leave them null).
bool bilateral_reuses_weights();

// Which implementation runs, for `gpuvis info` and the benchmark reports ("highway AVX2", "portable").
const char* implementation();

}  // namespace gpuvis::filters::cpu_rows

#pragma once
// One Life generation on a machine word of cells, shared verbatim by the CPU backend (64-bit words)
// and the CUDA kernels (32-bit words), so both compute the same boards bit for bit.
//
// A word holds n consecutive cells of a row, least significant bit first. A generation is built
// from row sums: for every cell, the number of live cells among itself and its two horizontal
// neighbours (0..3, two bit planes); three row sums stacked vertically give the live cells of the
// 3x3 block around a cell (0..9, four bit planes), from which the rule decides.
#include <cstdint>

#include "gpuvis/core/image.hpp"  // GPUVIS_HD

namespace gpuvis::life::rules {

template <class W>
inline constexpr int bits = static_cast<int>(sizeof(W) * 8);

// The 3-cell horizontal sum of each cell of `centre`, given the words to its left and right.
template <class W>
GPUVIS_HD inline void row_sum(W left, W centre, W right, W& ones, W& twos) {
  const W west = static_cast<W>((centre << 1) | (left >> (bits<W> - 1)));  // cell x-1 at bit x
  const W east = static_cast<W>((centre >> 1) | (right << (bits<W> - 1)));  // cell x+1 at bit x
  const W half = west ^ centre;
  ones = half ^ east;
  twos = (west & centre) | (east & half);
}

// The 3x3 block sum (including the cell) as four bit planes s0..s3, from three row sums.
template <class W>
struct BlockSum {
  W s0, s1, s2, s3;
};
template <class W>
GPUVIS_HD inline BlockSum<W> block_sum(W o_up, W t_up, W o_mid, W t_mid, W o_down, W t_down) {
  const W h = o_up ^ o_mid;
  const W s0 = h ^ o_down;
  const W carry = (o_up & o_mid) | (o_down & h);  // weight 2
  const W g = t_up ^ t_mid;
  const W u0 = g ^ t_down;                          // weight 2
  const W u1 = (t_up & t_mid) | (t_down & g);       // weight 4
  const W s1 = u0 ^ carry;
  const W c2 = u0 & carry;                          // weight 4
  return {s0, s1, static_cast<W>(u1 ^ c2), static_cast<W>(u1 & c2)};
}

// A rule given at run time, as word masks: for block sum v (v live neighbours for a dead cell, v - 1
// for a live one), `born[v]` is all ones when a dead cell is born, `differ[v]` all ones where a live
// cell's fate differs from a dead one's (born[v] ^ survives(v)). Built once per rule (rule_masks),
// so a generation reads them as constants (on CUDA from the kernel's parameter bank).
template <class W>
struct RuleMasks {
  W born[10], differ[10];
};
template <class W>
GPUVIS_HD inline RuleMasks<W> rule_masks(unsigned birth, unsigned survival) {
  RuleMasks<W> m{};
  for (int v = 0; v <= 9; ++v) {
    const bool born = (birth >> v & 1u) != 0, survives = v >= 1 && (survival >> (v - 1) & 1u) != 0;
    m.born[v] = born ? static_cast<W>(~W{0}) : W{0};
    m.differ[v] = born != survives ? static_cast<W>(~W{0}) : W{0};
  }
  return m;
}
// Conway's rule (B3/S23), compiled in for speed: a cell lives next when its block sum is 3, or 4
// and it is alive. A block sum is at most 9, so 3 and 4 are told apart from 11 and 12 without the
// eights plane, which the compiler then never computes.
struct ConwayRule {};
template <class W>
GPUVIS_HD inline W next_state(W alive, const BlockSum<W>& s, const ConwayRule&) {
  return static_cast<W>((s.s0 & s.s1 & ~s.s2) | (alive & ~s.s0 & ~s.s1 & s.s2));
}

// n cells of a row starting at cell x0 (any integer): on a torus cell x is cell x mod width; on a
// dead-bordered board cells outside [0, width) are dead. `row` holds `words` words whose bits past
// `width` are zero.
template <class W>
GPUVIS_HD inline W extract(const W* row, int words, long long x0) {
  constexpr int n = bits<W>;
  const long long q = x0 >= 0 ? x0 / n : -((-x0 + n - 1) / n);
  const int s = static_cast<int>(x0 - q * n);
  const W lo = (q >= 0 && q < words) ? row[q] : W{0};
  if (s == 0) return lo;
  const W hi = (q + 1 >= 0 && q + 1 < words) ? row[q + 1] : W{0};
  return static_cast<W>((lo >> s) | (hi << (n - s)));
}

template <class W>
GPUVIS_HD inline W load_cells(const W* row, int width, int words, long long x0, bool torus) {
  constexpr int n = bits<W>;
  if (x0 >= 0 && x0 % n == 0 && x0 + n <= width) return row[x0 / n];
  if (!torus) return extract(row, words, x0);
  long long x = x0 % width;
  if (x < 0) x += width;
  if (width >= n) {
    if (x + n <= width) return extract(row, words, x);
    const int k = static_cast<int>(width - x);  // cells x..width-1, then 0..n-k-1
    const W low = static_cast<W>(extract(row, words, x) & ((W{1} << k) - 1));
    return static_cast<W>(low | (extract(row, words, 0) << k));
  }
  W r = 0;  // a board narrower than one word wraps several times within it
  for (int i = 0; i < n; ++i) {
    const long long c = (x + i) % width;
    r |= static_cast<W>(((row[c / n] >> (c % n)) & W{1}) << i);
  }
  return r;
}

// A rule given at run time, without branches: each block sum v's outcome for the word's cells,
// born[v] for the dead and born[v] ^ differ[v] for the live, then a tree of selections by the sum's
// bit planes, s0 first (every selection is a ^ ((a ^ b) & s): one LOP3 instruction on a GPU). A sum
// is at most 9, so where s3 is set s2 and s1 are clear and the tree's top picks sums 8 and 9.
// (It replaced a loop over the ten sums that ANDed each one's decoded planes, 6.6 times slower
// than Conway's rule on an H100: docs/benchmarks/life.md.)
template <class W>
GPUVIS_HD inline W next_state(W alive, const BlockSum<W>& s, const RuleMasks<W>& rule) {
  W at[10];
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int v = 0; v <= 9; ++v) at[v] = static_cast<W>(rule.born[v] ^ (rule.differ[v] & alive));
  auto pick = [](W a, W b, W select) { return static_cast<W>(a ^ ((a ^ b) & select)); };
  const W p01 = pick(at[0], at[1], s.s0), p23 = pick(at[2], at[3], s.s0), p45 = pick(at[4], at[5], s.s0);
  const W p67 = pick(at[6], at[7], s.s0), p89 = pick(at[8], at[9], s.s0);
  const W p0_3 = pick(p01, p23, s.s1), p4_7 = pick(p45, p67, s.s1);
  return pick(pick(p0_3, p4_7, s.s2), p89, s.s3);
}

// Bits of word q (n cells from x = q n) that lie on a board of `width` cells.
template <class W>
GPUVIS_HD inline W valid_bits(int width, long long q) {
  constexpr int n = bits<W>;
  const long long first = q * n;
  if (q < 0 || first >= width) return 0;
  if (first + n <= width) return static_cast<W>(~W{0});
  return static_cast<W>((W{1} << (width - first)) - 1);
}

}  // namespace gpuvis::life::rules

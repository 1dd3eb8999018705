#pragma once
// One Life generation on a machine word of cells for the CPU backend (64-bit words) and the CUDA
// kernels (32-bit words): C++ overloads over the rules of life/word_rule.h, which the OpenCL
// kernels compile too, so all three backends compute the same boards bit for bit.
#include <cstdint>

#include "gpuvis/core/image.hpp"  // GPUVIS_HD

namespace gpuvis::life::rules {

#define GPUVIS_RULE GPUVIS_HD static inline
#define GPUVIS_LIFE_I64 long long
#define GPUVIS_LIFE_W std::uint64_t
#define GPUVIS_LIFE_BITS 64
#define GPUVIS_LIFE_FN(name) gpuvis_life_##name##_u64
#include "life/word_rule.h"
#undef GPUVIS_LIFE_W
#undef GPUVIS_LIFE_BITS
#undef GPUVIS_LIFE_FN
#define GPUVIS_LIFE_W std::uint32_t
#define GPUVIS_LIFE_BITS 32
#define GPUVIS_LIFE_FN(name) gpuvis_life_##name##_u32
#include "life/word_rule.h"
#undef GPUVIS_LIFE_W
#undef GPUVIS_LIFE_BITS
#undef GPUVIS_LIFE_FN
#undef GPUVIS_LIFE_I64
#undef GPUVIS_RULE

template <class W>
inline constexpr int bits = static_cast<int>(sizeof(W) * 8);

// The 3x3 block sum (including the cell) as four bit planes s0..s3.
template <class W>
struct BlockSum {
  W s0, s1, s2, s3;
};

// Conway's rule (B3/S23), compiled in for speed.
struct ConwayRule {};

template <class W>
struct WordRules;  // the word_rule.h functions for W
#define GPUVIS_LIFE_WORD_RULES(W, S)                                                                                               \
  template <>                                                                                                                      \
  struct WordRules<W> {                                                                                                            \
    using Masks = gpuvis_life_masks_##S;                                                                                           \
    GPUVIS_HD static Masks masks_of(unsigned birth, unsigned survival) { return gpuvis_life_masks_of_##S(birth, survival); }       \
    GPUVIS_HD static void row_sum(W l, W c, W r, W& ones, W& twos) { gpuvis_life_row_sum_##S(l, c, r, &ones, &twos); }            \
    GPUVIS_HD static BlockSum<W> block_sum(W ou, W tu, W om, W tm, W od, W td) {                                                   \
      BlockSum<W> s;                                                                                                               \
      gpuvis_life_block_sum_##S(ou, tu, om, tm, od, td, &s.s0, &s.s1, &s.s2, &s.s3);                                               \
      return s;                                                                                                                    \
    }                                                                                                                              \
    GPUVIS_HD static W next(W alive, const BlockSum<W>& s, const ConwayRule&) { return gpuvis_life_next_conway_##S(alive, s.s0, s.s1, s.s2); } \
    GPUVIS_HD static W next(W alive, const BlockSum<W>& s, const Masks& m) { return gpuvis_life_next_rule_##S(alive, s.s0, s.s1, s.s2, s.s3, &m); } \
    GPUVIS_HD static W next(W alive, const BlockSum<W>& s, const Masks& m, W* age, int planes, int states) {                     \
      return gpuvis_life_next_generations_##S(alive, s.s0, s.s1, s.s2, s.s3, &m, age, planes, states);                            \
    }                                                                                                                              \
    GPUVIS_HD static W load_cells(const W* row, int width, int words, long long x0, bool torus) {                                  \
      return gpuvis_life_load_cells_##S(row, width, words, x0, torus ? 1 : 0);                                                     \
    }                                                                                                                              \
    GPUVIS_HD static W valid_bits(int width, long long q) { return gpuvis_life_valid_bits_##S(width, q); }                         \
  };
GPUVIS_LIFE_WORD_RULES(std::uint64_t, u64)
GPUVIS_LIFE_WORD_RULES(std::uint32_t, u32)
#undef GPUVIS_LIFE_WORD_RULES

// A rule given at run time, as word masks (word_rule.h): built once per rule.
template <class W>
using RuleMasks = typename WordRules<W>::Masks;
template <class W>
RuleMasks<W> rule_masks(unsigned birth, unsigned survival) {
  return WordRules<W>::masks_of(birth, survival);
}

// The 3-cell horizontal sum of each cell of `centre`, given the words to its left and right.
template <class W>
GPUVIS_HD inline void row_sum(W left, W centre, W right, W& ones, W& twos) {
  WordRules<W>::row_sum(left, centre, right, ones, twos);
}
// The 3x3 block sum from three row sums.
template <class W>
GPUVIS_HD inline BlockSum<W> block_sum(W o_up, W t_up, W o_mid, W t_mid, W o_down, W t_down) {
  return WordRules<W>::block_sum(o_up, t_up, o_mid, t_mid, o_down, t_down);
}
// The next state of a word's cells under Conway's rule or a rule's masks.
template <class W, class R>
GPUVIS_HD inline W next_state(W alive, const BlockSum<W>& s, const R& rule) {
  return WordRules<W>::next(alive, s, rule);
}
// A Generations rule: the next live cells, the word's dying ages (`planes` bit planes) updated in place.
template <class W>
GPUVIS_HD inline W next_generations(W alive, const BlockSum<W>& s, const RuleMasks<W>& m, W* age, int planes, int states) {
  return WordRules<W>::next(alive, s, m, age, planes, states);
}
// n cells of a row starting at cell x0 (any integer), wrapped on a torus, dead outside otherwise.
template <class W>
GPUVIS_HD inline W load_cells(const W* row, int width, int words, long long x0, bool torus) {
  return WordRules<W>::load_cells(row, width, words, x0, torus);
}
// Bits of word q (n cells from x = q n) that lie on a board of `width` cells.
template <class W>
GPUVIS_HD inline W valid_bits(int width, long long q) {
  return WordRules<W>::valid_bits(width, q);
}

}  // namespace gpuvis::life::rules

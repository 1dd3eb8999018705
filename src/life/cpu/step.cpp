// One generation on the CPU: 64 cells per word, strips of rows in parallel. Each strip keeps the
// row sums of three consecutive rows, so every row's sums are computed once per strip.
#include <algorithm>
#include <array>
#include <vector>

#include "life/step_rules.hpp"
#include "gpuvis/core/error.hpp"
#include "gpuvis/core/parallel.hpp"
#include "gpuvis/life/life.hpp"
#include "life/backends.hpp"

namespace gpuvis::life {
namespace {

using W = Board::word;

struct RowSums {
  std::vector<W> ones, twos;
  void resize(int words) {
    ones.resize(static_cast<std::size_t>(words));
    twos.resize(static_cast<std::size_t>(words));
  }
};

// Row sums of board row y (or of a dead row outside the board).
void row_sums(const Board& b, long long y, bool torus, RowSums& out) {
  const int h = b.height(), words = b.words_per_row(), width = b.width();
  if (torus) y = ((y % h) + h) % h;
  else if (y < 0 || y >= h) {
    std::fill(out.ones.begin(), out.ones.end(), W{0});
    std::fill(out.twos.begin(), out.twos.end(), W{0});
    return;
  }
  const W* row = b.row(static_cast<int>(y));
  // Words whose neighbours are plain neighbouring words: 1 .. full-1, where `full` words are
  // entirely on the board; the first, the last and the partial word go through load_cells.
  const int full = width / 64;
  auto at = [&](long long q) { return rules::load_cells(row, width, words, q * 64, torus); };
  for (int q = 0; q < words; ++q) {
    W left, centre, right;
    if (q >= 1 && q + 1 < full) {
      left = row[q - 1];
      centre = row[q];
      right = row[q + 1];
    } else {
      left = at(q - 1);
      centre = at(q);
      right = at(q + 1);
    }
    rules::row_sum(left, centre, right, out.ones[q], out.twos[q]);
  }
}

// A Generations rule's masks with its Planes dying-age planes (updated in place: a cell's age
// depends only on the cell itself). Planes is a compile-time constant so that the per-word loops
// over the planes unroll.
template <int Planes>
struct GenerationsRule {
  rules::RuleMasks<W> masks;
  std::array<W*, Planes> plane;  // each plane's first word
  std::size_t words;             // words per row
  int states;
};

template <class R>
W next_word(W alive, const rules::BlockSum<W>& s, const R& rule, int, int) {
  return rules::next_state(alive, s, rule);
}
template <int Planes>
W next_word(W alive, const rules::BlockSum<W>& s, const GenerationsRule<Planes>& rule, int y, int q) {
  const std::size_t at = static_cast<std::size_t>(y) * rule.words + static_cast<std::size_t>(q);
  W age[Planes];
  for (int i = 0; i < Planes; ++i) age[i] = rule.plane[i][at];
  const W next = rules::next_generations(alive, s, rule.masks, age, Planes, rule.states);
  for (int i = 0; i < Planes; ++i) rule.plane[i][at] = age[i];
  return next;
}

template <int Planes>
GenerationsRule<Planes> generations_rule(const Rule& rule, std::vector<Board>& ages) {
  GenerationsRule<Planes> g{rules::rule_masks<W>(rule.birth, rule.survival), {}, static_cast<std::size_t>(ages[0].words_per_row()), rule.states};
  for (int i = 0; i < Planes; ++i) g.plane[i] = ages[static_cast<std::size_t>(i)].data();
  return g;
}

template <class R>
void step_strip(const Board& src, Board& dst, const R& rule, bool torus, int y0, int y1) {
  const int words = src.words_per_row(), width = src.width();
  // Each worker keeps its three rows of sums between strips and generations: no allocation per step.
  thread_local RowSums up, mid, down;
  up.resize(words);
  mid.resize(words);
  down.resize(words);
  row_sums(src, y0 - 1, torus, up);
  row_sums(src, y0, torus, mid);
  const W last_mask = rules::valid_bits<W>(width, words - 1);
  for (int y = y0; y < y1; ++y) {
    row_sums(src, y + 1, torus, down);
    const W* alive = src.row(y);
    W* out = dst.row(y);
    for (int q = 0; q < words; ++q) {
      const auto s = rules::block_sum(up.ones[q], up.twos[q], mid.ones[q], mid.twos[q], down.ones[q], down.twos[q]);
      out[q] = next_word(alive[q], s, rule, y, q);
    }
    out[words - 1] &= last_mask;
    std::swap(up, mid);
    std::swap(mid, down);
  }
}

template <class R>
void step_all(const Board& src, Board& dst, const R& rule, bool torus) {
  const int h = src.height();
  // Strips of at least 32 rows keep the extra row sums at strip edges small.
  parallel_for(0, h, 32, [&](std::ptrdiff_t y0, std::ptrdiff_t y1) {
    step_strip(src, dst, rule, torus, static_cast<int>(y0), static_cast<int>(y1));
  });
}

}  // namespace

void step_cpu(const Board& src, Board& dst, const Rule& rule, Topology topology, std::vector<Board>* ages) {
  if (dst.width() != src.width() || dst.height() != src.height()) dst = Board(src.width(), src.height());
  require(&src != &dst, "step_cpu needs distinct source and destination boards");
  const bool torus = topology == Topology::torus;
  if (rule.states > 2) {
    require(ages && static_cast<int>(ages->size()) == age_planes(rule), "step_cpu: a Generations rule needs its age planes");
    switch (ages->size()) {
      case 1: step_all(src, dst, generations_rule<1>(rule, *ages), torus); break;
      case 2: step_all(src, dst, generations_rule<2>(rule, *ages), torus); break;
      case 3: step_all(src, dst, generations_rule<3>(rule, *ages), torus); break;
      case 4: step_all(src, dst, generations_rule<4>(rule, *ages), torus); break;
      case 5: step_all(src, dst, generations_rule<5>(rule, *ages), torus); break;
      case 6: step_all(src, dst, generations_rule<6>(rule, *ages), torus); break;
      case 7: step_all(src, dst, generations_rule<7>(rule, *ages), torus); break;
      default: step_all(src, dst, generations_rule<8>(rule, *ages), torus); break;
    }
  } else if (rule == conway) {
    step_all(src, dst, rules::ConwayRule{}, torus);
  } else {
    step_all(src, dst, rules::rule_masks<W>(rule.birth, rule.survival), torus);
  }
}

}  // namespace gpuvis::life

// Phase 1 of CPU decoding (spec §4.2 in synchronous rounds, docs/decoding.md): round 1 visits every
// clean leaf; a region is visited in the round after the one whose pushes brought its count exactly
// to what it needs, unless a push to it was blocked. A visited region sees only the regions
// traversed in earlier rounds, so nothing depends on the order of visits within a round: the CUDA
// decoder visits a round's regions in parallel (propagate.cu) and gets the same result, and so do
// the pool's threads here for rounds of many regions (run_round).
// (The frontier lists are filled without branches, "write always, advance by a bool": on noise
// these tests are as good as random and a mispredicted branch per region would dominate.)
#include <algorithm>
#include <atomic>
#include <utility>

#include "decode/cpu/phases.hpp"
#include "gpuvis/core/parallel.hpp"
#include "decode/yamaarashi_rules.hpp"

namespace gpuvis::decode::cpu {
namespace {

using segment::kBorder;
using segment::kFragmented;
using segment::kSaturated;

// Regions a task of a round takes on the pool's threads; a round of fewer than two chunks runs on
// the calling thread (a noisy 4K frame's first round has about 600 000, its tenth a few thousand).
constexpr int kRoundChunk = 8192;

// Only the counters and marks need clearing: the rest is written when a region is visited (or
// becomes a candidate) and read only after that.
void reset(DecoderScratch& s, int regions) {
  const auto n = static_cast<std::size_t>(regions);
  parallel_assign(s.cvc, n, 0);
  parallel_assign(s.visit_round, n, 0);
  parallel_assign(s.blocked, n, std::uint8_t{0});
  s.desc.resize(n);
  s.height.resize(n);
  s.node_depth.resize(n);
  s.parent.resize(n);
  s.fuzzy_root.resize(n);
  s.candidates.clear();
}

// Round 1's frontier: the clean leaves.
void clean_leaves(const segment::RegionTree& t, DecoderScratch& s) {
  const int n = t.size();
  s.frontier.resize(static_cast<std::size_t>(n) + 1);
  int count = 0;
  for (int r = 0; r < n; ++r) {
    s.frontier[count] = r;
    count += (t.degree(r) == 1) & !(t.flags[r] & (kSaturated | kFragmented | kBorder));
  }
  s.frontier.resize(static_cast<std::size_t>(count));
}

// How a round reads and writes the marks other regions of the same round may touch at once: plain
// on one thread, relaxed atomics when the round's chunks run on the pool's threads (x86 compiles
// both to the same loads and stores, except the read-modify-writes).
template <bool kShared>
struct Marks {
  static int round_of(const DecoderScratch& s, int r) {
    if constexpr (kShared) return std::atomic_ref<const std::int32_t>(s.visit_round[r]).load(std::memory_order_relaxed);
    else return s.visit_round[r];
  }
  static void visited(DecoderScratch& s, int r, int round) {
    if constexpr (kShared) std::atomic_ref<std::int32_t>(s.visit_round[r]).store(round, std::memory_order_relaxed);
    else s.visit_round[r] = round;
  }
  static int pushed(DecoderScratch& s, int parent) {  // the parent's push count after this one
    if constexpr (kShared) return std::atomic_ref<std::int32_t>(s.cvc[parent]).fetch_add(1, std::memory_order_relaxed) + 1;
    else return ++s.cvc[parent];
  }
  static void block(DecoderScratch& s, int parent, bool blocked) {
    if constexpr (kShared) {
      if (blocked) std::atomic_ref<std::uint8_t>(s.blocked[parent]).store(1, std::memory_order_relaxed);
    } else {
      s.blocked[parent] |= blocked;
    }
  }
};

// Region r's visit: it sums what its earlier-visited neighbours pushed; the one neighbour not
// visited before is its parent. (A neighbour visited in this same round reads as not yet visited,
// whether its mark is written already or not.)
template <bool kShared>
void visit(const segment::RegionTree& t, DecoderScratch& s, int r, int round) {
  int desc = 0, height = 0, parent = -1;
  for (const std::int32_t* a = t.neighbours(r); a != t.neighbours(r) + t.degree(r); ++a) {
    const int seen = Marks<kShared>::round_of(s, *a);
    if (seen && seen < round) {
      desc += s.desc[*a] + 1;
      height = std::max(height, s.height[*a] + 1);
    } else {
      parent = *a;
    }
  }
  s.desc[r] = desc;
  s.height[r] = height;
  s.parent[r] = parent;
  Marks<kShared>::visited(s, r, round);
}

// The pushes a region needs before it is visited: all neighbours but its parent, or all of them
// when it has lost its parent (border) or a neighbour (fragmented).
struct Needed {
  const segment::RegionTree& t;
  int operator()(int r) const { return (t.flags[r] & (kBorder | kFragmented)) ? t.degree(r) : t.degree(r) - 1; }
};

// What a round's visited regions frontier[0, count) do next: each becomes a candidate root (into
// `candidates`, the returned pair's first) or pushes to its parent; a parent whose count this push
// made exactly what it needs goes into next[0..) (the pair's second).
template <bool kShared>
std::pair<int, int> push_all(const segment::RegionTree& t, const TreeSet& set, DecoderScratch& s, const std::int32_t* frontier,
                             int count, std::int32_t* candidates, std::int32_t* next) {
  const int tmin = set.tmin(), tmax = set.tmax(), rmin = set.rmin();
  const int dmin = set.min_height, dmax = set.max_height;
  const Needed needed{t};
  int ncand = 0, nnext = 0;
  for (int k = 0; k < count; ++k) {
    const int r = frontier[k];
    const int desc = s.desc[r], height = s.height[r], parent = s.parent[r];
    // §4.2's special test for the yamaarashi core (only when yamaarashi symbols are on: off,
    // the region is never a symbol, and its ancestors are too high to be candidates anyway).
    const bool core = set.yamaarashi && yamaarashi::special_candidate(desc, t.colour[r] != 0, t.degree(r),
                                                                        !(t.flags[r] & (kBorder | kFragmented)));
    if (height >= dmin && height <= dmax && ((desc >= rmin && desc <= tmax) || core)) {
      candidates[ncand++] = r;
      s.fuzzy_root[r] = desc < tmin && !core;  // fewer descendants than any symbol: a damaged one
    } else if (parent >= 0 && !(t.flags[r] & (kSaturated | kBorder))) {
      Marks<kShared>::block(s, parent, !(desc < tmax && height < dmax && !(t.flags[parent] & kSaturated)));
      next[nnext] = parent;
      nnext += Marks<kShared>::pushed(s, parent) == needed(parent);
    }
  }
  return {ncand, nnext};
}

// The parents in next[0, count) that are due in the next round, kept in place; returns how many.
int keep_due(const segment::RegionTree& t, const DecoderScratch& s, std::int32_t* next, int count) {
  const Needed needed{t};
  int kept = 0;
  for (int k = 0; k < count; ++k) {
    const int p = next[k];
    next[kept] = p;
    kept += !s.visit_round[p] & !s.blocked[p] & (s.cvc[p] == needed(p));
  }
  return kept;
}

// One round in chunks of `chunk` regions: each chunk's visits, then (every visit of the round done)
// each chunk's pushes, candidates and due parents into its own span, joined in chunk order. With
// kShared the chunks run on the pool's threads; without, the round is one chunk on the calling
// thread. Which parents are due does not depend on the order of the pushes (a count reaches what it
// needs at exactly one push), and the next round's visits not on the order of its regions.
template <bool kShared>
void run_round(const segment::RegionTree& t, const TreeSet& set, DecoderScratch& s, int round, int chunk) {
  const int n = static_cast<int>(s.frontier.size());
  const int chunks = (n + chunk - 1) / chunk;
  auto span = [&](std::ptrdiff_t c) { return std::pair{static_cast<int>(c) * chunk, std::min(n, static_cast<int>(c + 1) * chunk)}; };
  auto each_chunk = [&](auto&& f) {
    if constexpr (kShared) {
      parallel_for(0, chunks, 1, [&](std::ptrdiff_t c0, std::ptrdiff_t c1) {
        for (auto c = c0; c < c1; ++c) f(c);
      });
    } else {
      for (int c = 0; c < chunks; ++c) f(c);
    }
  };
  each_chunk([&](std::ptrdiff_t c) {
    for (int k = span(c).first; k < span(c).second; ++k) visit<kShared>(t, s, s.frontier[k], round);
  });
  s.next.resize(static_cast<std::size_t>(n));
  s.found.resize(static_cast<std::size_t>(n));
  s.chunk_counts.resize(2 * static_cast<std::size_t>(chunks));
  each_chunk([&](std::ptrdiff_t c) {
    const auto [k0, k1] = span(c);
    const auto [ncand, nnext] = push_all<kShared>(t, set, s, s.frontier.data() + k0, k1 - k0, s.found.data() + k0, s.next.data() + k0);
    s.chunk_counts[2 * c] = ncand;
    s.chunk_counts[2 * c + 1] = nnext;
  });
  each_chunk([&](std::ptrdiff_t c) { s.chunk_counts[2 * c + 1] = keep_due(t, s, s.next.data() + span(c).first, s.chunk_counts[2 * c + 1]); });
  s.frontier.clear();
  for (int c = 0; c < chunks; ++c) {
    const auto k0 = static_cast<std::ptrdiff_t>(span(c).first);
    s.candidates.insert(s.candidates.end(), s.found.begin() + k0, s.found.begin() + k0 + s.chunk_counts[2 * c]);
    s.frontier.insert(s.frontier.end(), s.next.begin() + k0, s.next.begin() + k0 + s.chunk_counts[2 * c + 1]);
  }
}

}  // namespace

void propagate(const segment::RegionTree& t, const TreeSet& set, DecoderScratch& s) {
  reset(s, t.size());
  clean_leaves(t, s);
  const bool threads = num_threads() > 1;
  for (int round = 1; !s.frontier.empty(); ++round) {
    if (threads && s.frontier.size() >= 2 * static_cast<std::size_t>(kRoundChunk)) run_round<true>(t, set, s, round, kRoundChunk);
    else run_round<false>(t, set, s, round, static_cast<int>(s.frontier.size()));
  }
  std::sort(s.candidates.begin(), s.candidates.end());
}

}  // namespace gpuvis::decode::cpu

// Phase 1 of CPU decoding (spec §4.2 in synchronous rounds, docs/decoding.md): round 1 visits every
// clean leaf; a region is visited in the round after the one whose pushes brought its count exactly
// to what it needs, unless a push to it was blocked. A visited region sees only the regions
// traversed in earlier rounds, so nothing depends on the order of visits within a round: the CUDA
// decoder visits a round's regions in parallel (propagate.cu) and gets the same result.
// (The frontier lists are filled without branches, "write always, advance by a bool": on noise
// these tests are as good as random and a mispredicted branch per region would dominate.)
#include <algorithm>

#include "decode/cpu/phases.hpp"
#include "decode/yamaarashi_rules.hpp"

namespace gpuvis::decode::cpu {
namespace {

using segment::kBorder;
using segment::kFragmented;
using segment::kSaturated;

// Only the counters and marks need clearing: the rest is written when a region is visited (or
// becomes a candidate) and read only after that.
void reset(DecoderScratch& s, int regions) {
  const auto n = static_cast<std::size_t>(regions);
  s.cvc.assign(n, 0);
  s.visit_round.assign(n, 0);
  s.blocked.assign(n, 0);
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

// A round's visits: each region sums what its earlier-visited neighbours pushed; the one neighbour
// not visited before is its parent.
void visit(const segment::RegionTree& t, DecoderScratch& s, int round) {
  for (int r : s.frontier) {  // read the earlier rounds only
    int desc = 0, height = 0, parent = -1;
    for (const std::int32_t* a = t.neighbours(r); a != t.neighbours(r) + t.degree(r); ++a) {
      if (s.visit_round[*a] && s.visit_round[*a] < round) {
        desc += s.desc[*a] + 1;
        height = std::max(height, s.height[*a] + 1);
      } else {
        parent = *a;
      }
    }
    s.desc[r] = desc;
    s.height[r] = height;
    s.parent[r] = parent;
    s.visit_round[r] = round;
  }
}

}  // namespace

void propagate(const segment::RegionTree& t, const TreeSet& set, DecoderScratch& s) {
  reset(s, t.size());
  const int tmin = set.tmin(), tmax = set.tmax(), rmin = set.rmin();
  const int dmin = set.min_height, dmax = set.max_height;
  // The pushes a region needs before it is visited: all neighbours but its parent, or all of them
  // when it has lost its parent (border) or a neighbour (fragmented).
  auto needed = [&](int r) { return (t.flags[r] & (kBorder | kFragmented)) ? t.degree(r) : t.degree(r) - 1; };
  clean_leaves(t, s);
  for (int round = 1; !s.frontier.empty(); ++round) {
    visit(t, s, round);
    s.next.resize(s.frontier.size() + 1);
    int nnext = 0;
    for (int r : s.frontier) {
      const int desc = s.desc[r], height = s.height[r], parent = s.parent[r];
      // §4.2's special test for the yamaarashi core (only when yamaarashi symbols are on: off,
      // the region is never a symbol, and its ancestors are too high to be candidates anyway).
      const bool core = set.yamaarashi && yamaarashi::special_candidate(desc, t.colour[r] != 0, t.degree(r),
                                                                          !(t.flags[r] & (kBorder | kFragmented)));
      if (height >= dmin && height <= dmax && ((desc >= rmin && desc <= tmax) || core)) {
        s.candidates.push_back(r);
        s.fuzzy_root[r] = desc < tmin && !core;  // fewer descendants than any symbol: a damaged one
      } else if (parent >= 0 && !(t.flags[r] & (kSaturated | kBorder))) {
        s.blocked[parent] |= !(desc < tmax && height < dmax && !(t.flags[parent] & kSaturated));
        s.next[nnext] = parent;
        nnext += ++s.cvc[parent] == needed(parent);
      }
    }
    s.frontier.resize(static_cast<std::size_t>(nnext) + 1);
    int nfront = 0;
    for (int k = 0; k < nnext; ++k) {
      const int p = s.next[k];
      s.frontier[nfront] = p;
      nfront += !s.visit_round[p] & !s.blocked[p] & (s.cvc[p] == needed(p));
    }
    s.frontier.resize(static_cast<std::size_t>(nfront));
  }
  std::sort(s.candidates.begin(), s.candidates.end());
}

}  // namespace gpuvis::decode::cpu

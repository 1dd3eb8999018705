// For `gpuvis detect --debug`: where a symbol that never reached the decoder's gates was lost.
#include <algorithm>
#include <string>

#include "decode/cpu/phases.hpp"

namespace gpuvis::decode::cpu {

// Regions nested like a symbol that did not become candidates, neither inside a candidate nor
// around one: where a symbol that never reached the decoder's gates was lost. "Like a symbol":
// from half the set's fewest descendants to twice its most, nesting as deep as a symbol's or one
// level deeper, 20 px to half the frame wide.
void explain_misses(const segment::RegionTree& t, const TreeSet& set, const DecoderScratch& s, std::vector<CandidateReport>& reports) {
  using segment::kBorder;
  using segment::kFragmented;
  using segment::kSaturated;
  const int n = t.size();
  std::vector<std::uint8_t> candidate(static_cast<std::size_t>(n), 0), around(static_cast<std::size_t>(n), 0);
  for (int c : s.candidates) {
    candidate[c] = 1;
    for (int p = t.parent[c]; p >= 0 && !around[p]; p = t.parent[p]) around[p] = 1;
  }
  auto inside_candidate = [&](int r) {
    for (int p = t.parent[r]; p >= 0; p = t.parent[p])
      if (candidate[p]) return true;
    return false;
  };
  // Each region's nesting height in the parent forest: children have higher depths, so one pass
  // from the deepest regions up finds it.
  std::vector<std::int32_t> order(static_cast<std::size_t>(n)), nest_height(static_cast<std::size_t>(n), 0);
  for (int r = 0; r < n; ++r) order[r] = r;
  std::sort(order.begin(), order.end(), [&](int a, int b) { return t.depth[a] > t.depth[b]; });
  for (int r : order)
    if (t.parent[r] >= 0) nest_height[t.parent[r]] = std::max(nest_height[t.parent[r]], nest_height[r] + 1);
  const int frame_side = std::max(t.width, t.height);
  for (int r = 0; r < n; ++r) {
    if (candidate[r] || around[r]) continue;
    const int nested = t.descendant_count[r], side = std::max(t.bbox_width(r), t.bbox_height(r));
    if (nested < set.rmin() / 2 || nested > 2 * set.tmax() || nest_height[r] < set.min_height ||
        nest_height[r] > set.max_height + 1 || side < 20 || 2 * side > frame_side || inside_candidate(r))
      continue;
    CandidateReport m;
    m.region = r;
    m.candidate = false;
    m.descendants = s.visit_round[r] ? s.desc[r] : nested;
    m.height = s.visit_round[r] ? s.height[r] : -1;
    if (t.flags[r] & kBorder) {
      m.reason = "touches the frame's edge";
    } else if (t.flags[r] & kSaturated) {
      m.reason = "more neighbours than a symbol's region has (saturated)";
    } else if (!s.visit_round[r]) {
      m.reason = s.blocked[r] ? "not reached: a region below it has more descendants or depth than a symbol allows"
                 : (t.flags[r] & kFragmented)
                     ? "lost a neighbour to a saturated region (fragmented)"
                     : "not reached: a region below it is saturated, fragmented or touches the frame's edge";
    } else {
      m.reason = "height " + std::to_string(s.height[r]) + " and " + std::to_string(s.desc[r]) + " descendants; a symbol has height " +
                 std::to_string(set.min_height) + "-" + std::to_string(set.max_height) + " and " + std::to_string(set.rmin()) +
                 "-" + std::to_string(set.tmax()) + " descendants";
    }
    reports.push_back(std::move(m));
  }
}

}  // namespace gpuvis::decode::cpu

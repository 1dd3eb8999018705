// Amoeba decoding on the CPU (spec §4–§5): leaf-upward propagation finds candidate roots, the
// candidate's subtree gives the canonical key that is looked up in the tree set, and the weighted
// leaf centroids give position and angle. Statistics are defined soundly (docs/decoding.md): leaf
// centres are region centroids at sub-pixel precision, leaf-size extremes are true extremes.
#include <algorithm>
#include <string>

#include "gpuvis/core/error.hpp"
#include "gpuvis/decode/fiducial.hpp"
#include "rules.hpp"
#include "yamaarashi.hpp"
#include "yamaarashi_rules.hpp"

namespace gpuvis::decode {

void Decoder::decode(const segment::RegionTree& t, std::vector<Fiducial>& out, DecodeStats* stats) {
  decode(t, {}, out, stats);
}

void Decoder::decode(const segment::RegionTree& t, HostView<const std::uint8_t> binary, std::vector<Fiducial>& out,
                     DecodeStats* stats) {
  require(!set_.yamaarashi || !binary.empty(), "decode: yamaarashi symbols need the frame's binary image");
  using segment::kBorder;
  using segment::kFragmented;
  using segment::kSaturated;
  out.clear();
  const int n = t.size();
  // Only the counters and marks need clearing: the rest is written when a region is visited (or
  // becomes a candidate) and read only after that.
  const auto nr = static_cast<std::size_t>(n);
  cvc_.assign(nr, 0);
  visit_round_.assign(nr, 0);
  blocked_.assign(nr, 0);
  desc_.resize(nr);
  height_.resize(nr);
  node_depth_.resize(nr);
  parent_.resize(nr);
  fuzzy_root_.resize(nr);
  candidates_.clear();
  leaves_.clear();
  reports_.clear();

  const int tmin = set_.tmin(), tmax = set_.tmax(), rmin = set_.rmin();
  const int dmin = set_.min_height, dmax = set_.max_height;
  // The pushes a region needs before it is visited: all neighbours but its parent, or all of them
  // when it has lost its parent (border) or a neighbour (fragmented).
  auto needed = [&](int r) { return (t.flags[r] & (kBorder | kFragmented)) ? t.degree(r) : t.degree(r) - 1; };

  // §4.2 in synchronous rounds (docs/decoding.md): round 1 visits every clean leaf; a region is
  // visited in the round after the one whose pushes brought its count exactly to what it needs,
  // unless a push to it was blocked. A visited region sees only the regions traversed in earlier
  // rounds, so nothing depends on the order of visits within a round: the CUDA decoder visits a
  // round's regions in parallel and gets the same result.
  // (The frontier lists are filled without branches, "write always, advance by a bool": on noise
  // these tests are as good as random and a mispredicted branch per region would dominate.)
  frontier_.resize(static_cast<std::size_t>(n) + 1);
  int nfront = 0;
  for (int s = 0; s < n; ++s) {
    frontier_[nfront] = s;
    nfront += (t.degree(s) == 1) & !(t.flags[s] & (kSaturated | kFragmented | kBorder));
  }
  frontier_.resize(static_cast<std::size_t>(nfront));
  for (int round = 1; !frontier_.empty(); ++round) {
    for (int r : frontier_) {  // read the earlier rounds only
      int desc = 0, height = 0, parent = -1;
      for (const std::int32_t* a = t.neighbours(r); a != t.neighbours(r) + t.degree(r); ++a) {
        if (visit_round_[*a] && visit_round_[*a] < round) {
          desc += desc_[*a] + 1;
          height = std::max(height, height_[*a] + 1);
        } else {
          parent = *a;
        }
      }
      desc_[r] = desc;
      height_[r] = height;
      parent_[r] = parent;
      visit_round_[r] = round;
    }
    next_.resize(frontier_.size() + 1);
    int nnext = 0;
    for (int r : frontier_) {
      const int desc = desc_[r], height = height_[r], parent = parent_[r];
      // §4.2's special test for the yamaarashi core (only when yamaarashi symbols are on: off,
      // the region is never a symbol, and its ancestors are too high to be candidates anyway).
      const bool core = set_.yamaarashi && yamaarashi::special_candidate(desc, t.colour[r] != 0, t.degree(r),
                                                                           !(t.flags[r] & (kBorder | kFragmented)));
      if (height >= dmin && height <= dmax && ((desc >= rmin && desc <= tmax) || core)) {
        candidates_.push_back(r);
        fuzzy_root_[r] = desc < tmin && !core;  // fewer descendants than any symbol: a damaged one
      } else if (parent >= 0 && !(t.flags[r] & (kSaturated | kBorder))) {
        blocked_[parent] |= !(desc < tmax && height < dmax && !(t.flags[parent] & kSaturated));
        next_[nnext] = parent;
        nnext += ++cvc_[parent] == needed(parent);
      }
    }
    frontier_.resize(static_cast<std::size_t>(nnext) + 1);
    nfront = 0;
    for (int k = 0; k < nnext; ++k) {
      const int p = next_[k];
      frontier_[nfront] = p;
      nfront += !visit_round_[p] & !blocked_[p] & (cvc_[p] == needed(p));
    }
    frontier_.resize(static_cast<std::size_t>(nfront));
  }
  std::sort(candidates_.begin(), candidates_.end());

  DecodeStats st;
  std::vector<Fiducial> fuzzy;
  // Explaining: what became of each candidate (only with set_explain(true)).
  auto report = [&](int root, const rules::LeafSums& sums, const std::string& key, int id, bool is_fuzzy, const char* reason) {
    if (!explain_) return;
    CandidateReport r;
    r.region = root;
    r.descendants = desc_[root];
    r.height = height_[root];
    r.leaves = sums.leaves;
    r.gated_black = sums.gated[0];
    r.gated_white = sums.gated[1];
    r.key = key.empty() ? key : (t.colour[root] ? "w" : "b") + key;
    r.id = id;
    r.fuzzy = is_fuzzy;
    r.reason = reason;
    reports_.push_back(std::move(r));
  };
  static const char* const gate_reasons[] = {"", "fewer descendants than any symbol of the set (damaged)",
                                             "too many leaves are specks of 3 pixels or less (noise)",
                                             "a leaf is under half or over twice its colour's average size", "key not in the tree set"};
  for (int root : candidates_) {
    ++st.candidates;
    // §4.3-4.4: depths, children (traversed neighbours with fewer descendants) and the key.
    struct Frame {
      int node;
      std::size_t child_pos;
      std::vector<int> kids;
      std::vector<std::string> parts;
    };
    rules::LeafSums sums;
    const int leaf_begin = static_cast<int>(leaves_.size());
    auto children_of = [&](int node, std::vector<int>& kids) {
      kids.clear();
      if (t.degree(node) == 1 && node != root) return;
      for (const std::int32_t* a = t.neighbours(node); a != t.neighbours(node) + t.degree(node); ++a)
        if (visit_round_[*a] && desc_[*a] < desc_[node]) kids.push_back(*a);
    };
    auto visit_leaf = [&](int leaf) {
      const double w = rules::leaf_weight(node_depth_[leaf]);
      leaves_.push_back({leaf, w});
      sums.add(w, t.centroid_x(leaf), t.centroid_y(leaf), t.colour[leaf] ? 1 : 0,
               (t.right[leaf] - t.left[leaf]) + (t.bottom[leaf] - t.top[leaf]));
    };
    // Iterative post-order building of S(n) = depth digit + children's strings in descending order.
    std::vector<Frame> frames;
    node_depth_[root] = 0;
    frames.push_back({root, 0, {}, {}});
    children_of(root, frames.back().kids);
    std::string key;
    // A symbol's subtree has at most max_nodes regions; a walk that meets more has left the tree
    // (neighbour cycles in noise) and is dropped, which also bounds the walk.
    int nodes = 1;
    while (!frames.empty()) {
      Frame& f = frames.back();
      if (f.child_pos < f.kids.size()) {
        if (++nodes > set_.max_nodes) break;
        const int child = f.kids[f.child_pos++];
        node_depth_[child] = node_depth_[f.node] + 1;
        frames.push_back({child, 0, {}, {}});  // f is not used after this (the vector may move)
        children_of(child, frames.back().kids);
        continue;
      }
      if (f.kids.empty() && f.node != root) visit_leaf(f.node);
      std::sort(f.parts.begin(), f.parts.end(), std::greater<>());
      std::string s(1, static_cast<char>('0' + std::min(node_depth_[f.node], 9)));
      for (const auto& p : f.parts) s += p;
      frames.pop_back();
      if (frames.empty()) key = std::move(s);
      else frames.back().parts.push_back(std::move(s));
    }

    if (nodes > set_.max_nodes) {
      report(root, sums, {}, -1, false, "subtree larger than any symbol (left the tree)");
      ++st.invalid;
      leaves_.resize(static_cast<std::size_t>(leaf_begin));
      continue;
    }
    // §4.6 classification.
    int reason = rules::kReasonNone;
    int id = rules::classify(
        sums, set_.min_leafs(), fuzzy_root_[root] != 0, std::max(t.bbox_width(root), t.bbox_height(root)),
        [&] {
          const std::string full = (t.colour[root] ? "w" : "b") + key;
          if (set_.yamaarashi && full == yamaarashi::kKey) return yamaarashi::kCode;
          const auto it = set_.ids.find(full);
          return it != set_.ids.end() ? it->second : -1;
        },
        &reason);
    if (id == rules::kInvalid || !rules::has_orientation(sums)) {
      report(root, sums, key, -1, false,
             id == rules::kInvalid ? (std::string(gate_reasons[reason]) + ", and too few leaves above the size gate for a fuzzy candidate").c_str()
                                   : "no black leaf, so no orientation");
      ++st.invalid;
      leaves_.resize(static_cast<std::size_t>(leaf_begin));
      continue;
    }
    Fiducial f;
    const rules::Pose pose = rules::symbol_pose(sums);
    f.x = pose.x;
    f.y = pose.y;
    f.angle = pose.angle;
    const int found = id;
    if (id == yamaarashi::kCode)  // the ring gives the ID, and the pose is refined (§6.10)
      id = decode_yamaarashi(t, binary, root, visit_round_.data(), desc_.data(), set_.mirror, f);
    const int unlimited = id;
    id = rules::limit_id(id, set_.max_id);
    f.id = id >= 0 ? id : -1;
    report(root, sums, key, f.id, id < 0,
           id >= 0                       ? "decoded"
           : unlimited >= 0              ? "ID above max_fid"
           : found == yamaarashi::kCode  ? "yamaarashi ring did not decode"
                                         : gate_reasons[reason]);
    f.root = root;
    f.root_size = std::max(t.bbox_width(root), t.bbox_height(root));
    f.root_x = t.centroid_x(root);
    f.root_y = t.centroid_y(root);
    f.root_colour = t.colour[root];
    f.leaves = sums.leaves;
    f.gated_leaves = sums.gated_total();
    f.leaf_begin = leaf_begin;
    if (id >= 0) {
      ++st.valid;
      out.push_back(f);
    } else {
      ++st.fuzzy;
      fuzzy.push_back(f);
    }
  }
  out.insert(out.end(), fuzzy.begin(), fuzzy.end());
  if (stats) *stats = st;
  if (explain_) explain_misses(t);
}

// Regions nested like a symbol that did not become candidates, neither inside a candidate nor
// around one: where a symbol that never reached the decoder's gates was lost. "Like a symbol":
// from half the set's fewest descendants to twice its most, nesting as deep as a symbol's or one
// level deeper, 20 px to half the frame wide.
void Decoder::explain_misses(const segment::RegionTree& t) {
  using segment::kBorder;
  using segment::kFragmented;
  using segment::kSaturated;
  const int n = t.size();
  std::vector<std::uint8_t> candidate(static_cast<std::size_t>(n), 0), around(static_cast<std::size_t>(n), 0);
  for (int c : candidates_) {
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
    if (nested < set_.rmin() / 2 || nested > 2 * set_.tmax() || nest_height[r] < set_.min_height ||
        nest_height[r] > set_.max_height + 1 || side < 20 || 2 * side > frame_side || inside_candidate(r))
      continue;
    CandidateReport m;
    m.region = r;
    m.candidate = false;
    m.descendants = visit_round_[r] ? desc_[r] : nested;
    m.height = visit_round_[r] ? height_[r] : -1;
    if (t.flags[r] & kBorder) {
      m.reason = "touches the frame's edge";
    } else if (t.flags[r] & kSaturated) {
      m.reason = "more neighbours than a symbol's region has (saturated)";
    } else if (!visit_round_[r]) {
      m.reason = blocked_[r] ? "not reached: a region below it has more descendants or depth than a symbol allows"
                 : (t.flags[r] & kFragmented)
                     ? "lost a neighbour to a saturated region (fragmented)"
                     : "not reached: a region below it is saturated, fragmented or touches the frame's edge";
    } else {
      m.reason = "height " + std::to_string(height_[r]) + " and " + std::to_string(desc_[r]) + " descendants; a symbol has height " +
                 std::to_string(set_.min_height) + "-" + std::to_string(set_.max_height) + " and " + std::to_string(set_.rmin()) +
                 "-" + std::to_string(set_.tmax()) + " descendants";
    }
    reports_.push_back(std::move(m));
  }
}

}  // namespace gpuvis::decode

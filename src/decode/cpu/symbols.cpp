// Phase 2 of CPU decoding (spec §4.3-4.6), one candidate root at a time: the subtree's depths,
// children (traversed neighbours with fewer descendants) and canonical key, the weighted leaf
// sums; then the gates, the lookup in the tree set and the pose (the CUDA decoder's symbols.cu,
// one warp per candidate).
#include <algorithm>
#include <functional>

#include "decode/cpu/phases.hpp"
#include "decode/cpu/yamaarashi.hpp"
#include "decode/yamaarashi_rules.hpp"

namespace gpuvis::decode::cpu {
namespace {

const char* const kGateReasons[] = {"", "fewer descendants than any symbol of the set (damaged)",
                                    "too many leaves are specks of 3 pixels or less (noise)",
                                    "a leaf is under half or over twice its colour's average size", "key not in the tree set"};

// The subtree under `root`, walked in post-order: its key S(n) = depth digit + the children's
// strings in descending order, and its leaves (appended to `leaves`, summed into `sums`). A
// symbol's subtree has at most set.max_nodes regions; a walk that meets more has left the tree
// (neighbour cycles in noise) and is dropped, which also bounds the walk: false then.
bool read_subtree(const segment::RegionTree& t, const TreeSet& set, int root, DecoderScratch& s, std::vector<LeafRef>& leaves,
                  rules::LeafSums& sums, std::string& key) {
  struct Frame {
    int node;
    std::size_t child_pos;
    std::vector<int> kids;
    std::vector<std::string> parts;
  };
  auto children_of = [&](int node, std::vector<int>& kids) {
    kids.clear();
    if (t.degree(node) == 1 && node != root) return;
    for (const std::int32_t* a = t.neighbours(node); a != t.neighbours(node) + t.degree(node); ++a)
      if (s.visit_round[*a] && s.desc[*a] < s.desc[node]) kids.push_back(*a);
  };
  auto visit_leaf = [&](int leaf) {
    const double w = rules::leaf_weight(s.node_depth[leaf]);
    leaves.push_back({leaf, w});
    sums.add(w, t.centroid_x(leaf), t.centroid_y(leaf), t.colour[leaf] ? 1 : 0,
             (t.right[leaf] - t.left[leaf]) + (t.bottom[leaf] - t.top[leaf]));
  };
  std::vector<Frame> frames;
  s.node_depth[root] = 0;
  frames.push_back({root, 0, {}, {}});
  children_of(root, frames.back().kids);
  int nodes = 1;
  while (!frames.empty()) {
    Frame& f = frames.back();
    if (f.child_pos < f.kids.size()) {
      if (++nodes > set.max_nodes) return false;
      const int child = f.kids[f.child_pos++];
      s.node_depth[child] = s.node_depth[f.node] + 1;
      frames.push_back({child, 0, {}, {}});  // f is not used after this (the vector may move)
      children_of(child, frames.back().kids);
      continue;
    }
    if (f.kids.empty() && f.node != root) visit_leaf(f.node);
    std::sort(f.parts.begin(), f.parts.end(), std::greater<>());
    std::string part(1, static_cast<char>('0' + std::min(s.node_depth[f.node], 9)));
    for (const auto& p : f.parts) part += p;
    frames.pop_back();
    if (frames.empty()) key = std::move(part);
    else frames.back().parts.push_back(std::move(part));
  }
  return true;
}

// The root region's measures, which every reported fiducial carries.
void describe_root(const segment::RegionTree& t, int root, const rules::LeafSums& sums, int leaf_begin, Fiducial& f) {
  f.root = root;
  f.root_size = std::max(t.bbox_width(root), t.bbox_height(root));
  f.root_x = t.centroid_x(root);
  f.root_y = t.centroid_y(root);
  f.root_colour = t.colour[root];
  f.leaves = sums.leaves;
  f.gated_leaves = sums.gated_total();
  f.leaf_begin = leaf_begin;
}

}  // namespace

SymbolOutcome read_symbol(const segment::RegionTree& t, HostView<const std::uint8_t> binary, const TreeSet& set, int root,
                          DecoderScratch& s, std::vector<LeafRef>& leaves, bool repair) {
  SymbolOutcome out;
  const int leaf_begin = static_cast<int>(leaves.size());
  if (!read_subtree(t, set, root, s, leaves, out.sums, out.key)) {
    out.key.clear();
    out.reason = "subtree larger than any symbol (left the tree)";
    return out;
  }
  // §4.6 classification.
  int reason = rules::kReasonNone;
  const int root_size = std::max(t.bbox_width(root), t.bbox_height(root));
  const std::string colour = t.colour[root] ? "w" : "b";
  int id = rules::classify(
      out.sums, set.min_leafs(), s.fuzzy_root[root] != 0, root_size,
      [&] {
        const std::string full = colour + out.key;
        if (set.yamaarashi && full == yamaarashi::kKey) return yamaarashi::kCode;
        const auto it = set.ids.find(full);
        return it != set.ids.end() ? it->second : -1;
      },
      &reason);
  if (repair && reason == rules::kReasonDamaged) {
    // The one symbol a leaf more would make of it (TreeSet::one_leaf_away); the other gates still
    // apply.
    int repaired_reason = rules::kReasonNone;
    const int repaired = rules::classify(
        out.sums, set.min_leafs(), false, root_size, [&] { return set.one_leaf_away(colour + out.key); }, &repaired_reason);
    if (repaired >= 0) {
      id = repaired;
      reason = repaired_reason;
      out.fiducial.repaired = true;
    }
  }
  if (id == rules::kInvalid || !rules::has_orientation(out.sums)) {
    out.reason = id == rules::kInvalid ? kGateReasons[reason] : "no black leaf, so no orientation";
    out.and_few_leaves = id == rules::kInvalid;
    return out;
  }
  Fiducial& f = out.fiducial;
  const rules::Pose pose = rules::symbol_pose(out.sums);
  f.x = pose.x;
  f.y = pose.y;
  f.angle = pose.angle;
  const int found = id;
  if (id == yamaarashi::kCode)  // the ring gives the ID, and the pose is refined (§6.10)
    id = decode_yamaarashi(t, binary, root, s.visit_round.data(), s.desc.data(), set.mirror, f);
  const int unlimited = id;
  id = rules::limit_id(id, set.max_id);
  f.id = id >= 0 ? id : -1;
  out.reason = id >= 0                      ? "decoded"
               : unlimited >= 0             ? "ID above max_fid"
               : found == yamaarashi::kCode ? "yamaarashi ring did not decode"
                                            : kGateReasons[reason];
  describe_root(t, root, out.sums, leaf_begin, f);
  out.kind = id >= 0 ? SymbolOutcome::Kind::valid : SymbolOutcome::Kind::fuzzy;
  return out;
}

}  // namespace gpuvis::decode::cpu

// Amoeba decoding on the CPU (spec §4–§5): leaf-upward propagation finds candidate roots, the
// candidate's subtree gives the canonical key that is looked up in the tree set, and the weighted
// leaf centroids give position and angle. Statistics are defined soundly (docs/decoding.md): leaf
// centres are region centroids at sub-pixel precision, leaf-size extremes are true extremes.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "gpuvis/decode/fiducial.hpp"

namespace gpuvis::decode {
namespace {

constexpr int kLeafGateSize = 2;  // leaves with (w-1)+(h-1) <= 2 are too small for the size statistics

double wrap_angle(double a) {
  constexpr double two_pi = 2 * std::numbers::pi;
  a = std::fmod(a, two_pi);
  if (a < 0) a += two_pi;
  return a >= two_pi ? 0.0 : a;
}

}  // namespace

void Decoder::decode(const segment::RegionTree& t, std::vector<Fiducial>& out, DecodeStats* stats) {
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
      if (height >= dmin && height <= dmax && desc >= rmin && desc <= tmax) {
        candidates_.push_back(r);
        fuzzy_root_[r] = desc < tmin;  // fewer descendants than any symbol: a damaged one
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
  for (int root : candidates_) {
    ++st.candidates;
    // §4.3-4.4: depths, children (traversed neighbours with fewer descendants) and the key.
    struct Frame {
      int node;
      std::size_t child_pos;
      std::vector<int> kids;
      std::vector<std::string> parts;
    };
    double sum_w = 0, sum_wx = 0, sum_wy = 0, sum_bw = 0, sum_bx = 0, sum_by = 0;
    int gated[2] = {0, 0};  // black, white
    double size_sum[2] = {0, 0};
    int size_min[2] = {1 << 30, 1 << 30}, size_max[2] = {0, 0};
    int leaves = 0;
    const int leaf_begin = static_cast<int>(leaves_.size());
    auto children_of = [&](int node, std::vector<int>& kids) {
      kids.clear();
      if (t.degree(node) == 1 && node != root) return;
      for (const std::int32_t* a = t.neighbours(node); a != t.neighbours(node) + t.degree(node); ++a)
        if (visit_round_[*a] && desc_[*a] < desc_[node]) kids.push_back(*a);
    };
    auto visit_leaf = [&](int leaf) {
      ++leaves;
      const double w = std::numbers::pi * (node_depth_[leaf] + 0.5) * (node_depth_[leaf] + 0.5);
      const double cx = t.centroid_x(leaf), cy = t.centroid_y(leaf);
      leaves_.push_back({leaf, w});
      sum_w += w;
      sum_wx += w * cx;
      sum_wy += w * cy;
      const int c = t.colour[leaf] ? 1 : 0;
      if (!c) {
        sum_bw += w;
        sum_bx += w * cx;
        sum_by += w * cy;
      }
      const int s = (t.right[leaf] - t.left[leaf]) + (t.bottom[leaf] - t.top[leaf]);
      if (s > kLeafGateSize) {
        ++gated[c];
        size_sum[c] += s;
        size_min[c] = std::min(size_min[c], s);
        size_max[c] = std::max(size_max[c], s);
      }
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
      ++st.invalid;
      leaves_.resize(static_cast<std::size_t>(leaf_begin));
      continue;
    }
    // §4.6 classification.
    const int min_leafs = set_.min_leafs();
    const bool enough = gated[0] >= min_leafs || gated[1] >= min_leafs;
    int id = -2;  // -2 fuzzy, -1 invalid, >= 0 valid
    bool extreme = false;
    for (int c = 0; c < 2; ++c)
      if (gated[c] > 0) {
        const double avg = size_sum[c] / gated[c];
        extreme = extreme || size_min[c] < 0.5 * avg || size_max[c] > 2.0 * avg;
      }
    // gpuvis's extra gate: every leaf of a real print is bigger than the size gate down to symbols
    // 40 px wide (measured on all 240 prints at 24 rotations), while the specks of noise that can
    // mimic a tree are not. A tree whose leaves are mostly specks never gets an ID.
    const bool specks = (gated[0] + gated[1]) * 4 < leaves * 3;
    if (fuzzy_root_[root]) {
      id = enough ? -2 : -1;
    } else if (specks) {
      id = enough ? -2 : -1;
    } else if (extreme) {
      id = (gated[0] > min_leafs || gated[1] > min_leafs) ? -2 : -1;
    } else {
      const auto it = set_.ids.find((t.colour[root] ? "w" : "b") + key);
      id = it != set_.ids.end() ? it->second : (enough ? -2 : -1);
    }
    if (id == -1 || sum_w == 0 || sum_bw == 0) {  // no black leaf: no orientation, not a symbol
      ++st.invalid;
      leaves_.resize(static_cast<std::size_t>(leaf_begin));
      continue;
    }
    Fiducial f;
    f.id = id >= 0 ? id : -1;
    f.x = sum_wx / sum_w;
    f.y = sum_wy / sum_w;
    f.angle = wrap_angle(std::atan2(f.y - sum_by / sum_bw, f.x - sum_bx / sum_bw) - std::numbers::pi / 2);
    f.root = root;
    f.root_size = std::max(t.bbox_width(root), t.bbox_height(root));
    f.root_x = t.centroid_x(root);
    f.root_y = t.centroid_y(root);
    f.root_colour = t.colour[root];
    f.leaves = leaves;
    f.gated_leaves = gated[0] + gated[1];
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
}

}  // namespace gpuvis::decode

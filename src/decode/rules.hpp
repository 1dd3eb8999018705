#pragma once
// The rules that turn a candidate's leaves into a symbol (spec §4.6, §5.1), shared verbatim by the
// CPU Decoder and the CUDA decoder so both follow one definition (docs/decoding.md): the leaf
// weight, the running sums over the leaves, the §4.6 gates and the angle. Both backends add the
// leaves in the same order (depth first, children in neighbour order) and compile this without
// FMA contraction, so their sums agree to the last bit.
#include <math.h>  // fmod and atan2 in the global namespace: the same names on the host and the device

#include "gpuvis/core/image.hpp"  // GPUVIS_HD

namespace gpuvis::decode::rules {

inline constexpr double kPi = 3.141592653589793238462643383279502884;
// Leaves with (w-1)+(h-1) <= 2 are too small for the size statistics (and count as specks).
inline constexpr int kLeafGateSize = 2;

// A leaf at depth d weighs the area of a circle of radius d + 0.5 (deeper leaves are larger).
GPUVIS_HD inline double leaf_weight(int depth) {
  const double d = depth + 0.5;
  return kPi * d * d;
}

// The running sums over a candidate's leaves.
struct LeafSums {
  double w = 0, wx = 0, wy = 0;  // all leaves: weight and weighted centre
  double bw = 0, bx = 0, by = 0;  // black leaves only
  int leaves = 0;
  int gated[2] = {0, 0};  // leaves above the size gate, black [0] and white [1]
  double size_sum[2] = {0, 0};
  int size_min[2] = {1 << 30, 1 << 30}, size_max[2] = {0, 0};

  // One leaf: weight, centroid, colour (0 black, 1 white) and size (w-1)+(h-1).
  GPUVIS_HD void add(double weight, double cx, double cy, int white, int size) {
    add_weighted(weight, weight * cx, weight * cy, white, size);
  }
  // The same with the weighted centroid (weight * cx, weight * cy) already multiplied out: only the
  // additions depend on the order of the leaves, so the products may be formed in parallel (the
  // CUDA decoder) and the sums stay the CPU's to the last bit.
  GPUVIS_HD void add_weighted(double weight, double wcx, double wcy, int white, int size) {
    ++leaves;
    w += weight;
    wx += wcx;
    wy += wcy;
    if (!white) {
      bw += weight;
      bx += wcx;
      by += wcy;
    }
    if (size > kLeafGateSize) {
      ++gated[white];
      size_sum[white] += size;
      size_min[white] = size < size_min[white] ? size : size_min[white];
      size_max[white] = size > size_max[white] ? size : size_max[white];
    }
  }
  GPUVIS_HD int gated_total() const { return gated[0] + gated[1]; }
};

inline constexpr int kFuzzy = -2, kInvalid = -1;
// The lookup's code for the yamaarashi core (spec §4.5, yamaarashi_rules.hpp): its ID comes from
// the ring of samples around it.
inline constexpr int kYamaarashi = -5;

// Why classify() did not give an ID (gpuvis detect --debug): the gate that decided.
inline constexpr int kReasonNone = 0, kReasonDamaged = 1, kReasonSpecks = 2, kReasonLeafSizes = 3, kReasonUnknownKey = 4;

// Roots this wide (max of the bounding box's sides, in pixels) are small symbols, whose leaves
// shrink to specks under a camera's blur; see classify's speck gate.
inline constexpr int kSmallRootMin = 26, kSmallRootMax = 55;

// gpuvis's extra gate against trees made of noise: the share of a tree's leaves that must be above
// the size gate. Every leaf of a real print 40 px and wider is above it when sharp (measured on all
// 240 prints at 24 rotations), while the specks of noise that can mimic a tree are not: three
// quarters are needed. Small symbols (roots 26-55 px) under blur keep fewer: on 960 generated
// 34-46 px symbols at σ 0.8 the lowest share was 0.21 and all others were 0.26 or more, so these
// need more than a quarter. With no speck gate at all, 200 000 symbol-free frames gave 34 trees that
// matched a key: every one had at most 4 of 17 leaves (0.235) above the gate, and the one root of
// 26-55 px had 3 of 17 (docs/decoding.md).
GPUVIS_HD inline bool mostly_specks(const LeafSums& s, int root_size) {
  const int gated = s.gated[0] + s.gated[1];
  if (root_size >= kSmallRootMin && root_size <= kSmallRootMax) return gated * 4 <= s.leaves;
  return gated * 4 < s.leaves * 3;
}

// §4.6: kFuzzy, kInvalid, kYamaarashi or the ID found in the tree set. `damaged`: the root has fewer
// descendants than any symbol of the set. `root_size`: max(width, height) of the root's bounding
// box. `lookup()` gives the key's ID or -1; it is called only when the gates pass. A result other
// than kInvalid is a symbol only when it has an orientation (has_orientation). `reason`, when
// given, receives the gate that refused an ID (kReason...).
template <class Lookup>
GPUVIS_HD int classify(const LeafSums& s, int min_leafs, bool damaged, int root_size, Lookup&& lookup, int* reason = nullptr) {
  const bool enough = s.gated[0] >= min_leafs || s.gated[1] >= min_leafs;
  bool extreme = false;
  for (int c = 0; c < 2; ++c)
    if (s.gated[c] > 0) {
      const double avg = s.size_sum[c] / s.gated[c];
      extreme = extreme || s.size_min[c] < 0.5 * avg || s.size_max[c] > 2.0 * avg;
    }
  const bool specks = mostly_specks(s, root_size);  // a tree of noise specks never gets an ID
  int why = kReasonNone, id;
  if (damaged || specks) {
    why = damaged ? kReasonDamaged : kReasonSpecks;
    id = enough ? kFuzzy : kInvalid;
  } else if (extreme) {
    why = kReasonLeafSizes;
    id = (s.gated[0] > min_leafs || s.gated[1] > min_leafs) ? kFuzzy : kInvalid;
  } else {
    id = lookup();
    if (id < 0 && id != kYamaarashi) {
      why = kReasonUnknownKey;
      id = enough ? kFuzzy : kInvalid;
    }
  }
  if (reason) *reason = why;
  return id;
}

// reacTIVision's max_fid (spec §5.5): an ID above the limit makes the candidate fuzzy; 0 = no limit.
GPUVIS_HD inline int limit_id(int id, int max_id) { return max_id > 0 && id > max_id ? kFuzzy : id; }

// No black leaf (or no leaf): no orientation, so not a symbol.
GPUVIS_HD inline bool has_orientation(const LeafSums& s) { return s.w != 0 && s.bw != 0; }

GPUVIS_HD inline double wrap_angle(double a) {
  const double two_pi = 2 * kPi;
  // fmod(a, 2 pi) is a itself when |a| < 2 pi, always so for symbol_pose's angles; skipping it
  // saves the GPU's long software fmod and changes no result.
  if (!(a > -two_pi && a < two_pi)) a = fmod(a, two_pi);
  if (a < 0) a += two_pi;
  return a >= two_pi ? 0.0 : a;
}

struct Pose {
  double x, y, angle;
};

// The symbol's centre is the weighted centre of its leaves; its angle points from the black
// leaves' centre to that centre, turned by -90 degrees, in [0, 2 pi) (reacTIVision's convention).
// Only for sums with has_orientation().
GPUVIS_HD inline Pose symbol_pose(const LeafSums& s) {
  const double x = s.wx / s.w, y = s.wy / s.w;
  return {x, y, wrap_angle(atan2(y - s.by / s.bw, x - s.bx / s.bw) - kPi / 2)};
}

}  // namespace gpuvis::decode::rules

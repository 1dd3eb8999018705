#pragma once
// Blob geometry and the finger test (spec §7.1-§7.3, docs/decoding.md), shared verbatim by the CPU
// (blobs.cpp) and the CUDA stage (cuda/blobs.cu) so that both follow one definition.
//
// Everything that decides a blob's box uses only integer arithmetic, + - * / and sqrt (correctly
// rounded on the host and the device alike), and both sides compile it without FMA contraction:
// centres and sides agree to the last bit. Only the reported angle comes from atan2 (a few ulps
// apart between the host's and the device's libm), and the finger score's sum, which the GPU adds
// in a different order.
//
// A region's runs are given as `runs[0 .. n)` in raster order (any type with operator[] -> Run).
#include <math.h>  // sqrt, atan2 and fmod in the global namespace: the same names on the host and the device

#include <cstdint>

#include "gpuvis/core/image.hpp"  // GPUVIS_HD
#include "gpuvis/decode/blobs.hpp"
#include "gpuvis/segment/region_tree.hpp"

namespace gpuvis::decode::blob_rules {

inline constexpr double kPi = 3.141592653589793238462643383279502884;

struct Point {
  int x, y;
};

GPUVIS_HD inline long long cross(Point o, Point a, Point b) {
  return static_cast<long long>(a.x - o.x) * (b.y - o.y) - static_cast<long long>(a.y - o.y) * (b.x - o.x);
}

// A region's extent in one row: its leftmost and rightmost pixels. The other run ends of the row
// lie between them on one line and are never vertices of the convex hull.
struct RowSpan {
  int left, right;
};

// Row spans of a region from its runs (raster order): calls span(k, left or right) for the first
// and the last run of each row, k = y - top. Run i alone decides its part, so a warp's lanes can
// take the runs in any order.
template <class Runs>
GPUVIS_HD void row_span_of_run(const Runs& runs, int n, int i, int top, RowSpan* spans) {
  // All reads before the writes: on the device the runs may sit in global memory, and the loads
  // then go out together instead of one after another.
  const segment::Run run = runs[i];
  const int prev_y = i > 0 ? runs[i - 1].y : -1, next_y = i < n - 1 ? runs[i + 1].y : -1;
  if (prev_y != run.y) spans[run.y - top].left = run.x0;
  if (next_y != run.y) spans[run.y - top].right = run.x1;
}

// The largest number of points hull() may store for a region of `rows` rows.
GPUVIS_HD inline int hull_room(int rows) { return 2 * rows + 1; }

// The points the hull is built from: each row's left end, and its right end when it differs.
GPUVIS_HD inline int row_end_count(const RowSpan& span) { return span.right != span.left ? 2 : 1; }

// One chain of Andrew's monotone chain over the row ends in (y, x) order (forward: down the right
// side) or in the reverse order (backward: up the left side), into h; returns its length. A chain
// starts at the first point of its order and ends at the last, and keeps only turns with
// cross > 0. The top two points stay in registers, so a point that pops nothing costs no load.
GPUVIS_HD inline int hull_chain(const RowSpan* spans, int rows, int top, bool backward, Point* h) {
  int k = 0;
  Point below{0, 0}, last{0, 0};  // h[k - 2] and h[k - 1]
  auto push = [&](Point p) {
    while (k >= 2 && cross(below, last, p) <= 0) {
      --k;
      last = below;
      if (k >= 2) below = h[k - 2];
    }
    h[k++] = p;
    below = last;
    last = p;
  };
  for (int i = 0; i < rows; ++i) {
    const int r = backward ? rows - 1 - i : i;
    const RowSpan span = spans[r];
    if (!backward) push(Point{span.left, top + r});
    if (span.right != span.left) push(Point{span.right, top + r});
    if (backward) push(Point{span.left, top + r});
  }
  return k;
}

// Convex hull of the region's pixel centres (collinear points dropped) from its row spans, into h
// (room: hull_room(rows)): the forward chain, then the backward chain without its ends (the
// last and the first point, which the forward chain holds). Returns the vertex count; fewer than 3
// means a degenerate region (one pixel, one straight line). The vertices turn with cross > 0
// (clockwise on screen, y down); hull_start() gives the vertex the sums start from.
GPUVIS_HD inline int hull(const RowSpan* spans, int rows, int top, Point* h) {
  int points = 0;
  for (int r = 0; r < rows; ++r) points += row_end_count(spans[r]);
  if (points < 3) return points;
  const int forward = hull_chain(spans, rows, top, false, h);
  // The backward chain starts at the forward chain's last point: write it over that point.
  const int backward = hull_chain(spans, rows, top, true, h + forward - 1);
  return forward + backward - 2;
}

// Is a before b in (x, y) order?
GPUVIS_HD inline bool leftmost_first(Point a, Point b) { return a.x < b.x || (a.x == b.x && a.y < b.y); }

// The vertex the perimeter sums start from (smallest x, then smallest y), so that they add up in
// the same order whatever algorithm ordered the hull.
GPUVIS_HD inline int hull_start(const Point* h, int n) {
  int s = 0;
  for (int k = 1; k < n; ++k)
    if (leftmost_first(h[k], h[s])) s = k;
  return s;
}

// The perimeter moments of a hull (spec §7.2 step 4): sums over its edges, added edge by edge from
// hull_start() (the device computes the edges' terms in parallel and adds them in this order).
struct Moments {
  double len = 0, cx = 0, cy = 0, sxx = 0, syy = 0, sxy = 0;
  GPUVIS_HD void add(const Moments& e) {
    len += e.len;
    cx += e.cx;
    cy += e.cy;
    sxx += e.sxx;
    syy += e.syy;
    sxy += e.sxy;
  }
};

// Edge k of the hull, counted from vertex s.
GPUVIS_HD inline Moments edge_moments(const Point* h, int n, int s, int k) {
  const Point p = h[(s + k) % n], q = h[(s + k + 1) % n];
  const long long dx = q.x - p.x, dy = q.y - p.y;
  const double a = sqrt(static_cast<double>(dx * dx + dy * dy));
  const double px = p.x, py = p.y, qx = q.x, qy = q.y;
  const double mx = (px + qx) / 2, my = (py + qy) / 2;
  Moments e;
  e.len = a;
  e.cx = a * mx;
  e.cy = a * my;
  e.sxx = a * (2 * mx * mx + px * px + qx * qx);
  e.syy = a * (2 * my * my + py * py + qy * qy);
  e.sxy = a * (2 * mx * my + px * py + qx * qy);
  return e;
}

struct Axis {
  double ux = 1, uy = 0;
};

// The principal axis of the perimeter's covariance: the unit eigenvector of the larger eigenvalue,
// from whichever of the two candidate vectors is longer (the other vanishes when the covariance is
// diagonal); (1, 0) for an isotropic hull.
GPUVIS_HD inline Axis principal_axis(const Moments& m) {
  const double cx = m.cx / m.len, cy = m.cy / m.len;
  const double cxx = m.sxx / (4 * m.len) - cx * cx, cyy = m.syy / (4 * m.len) - cy * cy;
  const double cxy = m.sxy / (4 * m.len) - cx * cy;
  const double half = (cxx - cyy) / 2;
  const double lambda = (cxx + cyy) / 2 + sqrt(half * half + cxy * cxy);
  double ux = cxy, uy = lambda - cxx;
  const double vx = lambda - cyy, vy = cxy;
  if (vx * vx + vy * vy > ux * ux + uy * uy) ux = vx, uy = vy;
  const double norm = sqrt(ux * ux + uy * uy);
  Axis a;
  if (norm > 0) {
    a.ux = ux / norm;
    a.uy = uy / norm;
  }
  return a;
}

// The hull's extent along the axis (1) and across it (2); min and max are exact in any order.
struct Extent {
  double min1 = 1e300, max1 = -1e300, min2 = 1e300, max2 = -1e300;
  GPUVIS_HD void add(Point p, const Axis& a) {
    const double x = p.x, y = p.y;
    const double u = x * a.ux + y * a.uy, v = -x * a.uy + y * a.ux;
    min1 = u < min1 ? u : min1;
    max1 = u > max1 ? u : max1;
    min2 = v < min2 ? v : min2;
    max2 = v > max2 ? v : max2;
  }
  GPUVIS_HD void add(const Extent& o) {
    min1 = o.min1 < min1 ? o.min1 : min1;
    max1 = o.max1 > max1 ? o.max1 : max1;
    min2 = o.min2 < min2 ? o.min2 : min2;
    max2 = o.max2 > max2 ? o.max2 : max2;
  }
};

// The oriented box from the axis and the extents (spec §7.2 steps 6-7 without the quirks): its
// centre, its sides in whole pixels (extent + 1), the long side's direction in [0, pi).
GPUVIS_HD inline BlobGeometry box(Axis a, const Extent& e) {
  BlobGeometry g;
  const double c1 = (e.min1 + e.max1) / 2, c2 = (e.min2 + e.max2) / 2;
  g.x = c1 * a.ux - c2 * a.uy;
  g.y = c1 * a.uy + c2 * a.ux;
  double e1 = e.max1 - e.min1, e2 = e.max2 - e.min2;
  if (e2 > e1) {  // the long side is across the principal axis
    const double t = e1;
    e1 = e2;
    e2 = t;
    a = Axis{-a.uy, a.ux};
  }
  double angle = fmod(atan2(a.uy, a.ux), kPi);
  if (angle < 0) angle += kPi;
  g.extent_long = e1;
  g.extent_short = e2;
  g.width = e1 + 1;
  g.height = e2 + 1;
  g.angle = angle >= kPi ? 0 : angle;
  g.axis_x = a.ux;
  g.axis_y = a.uy;
  g.ok = true;
  return g;
}

// The oriented box of a hull of n vertices (spec §7.2 steps 4-7): moments, axis, extents, box.
GPUVIS_HD inline BlobGeometry geometry(const Point* h, int n) {
  if (n < 3) return BlobGeometry{};
  const int s = hull_start(h, n);
  Moments m;
  for (int k = 0; k < n; ++k) m.add(edge_moments(h, n, s, k));
  const Axis a = principal_axis(m);
  Extent e;
  for (int k = 0; k < n; ++k) e.add(h[k], a);
  return box(a, e);
}

// What the finger score needs of a blob (spec §7.3): the ellipse of its box, and whether the fill
// test already rejects it.
struct ScoreFrame {
  bool rejected = true;  // fill ratio outside [0.5, 1.5], or no geometry
  double a = 0.5, b = 0.5;
};

GPUVIS_HD inline ScoreFrame score_frame(int area, const BlobGeometry& g) {
  ScoreFrame f;
  if (!g.ok) return f;
  const double fill = area / (kPi / 4 * g.width * g.height);
  f.rejected = fill < 0.5 || fill > 1.5;
  f.a = g.extent_long / 2 > 0.5 ? g.extent_long / 2 : 0.5;
  f.b = g.extent_short / 2 > 0.5 ? g.extent_short / 2 : 0.5;
  return f;
}

// One boundary pixel's term of the score: its squared distance to the point of the ellipse in its
// direction, scaled up when it lies outside the ellipse. cos and sin of that direction are u/ρ and
// v/ρ (no trigonometry).
GPUVIS_HD inline double score_term(const BlobGeometry& g, const ScoreFrame& f, int px, int py) {
  const double dx = px - g.x, dy = py - g.y;
  const double u = dx * g.axis_x + dy * g.axis_y, v = -dx * g.axis_y + dy * g.axis_x;
  const double rr = u * u + v * v;
  double ex = f.a, ey = 0;  // the direction of (0, 0) is 0
  if (rr > 0) {
    const double rho = sqrt(rr);
    ex = f.a * u / rho;
    ey = f.b * v / rho;
  }
  const double d2 = (u - ex) * (u - ex) + (v - ey) * (v - ey);
  const double ee = ex * ex + ey * ey;
  return rr <= ee ? d2 : d2 * rr / ee;
}

GPUVIS_HD inline double score_of(const ScoreFrame& f, double sum, int count) {
  return count ? (sum / count) / sqrt(f.a * f.b) : 1000;
}

template <class Runs>
GPUVIS_HD bool covered(const Runs& runs, int begin, int end, int x) {
  for (int j = begin; j < end; ++j)
    if (runs[j].x0 <= x && x <= runs[j].x1) return true;
  return false;
}

// Calls add(x, y) for the boundary pixels of run i: its two ends, then the pixels between them with
// no pixel of the region directly above or directly below.
template <class Runs, class Add>
GPUVIS_HD void for_each_boundary_pixel(const Runs& runs, int n, int i, Add&& add) {
  const segment::Run run = runs[i];
  int row_begin = i, row_end = i + 1;
  while (row_begin > 0 && runs[row_begin - 1].y == run.y) --row_begin;
  while (row_end < n && runs[row_end].y == run.y) ++row_end;
  int above = row_begin, below = row_end;  // [above, row_begin): row y-1; [row_end, below): row y+1
  while (above > 0 && runs[above - 1].y == run.y - 1) --above;
  while (below < n && runs[below].y == run.y + 1) ++below;
  add(run.x0, run.y);
  if (run.x1 != run.x0) add(run.x1, run.y);
  for (int x = run.x0 + 1; x < run.x1; ++x)
    if (!covered(runs, above, row_begin, x) || !covered(runs, row_end, below, x)) add(x, run.y);
}

// The grey-level range over every second row of the region, starting with its first (spec §7.1
// step 5), of run i; hi - lo of the union over all runs is the finger's contrast.
template <class Runs, class Grey>
GPUVIS_HD void contrast_of_run(const Runs& runs, int i, int first_row, const Grey& grey, int& lo, int& hi) {
  const segment::Run run = runs[i];
  if ((run.y - first_row) % 2) return;
  for (int x = run.x0; x <= run.x1; ++x) {
    const int v = grey(x, run.y);
    lo = v < lo ? v : lo;
    hi = v > hi ? v : hi;
  }
}

// Spec §7.1 / §6.2: is region `r` (white, not part of a decoded symbol) a finger candidate, a blob
// candidate, or neither?
struct Branches {
  bool finger = false, blob = false;
};

GPUVIS_HD inline Branches branches(int width, int height, int degree, const FingerParams& fp, const BlobParams& bp) {
  const int size = width > height ? width : height, md = width < height ? width : height;
  const int diff = width > height ? width - height : height - width;
  Branches b;
  b.finger = fp.size > 0 && size >= fp.size / 2.0 && size <= 2.0 * fp.size && diff < md && degree - 1 < 2 * fp.sensitivity;
  b.blob = bp.max_size > 0 && size >= bp.min_size && size <= bp.max_size && diff < 2 * md && degree <= 5;
  return b;
}

// Is region r part of a decoded symbol: a root (is_root[r] != 0) or below one in the parent forest?
template <class Mark>
GPUVIS_HD bool in_symbol(const std::int32_t* parent, const Mark* is_root, int r) {
  for (int p = r; p >= 0; p = parent[p])
    if (is_root[p]) return true;
  return false;
}

// gpuvis, beyond reacTIVision: a white region inside a black one inside a small white one is a
// leaf of a print that did not decode (worn, covered, or half out of the frame), not a fingertip:
// a fingertip's dark surroundings are the table, not a print's ink on its paper. The print is the
// grandparent when it is white; when the black parent touches the frame's edge it has lost its own
// parent (segmentation), and the parent's box stands for the print. "Small": at most 16 finger
// sizes and half the frame's longer side, where leaves that can pass for fingers (at most 2
// finger sizes) come from, while the table around real fingers spans the frame.
struct Enclosing {
  int parent_colour = -1, grandparent_colour = -1;  // 0 or 255; -1: none
  bool parent_on_border = false;
  int parent_width = 0, parent_height = 0, grandparent_width = 0, grandparent_height = 0;
};
GPUVIS_HD inline bool inside_print(const Enclosing& e, int frame_width, int frame_height, const FingerParams& fp) {
  if (e.parent_colour != 0) return false;
  int w, h;
  if (e.grandparent_colour == 255) {
    w = e.grandparent_width, h = e.grandparent_height;
  } else if (e.grandparent_colour < 0 && e.parent_on_border) {
    w = e.parent_width, h = e.parent_height;
  } else {
    return false;
  }
  const int side = w > h ? w : h, frame_side = frame_width > frame_height ? frame_width : frame_height;
  return side <= 16 * fp.size && 2 * side <= frame_side;
}

// Spec §7.1 step 3: a region whose centroid lies closer than rootsize/1.5 to a symbol's centre is
// never a finger or blob (compared squared: no libm call, the same verdict on both backends).
GPUVIS_HD inline bool near_symbol(double x, double y, double symbol_x, double symbol_y, int root_size) {
  const double dx = x - symbol_x, dy = y - symbol_y, reach = root_size / 1.5;
  return dx * dx + dy * dy < reach * reach;
}

// The finger test on a blob: enough contrast and an elliptic enough outline (score < s/4).
GPUVIS_HD inline bool is_finger(double score, int contrast, const FingerParams& fp) {
  return contrast >= fp.contrast && score < fp.sensitivity / 4;
}

}  // namespace gpuvis::decode::blob_rules

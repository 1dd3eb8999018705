// Fingers and blobs (spec §6.2, §7). Geometry follows the spec's construction (convex hull of the
// region, perimeter moments, principal axes, projected extents) without its quirks: box corners
// come from the projections directly, and sizes count whole pixels.
#include "gpuvis/decode/blobs.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace gpuvis::decode {
namespace {

struct P {
  double x, y;
};

double cross(const P& o, const P& a, const P& b) { return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x); }

// Andrew's monotone chain; collinear points dropped.
std::vector<P> convex_hull(std::vector<P> pts) {
  std::sort(pts.begin(), pts.end(), [](const P& a, const P& b) { return a.x < b.x || (a.x == b.x && a.y < b.y); });
  if (pts.size() < 3) return pts;
  std::vector<P> h(2 * pts.size());
  std::size_t k = 0;
  for (const P& p : pts) {
    while (k >= 2 && cross(h[k - 2], h[k - 1], p) <= 0) --k;
    h[k++] = p;
  }
  for (std::size_t i = pts.size() - 1, t = k + 1; i-- > 0;) {
    while (k >= t && cross(h[k - 2], h[k - 1], pts[i]) <= 0) --k;
    h[k++] = pts[i];
  }
  h.resize(k - 1);
  return h;
}

}  // namespace

BlobGeometry blob_geometry(const segment::RegionTree& t, int r) {
  BlobGeometry g;
  std::vector<P> pts;
  for (int i = t.run_begin[r]; i < t.run_begin[r + 1]; ++i) {
    pts.push_back({static_cast<double>(t.runs[i].x0), static_cast<double>(t.runs[i].y)});
    if (t.runs[i].x1 != t.runs[i].x0) pts.push_back({static_cast<double>(t.runs[i].x1), static_cast<double>(t.runs[i].y)});
  }
  const std::vector<P> hull = convex_hull(pts);
  if (hull.size() < 3) return g;
  // Perimeter moments of the hull (spec §7.2 step 4).
  double len = 0, cx = 0, cy = 0, sxx = 0, syy = 0, sxy = 0;
  for (std::size_t k = 0; k < hull.size(); ++k) {
    const P& p = hull[k];
    const P& q = hull[(k + 1) % hull.size()];
    const double a = std::hypot(q.x - p.x, q.y - p.y);
    const P m{(p.x + q.x) / 2, (p.y + q.y) / 2};
    len += a;
    cx += a * m.x;
    cy += a * m.y;
    sxx += a * (2 * m.x * m.x + p.x * p.x + q.x * q.x);
    syy += a * (2 * m.y * m.y + p.y * p.y + q.y * q.y);
    sxy += a * (2 * m.x * m.y + p.x * p.y + q.x * q.y);
  }
  cx /= len;
  cy /= len;
  const double cxx = sxx / (4 * len) - cx * cx, cyy = syy / (4 * len) - cy * cy, cxy = sxy / (4 * len) - cx * cy;
  // Principal axis of the 2x2 covariance.
  const double theta = 0.5 * std::atan2(2 * cxy, cxx - cyy);
  const double ux = std::cos(theta), uy = std::sin(theta);
  double min1 = 1e300, max1 = -1e300, min2 = 1e300, max2 = -1e300;
  for (const P& p : hull) {
    const double a = p.x * ux + p.y * uy, b = -p.x * uy + p.y * ux;
    min1 = std::min(min1, a), max1 = std::max(max1, a), min2 = std::min(min2, b), max2 = std::max(max2, b);
  }
  const double c1 = (min1 + max1) / 2, c2 = (min2 + max2) / 2;
  g.x = c1 * ux - c2 * uy;
  g.y = c1 * uy + c2 * ux;
  double e1 = max1 - min1, e2 = max2 - min2, angle = theta;
  if (e2 > e1) {
    std::swap(e1, e2);
    angle += std::numbers::pi / 2;
  }
  angle = std::fmod(angle, std::numbers::pi);
  if (angle < 0) angle += std::numbers::pi;
  g.extent_long = e1;
  g.extent_short = e2;
  g.width = e1 + 1;
  g.height = e2 + 1;
  g.angle = angle >= std::numbers::pi ? 0 : angle;
  g.ok = true;
  return g;
}

double finger_score(const segment::RegionTree& t, int r, const BlobGeometry& g) {
  if (!g.ok) return 1000;
  const double fill = t.area[r] / (std::numbers::pi / 4 * g.width * g.height);
  if (fill < 0.5 || fill > 1.5) return 1000;
  const double a = std::max(0.5, g.extent_long / 2), b = std::max(0.5, g.extent_short / 2);
  const double ca = std::cos(g.angle), sa = std::sin(g.angle);
  double sum = 0;
  int count = 0;
  auto add = [&](double px, double py) {
    const double dx = px - g.x, dy = py - g.y;
    const double u = dx * ca + dy * sa, v = -dx * sa + dy * ca;
    const double tt = std::atan2(v, u);
    const double ex = a * std::cos(tt), ey = b * std::sin(tt);
    const double d2 = (u - ex) * (u - ex) + (v - ey) * (v - ey);
    const double rr = u * u + v * v, ee = ex * ex + ey * ey;
    sum += rr <= ee ? d2 : d2 * rr / ee;
    ++count;
  };
  // Boundary pixels: run ends, and run pixels with no same-region pixel directly above or below.
  const int b0 = t.run_begin[r], b1 = t.run_begin[r + 1];
  auto covered = [&](int y, int x) {  // is (x, y) in region r? runs are in raster order
    for (int i = b0; i < b1; ++i) {
      if (t.runs[i].y < y) continue;
      if (t.runs[i].y > y) break;
      if (t.runs[i].x0 <= x && x <= t.runs[i].x1) return true;
    }
    return false;
  };
  for (int i = b0; i < b1; ++i) {
    const auto& run = t.runs[i];
    add(run.x0, run.y);
    if (run.x1 != run.x0) add(run.x1, run.y);
    for (int x = run.x0 + 1; x < run.x1; ++x)
      if (!covered(run.y - 1, x) || !covered(run.y + 1, x)) add(x, run.y);
  }
  return count ? (sum / count) / std::sqrt(a * b) : 1000;
}

void find_fingers_and_blobs(const segment::RegionTree& t, HostView<const std::uint8_t> grey,
                            const std::vector<Fiducial>& fiducials, const FingerParams& fp, const BlobParams& bp,
                            std::vector<Finger>& fingers, std::vector<Blob>& blobs) {
  fingers.clear();
  blobs.clear();
  if (fp.size <= 0 && bp.max_size <= 0) return;
  const int n = t.size();
  // Regions that belong to a decoded symbol (valid or fuzzy): roots and everything below them.
  std::vector<std::uint8_t> in_symbol(static_cast<std::size_t>(n), 0);
  for (const auto& f : fiducials) {
    if (f.root < 0) continue;
    const int x0 = t.left[f.root], x1 = t.right[f.root], y0 = t.top[f.root], y1 = t.bottom[f.root];
    in_symbol[f.root] = 1;
    for (int r = 0; r < n; ++r)  // descendants lie inside the root's box; the parent chain decides
      if (t.left[r] >= x0 && t.right[r] <= x1 && t.top[r] >= y0 && t.bottom[r] <= y1)
        for (int p = t.parent[r]; p >= 0; p = t.parent[p])
          if (p == f.root) {
            in_symbol[r] = 1;
            break;
          }
  }
  const double s = fp.sensitivity;
  for (int r = 0; r < n; ++r) {
    if (t.colour[r] != 255 || in_symbol[r] || (t.flags[r] & segment::kBorder)) continue;
    const int w = t.bbox_width(r), h = t.bbox_height(r);
    const int size = std::max(w, h), md = std::min(w, h), diff = std::abs(w - h);
    // Not near a symbol (spec §7.1 step 3: rootsize/1.5 from any object).
    bool near_symbol = false;
    for (const auto& f : fiducials)
      near_symbol = near_symbol || std::hypot(t.centroid_x(r) - f.x, t.centroid_y(r) - f.y) < f.root_size / 1.5;
    if (near_symbol) continue;
    if (fp.size > 0 && size >= fp.size / 2.0 && size <= 2.0 * fp.size && diff < md && t.degree(r) - 1 < 2 * s) {
      const BlobGeometry g = blob_geometry(t, r);
      if (g.ok) {
        // Contrast over every second row of the region, in the grey frame (spec §7.1 step 5).
        int lo = 255, hi = 0;
        int first_row = -1;
        for (int i = t.run_begin[r]; i < t.run_begin[r + 1]; ++i) {
          const auto& run = t.runs[i];
          if (first_row < 0) first_row = run.y;
          if ((run.y - first_row) % 2) continue;
          for (int x = run.x0; x <= run.x1; ++x) lo = std::min<int>(lo, grey(x, run.y)), hi = std::max<int>(hi, grey(x, run.y));
        }
        const double score = finger_score(t, r, g);
        if (hi - lo >= fp.contrast && score < s / 4) {
          fingers.push_back({g.x, g.y, g.width, g.height, g.angle, score, t.area[r], r});
          continue;
        }
      }
    }
    if (bp.max_size > 0 && size >= bp.min_size && size <= bp.max_size && diff < 2 * md && t.degree(r) <= 5) {
      const Blob b = region_blob(t, r);
      if (b.ok()) blobs.push_back(b);
    }
  }
}

Blob region_blob(const segment::RegionTree& t, int r) {
  const BlobGeometry g = blob_geometry(t, r);
  if (!g.ok) return {};
  return {g.x, g.y, g.width, g.height, g.angle, t.area[r], r};
}

}  // namespace gpuvis::decode

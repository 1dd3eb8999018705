// Fingers and blobs (spec §6.2, §7). Geometry follows the spec's construction (convex hull of the
// region, perimeter moments, principal axes, projected extents) without its quirks: box corners
// come from the projections directly, and sizes count whole pixels. The rules themselves are in
// blob_rules.hpp, shared with the CUDA stage.
#include "gpuvis/decode/blobs.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "decode/blob_rules.hpp"

namespace gpuvis::decode {
namespace {

// One region's runs as blob_rules reads them.
struct RegionRuns {
  const segment::Run* runs;
  const segment::Run& operator[](int i) const { return runs[i]; }
};

RegionRuns runs_of(const segment::RegionTree& t, int r, int& n) {
  n = t.run_begin[r + 1] - t.run_begin[r];
  return {t.runs.data() + t.run_begin[r]};
}

}  // namespace

BlobGeometry blob_geometry(const segment::RegionTree& t, int r) {
  int n = 0;
  const RegionRuns runs = runs_of(t, r, n);
  const int rows = t.bbox_height(r);
  std::vector<blob_rules::RowSpan> spans(static_cast<std::size_t>(rows));
  for (int i = 0; i < n; ++i) blob_rules::row_span_of_run(runs, n, i, t.top[r], spans.data());
  std::vector<blob_rules::Point> h(static_cast<std::size_t>(blob_rules::hull_room(rows)));
  return blob_rules::geometry(h.data(), blob_rules::hull(spans.data(), rows, t.top[r], h.data()));
}

double finger_score(const segment::RegionTree& t, int r, const BlobGeometry& g) {
  const blob_rules::ScoreFrame f = blob_rules::score_frame(t.area[r], g);
  if (f.rejected) return 1000;
  int n = 0;
  const RegionRuns runs = runs_of(t, r, n);
  double sum = 0;
  int count = 0;
  for (int i = 0; i < n; ++i)
    blob_rules::for_each_boundary_pixel(runs, n, i, [&](int x, int y) {
      sum += blob_rules::score_term(g, f, x, y);
      ++count;
    });
  return blob_rules::score_of(f, sum, count);
}

void find_fingers_and_blobs(const segment::RegionTree& t, HostView<const std::uint8_t> grey,
                            const std::vector<Fiducial>& fiducials, const FingerParams& fp, const BlobParams& bp,
                            std::vector<Finger>& fingers, std::vector<Blob>& blobs) {
  fingers.clear();
  blobs.clear();
  if (!finds_fingers_or_blobs(fp, bp)) return;
  // The roots of this frame's decoded symbols (valid or fuzzy): they and every region below them
  // belong to a symbol.
  std::vector<std::uint8_t> is_root(static_cast<std::size_t>(t.size()), 0);
  for (const auto& f : fiducials)
    if (f.root >= 0) is_root[static_cast<std::size_t>(f.root)] = 1;
  for (int r = 0; r < t.size(); ++r) {
    if (t.colour[r] != 255 || (t.flags[r] & segment::kBorder)) continue;
    const int w = t.bbox_width(r), h = t.bbox_height(r);
    blob_rules::Branches branch = blob_rules::branches(w, h, t.degree(r), fp, bp);
    if (!branch.finger && !branch.blob) continue;
    if (blob_rules::in_symbol(t.parent.data(), is_root.data(), r)) continue;
    if (branch.finger) {
      const int p = t.parent[r], g = p >= 0 ? t.parent[p] : -1;
      blob_rules::Enclosing e;
      if (p >= 0) {
        e.parent_colour = t.colour[p];
        e.parent_on_border = (t.flags[p] & segment::kBorder) != 0;
        e.parent_width = t.bbox_width(p), e.parent_height = t.bbox_height(p);
      }
      if (g >= 0) e.grandparent_colour = t.colour[g], e.grandparent_width = t.bbox_width(g), e.grandparent_height = t.bbox_height(g);
      if (blob_rules::inside_print(e, t.width, t.height, fp)) branch.finger = false;
      if (!branch.blob && !branch.finger) continue;
    }
    bool near_symbol = false;
    for (const auto& f : fiducials)
      near_symbol = near_symbol || blob_rules::near_symbol(t.centroid_x(r), t.centroid_y(r), f.x, f.y, f.root_size);
    if (near_symbol) continue;
    if (branch.finger) {
      const BlobGeometry g = blob_geometry(t, r);
      if (g.ok) {
        int n = 0, lo = 255, hi = 0;
        const RegionRuns runs = runs_of(t, r, n);
        for (int i = 0; i < n; ++i) blob_rules::contrast_of_run(runs, i, t.top[r], grey, lo, hi);
        const double score = finger_score(t, r, g);
        if (blob_rules::is_finger(score, hi - lo, fp)) {
          fingers.push_back({g.x, g.y, g.width, g.height, g.angle, score, t.area[r], r});
          continue;
        }
      }
    }
    if (branch.blob) {
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

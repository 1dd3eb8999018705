#include "gpuvis/decode/root_candidates.hpp"

#include <algorithm>

namespace gpuvis::decode {

void find_root_candidates(const segment::RegionTree& t, const std::vector<Fiducial>& fiducials, int min_size,
                          int max_size, std::vector<RootCandidate>& out, std::size_t limit) {
  out.clear();
  if (max_size <= 0 || min_size > max_size) return;
  // Regions next to a decoded root belong to that symbol (its leaves) or hold it (its background).
  thread_local std::vector<std::uint8_t> taken;
  taken.assign(static_cast<std::size_t>(t.size()), 0);
  for (const Fiducial& f : fiducials) {
    if (f.root < 0 || f.root >= t.size()) continue;
    taken[f.root] = 1;
    for (int k = t.adj_begin[f.root]; k < t.adj_begin[f.root + 1]; ++k) taken[t.adj[k]] = 1;
  }
  for (int r = 0; r < t.size() && out.size() < limit; ++r) {
    if (taken[r] || (t.flags[r] & (segment::kBorder | segment::kSaturated)) || t.degree(r) < 1) continue;
    const int w = t.bbox_width(r), h = t.bbox_height(r);
    const int size = std::max(w, h);
    if (size < min_size || size > max_size || std::abs(w - h) >= std::min(w, h)) continue;
    out.push_back({t.centroid_x(r), t.centroid_y(r), size, t.colour[r], r});
  }
}

}  // namespace gpuvis::decode

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
  // The filter is evaluated for every region without a branch (a noisy frame has tens of thousands
  // of regions, and a mispredicted test per region would cost more than the tests): the indices
  // that pass are written always and kept by advancing the count.
  thread_local std::vector<std::int32_t> pass;
  const int n = t.size();
  pass.resize(static_cast<std::size_t>(n) + 1);
  int m = 0;
  for (int r = 0; r < n; ++r) {
    const bool ok = qualifies_as_root(t.bbox_width(r), t.bbox_height(r), t.colour[r], t.flags[r], t.degree(r), taken[r] != 0, min_size, max_size);
    pass[m] = r;
    m += ok;
  }
  for (int k = 0; k < m && out.size() < limit; ++k) {
    const int r = pass[k];
    out.push_back({t.centroid_x(r), t.centroid_y(r), std::max(t.bbox_width(r), t.bbox_height(r)), t.colour[r], r});
  }
}

RootSizeBand band_after(const std::vector<Fiducial>& fiducials, RootSizeBand band) {
  int smallest = 0, largest = 0;
  for (const auto& f : fiducials)
    if (!f.fuzzy()) {
      smallest = smallest ? std::min(smallest, f.root_size) : f.root_size;
      largest = std::max(largest, f.root_size);
    }
  return largest == 0 ? band : next_root_band(smallest, largest);
}

void RootCandidateFinder::find(const segment::RegionTree& tree, const std::vector<Fiducial>& fiducials, std::vector<RootCandidate>& out) {
  find_root_candidates(tree, fiducials, band_.min_size, band_.max_size, out);
  band_ = band_after(fiducials, band_);
}

}  // namespace gpuvis::decode

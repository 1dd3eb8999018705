#include "gpuvis/decode/root_candidates.hpp"

#include <algorithm>

#include "gpuvis/core/parallel.hpp"

namespace gpuvis::decode {

void find_root_candidates(const segment::RegionTree& t, const std::vector<Fiducial>& fiducials, int min_size,
                          int max_size, std::vector<RootCandidate>& out, std::size_t limit) {
  out.clear();
  if (max_size <= 0 || min_size > max_size) return;
  // Regions next to a decoded root belong to that symbol (its leaves) or hold it (its background).
  thread_local std::vector<std::uint8_t> taken;
  parallel_assign(taken, static_cast<std::size_t>(t.size()), std::uint8_t{0});
  for (const Fiducial& f : fiducials) {
    if (f.root < 0 || f.root >= t.size()) continue;
    taken[f.root] = 1;
    for (int k = t.adj_begin[f.root]; k < t.adj_begin[f.root + 1]; ++k) taken[t.adj[k]] = 1;
  }
  // The filter is evaluated for every region without a branch (a noisy frame has tens of thousands
  // of regions, and a mispredicted test per region would cost more than the tests): the indices
  // that pass are written always and kept by advancing the count. In chunks of regions on the
  // pool's threads (a noisy 4K frame has 700 000), each into its own span, read in chunk order.
  thread_local std::vector<std::int32_t> pass, passed;
  const int n = t.size();
  constexpr int kChunk = 1 << 16;
  const int chunks = (n + kChunk - 1) / kChunk;
  pass.resize(static_cast<std::size_t>(chunks) * (kChunk + 1));  // a chunk's span has room for the write after its last
  const std::uint8_t* is_taken = taken.data();  // (inside the lambda, `taken` would name each worker's own)
  passed.assign(static_cast<std::size_t>(chunks), 0);
  std::int32_t* kept = pass.data();
  std::int32_t* counts = passed.data();
  parallel_for(0, chunks, 1, [&](std::ptrdiff_t c0, std::ptrdiff_t c1) {
    for (auto c = c0; c < c1; ++c) {
      const int r0 = static_cast<int>(c) * kChunk, r1 = std::min(n, r0 + kChunk);
      std::int32_t* span = kept + c * (kChunk + 1);
      int m = 0;
      for (int r = r0; r < r1; ++r) {
        const bool ok = qualifies_as_root(t.bbox_width(r), t.bbox_height(r), t.colour[r], t.flags[r], t.degree(r), is_taken[r] != 0, min_size, max_size);
        span[m] = r;
        m += ok;
      }
      counts[c] = m;
    }
  });
  for (int c = 0; c < chunks; ++c)
    for (int k = 0; k < counts[c] && out.size() < limit; ++k) {
      const int r = kept[static_cast<std::size_t>(c) * (kChunk + 1) + k];
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

// Stage 4 of the CPU segmenter (phases.hpp), the CUDA segmenter's finishing.cu on the host: the
// tree's arrays and parent forest, each region's runs, and the §3.3 adjacency lists with
// saturation (docs/segmentation.md). Branch-free passes, as in the earlier stages.
#include <algorithm>
#include <numeric>

#include "gpuvis/core/parallel.hpp"

#include "segment/cpu/phases.hpp"

namespace gpuvis::segment::cpu {
namespace {

void size_region_arrays(RegionTree& t, std::size_t nr) {
  t.colour.resize(nr);
  t.flags.resize(nr);
  t.area.resize(nr);
  t.left.resize(nr);
  t.top.resize(nr);
  t.right.resize(nr);
  t.bottom.resize(nr);
  t.sum_x.resize(nr);
  t.sum_y.resize(nr);
  t.first_x.resize(nr);
  t.first_y.resize(nr);
  t.parent.resize(nr);
  t.depth.resize(nr);
  parallel_assign(t.child_count, nr, 0);
  parallel_assign(t.descendant_count, nr, 0);
}

// One stable counting-sort pass of edges by one of their endpoints (key 0 = lo, 1 = hi), from
// `spans` (first, count) of `in` in order into out[0 ..).
struct EdgeSpan {
  int first, count;
};
void sort_edges_by(int key, int nregions, const Edge* in, const std::vector<EdgeSpan>& spans, Edge* out, std::vector<std::int32_t>& count) {
  count.assign(static_cast<std::size_t>(nregions) + 1, 0);
  for (const EdgeSpan& span : spans)
    for (int k = span.first; k < span.first + span.count; ++k) ++count[in[k][key] + 1];
  std::partial_sum(count.begin(), count.end(), count.begin());
  for (const EdgeSpan& span : spans)
    for (int k = span.first; k < span.first + span.count; ++k) out[count[in[k][key]]++] = in[k];
}

// Regions [r0, r1) of the tree's arrays and their parents (write_regions).
void fill_regions(const Scratch& s, RegionTree& t, int w, int h, std::ptrdiff_t r0, std::ptrdiff_t r1) {
  // (Raw pointers in locals: a store through the byte arrays may alias anything, so indexing the
  // vectors, or pointers held in memory, would reload every data pointer after each one.)
  const RawRun* runs = s.runs.data();
  const RegionAcc* acc = s.acc.data();
  const std::int32_t* first_runs = s.first_run.data();
  const std::int32_t* north = s.north.data();
  const std::int32_t* region_of = s.region_of.data();
  std::uint8_t* colour = t.colour.data();
  std::uint8_t* flags = t.flags.data();
  std::int32_t *area = t.area.data(), *left = t.left.data(), *right = t.right.data(), *top = t.top.data();
  std::int32_t *bottom = t.bottom.data(), *first_x = t.first_x.data(), *first_y = t.first_y.data(), *parent = t.parent.data();
  double *sum_x = t.sum_x.data(), *sum_y = t.sum_y.data();
  for (auto r = r0; r < r1; ++r) {
    const RegionAcc& a = acc[r];
    const int first_run = first_runs[r];
    const RawRun& first = runs[first_run];
    colour[r] = first.colour;
    area[r] = a.area;
    left[r] = a.left;
    right[r] = a.right;
    top[r] = first.y;
    bottom[r] = a.bottom;
    first_x[r] = first.x0;
    first_y[r] = first.y;
    sum_x[r] = 0.5 * static_cast<double>(a.sum_2x);  // exact below 2^53
    sum_y[r] = static_cast<double>(a.sum_y);
    const bool border = (a.left == 0) | (first.y == 0) | (a.right == w - 1) | (a.bottom == h - 1);
    flags[r] = border ? kBorder : 0;
    const int above = region_of[std::max(north[first_run], 0)];  // north is -1 in row 0
    parent[r] = border ? -1 : above;
  }
}

// A band's runs counted per region: its own regions' in run_count, foreign ones' in its table.
// (The band's bounds in locals: the int stores may alias them.)
void count_band_runs(RunBand& band, const std::int32_t* region_of, std::int32_t* run_count) {
  const int first = band.first, end = band.end, base = band.base;
  for (int r = first; r < end; ++r) {
    const int id = region_of[r];
    ++(id >= base ? run_count[id] : band.slot(id).runs);
  }
}

// A band's runs into the regions' lists: own regions' at cursor, foreign ones' at their table's offset.
void place_band_runs(RunBand& band, const std::int32_t* region_of, const RawRun* runs, std::int32_t* cursor, Run* out) {
  const int first = band.first, end = band.end, base = band.base;
  for (int r = first; r < end; ++r) {
    const int id = region_of[r];
    std::int32_t& at = id >= base ? cursor[id] : band.slot(id).offset;
    out[at++] = {runs[r].y, runs[r].x0, runs[r].x1};
  }
}

}  // namespace

// Stage 4, finishing (first part): the statistics into the tree's arrays, and the parent forest:
// the region above the first pixel, for regions off the border; in ranges of regions on the pool's
// threads. Parents come earlier in raster order, so one forward pass then gives depths and child
// counts, and a backward pass subtree sizes (branch-free: index 0 stands in for "no parent" and
// receives a zero).
void write_regions(int nregions, int w, int h, const Scratch& s, RegionTree& t) {
  size_region_arrays(t, static_cast<std::size_t>(nregions));
  parallel_for(0, nregions, 4096, [&](std::ptrdiff_t r0, std::ptrdiff_t r1) { fill_regions(s, t, w, h, r0, r1); });
  const std::int32_t* parent = t.parent.data();
  std::int32_t *depth = t.depth.data(), *children = t.child_count.data(), *descendants = t.descendant_count.data();
  for (int r = 0; r < nregions; ++r) {
    const int p = parent[r];
    const int q = std::max(p, 0);
    depth[r] = p < 0 ? 0 : depth[q] + 1;
    children[q] += p >= 0;
  }
  for (int r = nregions - 1; r >= 0; --r) {
    const int p = parent[r];
    descendants[std::max(p, 0)] += p >= 0 ? descendants[r] + 1 : 0;
  }
}

// Each region's runs (CSR) when asked for (else both arrays are left empty), in raster order within
// a region: each band writes its runs of its own regions from the region's start, and its runs of
// foreign regions after those of the bands before it.
void write_runs(int nregions, bool wanted, Scratch& s, RegionTree& t) {
  t.run_begin.clear();
  t.runs.clear();
  if (!wanted) return;
  const auto nr = static_cast<std::size_t>(nregions);
  const std::int32_t* region_of = s.region_of.data();
  if (s.bands.size() == 1) {  // one band (one thread): one counting sort, no tables
    const int nruns = static_cast<int>(s.runs.size());
    t.run_begin.assign(nr + 1, 0);
    for (int r = 0; r < nruns; ++r) ++t.run_begin[region_of[r] + 1];
    std::partial_sum(t.run_begin.begin(), t.run_begin.end(), t.run_begin.begin());
    t.runs.resize(static_cast<std::size_t>(nruns));
    s.fill.assign(t.run_begin.begin(), t.run_begin.end() - 1);
    for (int r = 0; r < nruns; ++r) t.runs[s.fill[region_of[r]]++] = {s.runs[r].y, s.runs[r].x0, s.runs[r].x1};
    return;
  }
  s.run_count.assign(nr, 0);
  std::int32_t* run_count = s.run_count.data();
  parallel_for(0, static_cast<std::ptrdiff_t>(s.bands.size()), 1, [&](std::ptrdiff_t b0, std::ptrdiff_t b1) {
    for (auto b = b0; b < b1; ++b) count_band_runs(s.bands[b], region_of, run_count);
  });
  t.run_begin.assign(nr + 1, 0);
  std::int32_t* begin = t.run_begin.data();
  for (std::size_t r = 0; r < nr; ++r) begin[r + 1] = s.run_count[r];
  for (const RunBand& band : s.bands)
    for (const ForeignRegion& f : band.foreign)
      if (f.id >= 0) begin[f.id + 1] += f.runs;
  std::partial_sum(t.run_begin.begin(), t.run_begin.end(), t.run_begin.begin());
  // Where each region's runs of later bands go: after its own band's, band after band.
  s.run_cursor.resize(nr);
  std::int32_t* cursor = s.run_cursor.data();
  for (std::size_t r = 0; r < nr; ++r) cursor[r] = begin[r] + s.run_count[r];
  for (RunBand& band : s.bands)
    for (ForeignRegion& f : band.foreign)
      if (f.id >= 0) f.offset = cursor[f.id], cursor[f.id] += f.runs;
  for (std::size_t r = 0; r < nr; ++r) cursor[r] = begin[r];
  t.runs.resize(s.runs.size());
  const RawRun* runs = s.runs.data();
  Run* out = t.runs.data();
  parallel_for(0, static_cast<std::ptrdiff_t>(s.bands.size()), 1, [&](std::ptrdiff_t b0, std::ptrdiff_t b1) {
    for (auto b = b0; b < b1; ++b) place_band_runs(s.bands[b], region_of, runs, cursor, out);
  });
}

// Distinct, ascending neighbour lists per region (§3.3) and saturation judged on the final regions.
// Each pair becomes an edge (lo, hi); two stable counting sorts (by hi, then by lo) put the edges in
// (lo, hi) order, where duplicates are adjacent and dropped. Filling the lists in that order makes
// every list ascending without sorting it: region v receives its smaller neighbours u from edges
// (u, v), in order of u, before any edge (v, w) gives it a larger neighbour w. A region with more
// than `cap` neighbours is saturated and keeps no list; its neighbours lose it and are marked
// fragmented. Every pass is over edges or regions with no per-region inner loop: on noise such a
// loop's exit is mispredicted for most regions.
void build_adjacency(int nregions, int npairs, int cap, Scratch& s, RegionTree& t) {
  if (s.bands.size() > 1 && npairs >= kLeastBandedPairs) return build_adjacency_in_bands(nregions, cap, s, t);
  Edge* pairs = s.pairs.data();
  std::vector<EdgeSpan> spans;
  for (const RunBand& band : s.bands) spans.push_back({band.first, band.npairs});
  for (const EdgeSpan& span : spans)
    for (int k = span.first; k < span.first + span.count; ++k) {
      const auto [a, b] = pairs[k];
      pairs[k] = {std::min(a, b), std::max(a, b)};
    }
  s.edges.resize(static_cast<std::size_t>(npairs));
  sort_edges_by(1, nregions, pairs, spans, s.edges.data(), s.count);
  sort_edges_by(0, nregions, s.edges.data(), {{0, npairs}}, pairs, s.count);
  const auto nr = static_cast<std::size_t>(nregions);
  s.degree.assign(nr, 0);
  int nedges = 0;
  Edge prev{-1, -1};
  for (int k = 0; k < npairs; ++k) {  // drop duplicates, count distinct neighbours
    const Edge e = pairs[k];
    pairs[nedges] = e;
    const bool fresh = e != prev;
    prev = e;
    s.degree[e[0]] += fresh;
    s.degree[e[1]] += fresh;
    nedges += fresh;
  }
  s.saturated.resize(nr);
  for (std::size_t r = 0; r < nr; ++r) s.saturated[r] = s.degree[r] > cap;
  // Edges between two unsaturated regions are kept; an edge to a saturated region fragments the other.
  s.degree.assign(nr, 0);
  std::int32_t* degree = s.degree.data();  // raw pointers: the byte stores below may alias anything
  const std::uint8_t* saturated = s.saturated.data();
  std::uint8_t* flags = t.flags.data();
  for (int k = 0; k < nedges; ++k) {
    const auto [lo, hi] = pairs[k];
    const std::uint8_t sl = saturated[lo], sh = saturated[hi];
    const bool keep = !(sl | sh);
    degree[lo] += keep;
    degree[hi] += keep;
    flags[lo] |= static_cast<std::uint8_t>((sh & ~sl) * kFragmented);
    flags[hi] |= static_cast<std::uint8_t>((sl & ~sh) * kFragmented);
  }
  t.adj_begin.resize(nr + 1);
  t.adj_begin[0] = 0;
  for (std::size_t r = 0; r < nr; ++r) {
    t.adj_begin[r + 1] = t.adj_begin[r] + s.degree[r];
    t.flags[r] |= static_cast<std::uint8_t>(s.saturated[r] * kSaturated);
  }
  const int nadj = t.adj_begin[nr];
  t.adj.resize(static_cast<std::size_t>(nadj) + 1);  // the last slot takes the writes of dropped edges
  s.fill.assign(t.adj_begin.begin(), t.adj_begin.end() - 1);
  std::int32_t* adj = t.adj.data();
  std::int32_t* fill = s.fill.data();
  for (int k = 0; k < nedges; ++k) {
    const auto [lo, hi] = pairs[k];
    const bool keep = !(saturated[lo] | saturated[hi]);
    adj[keep ? fill[lo] : nadj] = hi;
    fill[lo] += keep;
    adj[keep ? fill[hi] : nadj] = lo;
    fill[hi] += keep;
  }
  t.adj.resize(static_cast<std::size_t>(nadj));
}

}  // namespace gpuvis::segment::cpu

// Stages 2-3 of the CPU segmenter (phases.hpp), the CUDA segmenter's regions.cu on the host: region
// numbers, statistics and the §3.3 adjacency pairs, each band of runs (run_bands.hpp) on a thread of
// its own, in passes that each band makes at once: its roots counted; its own regions numbered and
// measured; its foreign regions' runs. The pairs come in another order than on one thread; the
// adjacency lists made of them (finishing.cpp) do not depend on it. Every pass is written without data-dependent branches where it can (conditional moves,
// "write always, advance by a bool"): on noise a branch on the pixels is mispredicted about every
// other run.
#include <algorithm>
#include <climits>

#include "gpuvis/core/parallel.hpp"
#include "segment/cpu/phases.hpp"

namespace gpuvis::segment::cpu {
namespace {

void add_run(RegionAcc& a, const RawRun& run) {
  const int len = run.x1 - run.x0 + 1;
  a.area += len;
  a.left = std::min(a.left, run.x0);
  a.right = std::max(a.right, run.x1);
  a.bottom = std::max(a.bottom, run.y);  // raster order within a band; bands merge by the largest
  a.sum_2x += std::int64_t{run.x0 + run.x1} * len;
  a.sum_y += std::int64_t{run.y} * len;
}

void merge(RegionAcc& into, const RegionAcc& part) {
  into.area += part.area;
  into.left = std::min(into.left, part.left);
  into.right = std::max(into.right, part.right);
  into.bottom = std::max(into.bottom, part.bottom);
  into.sum_2x += part.sum_2x;
  into.sum_y += part.sum_y;
}

// Each band's roots counted, and the bands' first region numbers from the counts: regions are
// numbered in raster order of first pixel (a component's root is its first run, so its number is
// its place among the roots).
void count_roots(Scratch& s) {
  if (s.bands.size() == 1) return;  // one band: its base is 0, and no other band needs its count
  const std::int32_t* uf = s.uf.data();
  parallel_for(0, static_cast<std::ptrdiff_t>(s.bands.size()), 1, [&](std::ptrdiff_t b0, std::ptrdiff_t b1) {
    for (auto b = b0; b < b1; ++b) {
      RunBand& band = s.bands[b];
      int roots = 0;
      for (int r = band.first; r < band.end; ++r) roots += uf[r] == r;
      band.roots = roots;
    }
  });
  int base = 0;
  for (RunBand& band : s.bands) band.base = base, base += band.roots;
}

// A band's runs of its own regions numbered and measured in one forward pass (a run's parent comes
// before it), with their adjacency pairs (row 0's neighbours along the row, and every run start whose
// north pixel has the other colour: at most one a run, written from pairs[band.first] on). A run
// whose set's root lies in an earlier band (its parent is there, or was itself such a run) is
// marked -1 and left for finish_band, as are the pairs of the band's first row and of runs
// whose north run is such a run: they are made once every band has numbered its roots.
// kOnly: the frame is one band (one thread), so nothing is foreign and nothing waits.
template <bool kOnly>
void measure_own(Scratch& s, RunBand& band, Edge* pairs, bool first_band) {
  const RawRun* runs = s.runs.data();
  const std::int32_t* uf = s.uf.data();
  const std::int32_t* north = s.north.data();
  std::int32_t* region_of = s.region_of.data();
  std::int32_t* first_run = s.first_run.data();
  RegionAcc* acc = s.acc.data();
  // (Locals: a store through region_of may alias the band's ints, which would be reloaded after each.)
  const int first = band.first, end = band.end;
  if (!kOnly && band.deferred.size() < static_cast<std::size_t>(end - first)) {  // grown, never shrunk: no zeroing per frame
    band.deferred.resize(static_cast<std::size_t>(end - first));
    band.pending.resize(static_cast<std::size_t>(end - first));
  }
  std::int32_t* deferred = band.deferred.data();
  std::int32_t* pending = band.pending.data();
  int next = band.base, npairs = 0, ndeferred = 0, npending = 0;
  std::int32_t unused = 0;
  RegionAcc spare{};  // where a foreign run's statistics go in this pass: finish_band measures it
  auto visit = [&](int r) {
    const int p = uf[r];
    const bool root = p == r;
    if constexpr (kOnly) {
      const int earlier = region_of[p];  // read unconditionally: a select, not a branch
      const int id = root ? next : earlier;
      region_of[r] = id;
      first_run[next] = r;  // kept only when r is the root: otherwise the region's root overwrites it
      next += root;
      add_run(acc[id], runs[r]);
      return id;
    } else {
      const int earlier = region_of[std::max(p, first)];
      const int id = root ? next : (p >= first ? earlier : -1);
      region_of[r] = id;
      *(root ? first_run + next : &unused) = r;
      next += root;
      deferred[ndeferred] = r;
      ndeferred += id < 0;
      add_run(id >= 0 ? acc[id] : spare, runs[r]);
      return id;
    }
  };
  const int row1 = s.row_begin[static_cast<std::size_t>(runs[first].y) + 1];
  int r = first;
  if (first_band) {  // row 0: every region is the band's own
    for (int prev = -1; r < row1; ++r) {
      const int id = visit(r);
      pairs[npairs] = {prev, id};
      npairs += r > 0;
      prev = id;
    }
  } else {
    for (; r < row1; ++r) {
      visit(r);
      pending[npending++] = r;  // its north run is in the band above
    }
  }
  for (; r < end; ++r) {
    const int id = visit(r);
    const int n = north[r];
    const int above = region_of[n];
    const bool differ = runs[n].colour != runs[r].colour;
    pairs[npairs] = {id, above};
    if constexpr (kOnly) {
      npairs += differ;
    } else {
      const bool known = (id | above) >= 0;
      npairs += differ & known;
      pending[npending] = r;
      npending += differ & !known;
    }
  }
  band.npairs = npairs;
  band.ndeferred = ndeferred;
  band.npending = npending;
}

// The band's runs of foreign regions, numbered through their roots and measured into the band's
// table, then the pairs measure_own left.
void finish_band(Scratch& s, RunBand& band, Edge* pairs) {
  const RawRun* runs = s.runs.data();
  const std::int32_t* uf = s.uf.data();
  const std::int32_t* north = s.north.data();
  std::int32_t* region_of = s.region_of.data();
  for (const std::int32_t* p = band.deferred.data(); p < band.deferred.data() + band.ndeferred; ++p) {
    const int r = *p;
    const int id = region_of[root_of(uf, r)];
    region_of[r] = id;
    add_run(band.slot(id).acc, runs[r]);
  }
  int npairs = band.npairs;
  const int first = band.first;
  for (const std::int32_t* p = band.pending.data(); p < band.pending.data() + band.npending; ++p) {
    const int r = *p;
    const int n = north[r];
    const int above = n >= first ? region_of[n] : region_of[root_of(uf, n)];  // the band above's may still be -1
    pairs[npairs] = {region_of[r], above};
    npairs += runs[n].colour != runs[r].colour;
  }
  band.npairs = npairs;
}

}  // namespace

void plan_bands(Scratch& s) {
  const int h = static_cast<int>(s.row_begin.size()) - 1;
  // Frames of fewer runs take one band: on the H200 machine's Xeon (docs/benchmarks/pipeline.md),
  // the bands' numbering was no faster than one thread's for a noisy 640x480 frame (109 000 runs)
  // and three times faster for a 4K one of 171 000.
  const bool many = s.runs.size() >= kLeastBandedRuns;
  const int count = many ? std::max(1, std::min(num_threads(), h / kLeastBandRows)) : 1;
  s.bands.resize(static_cast<std::size_t>(count));
  for (int b = 0; b < count; ++b) {
    RunBand& band = s.bands[b];
    const int y0 = static_cast<int>(std::int64_t{h} * b / count), y1 = static_cast<int>(std::int64_t{h} * (b + 1) / count);
    band.first = s.row_begin[y0];
    band.end = s.row_begin[y1];
    std::size_t capacity = 1;
    while (capacity < 2 * static_cast<std::size_t>(s.row_begin[y0 + 1] - s.row_begin[y0]) + 2) capacity *= 2;
    band.foreign.assign(b == 0 ? 1 : capacity, ForeignRegion{});
  }
}

// Stages 2-3, numbering and regions: region numbers, statistics and adjacency pairs, in the one-thread
// order whatever the bands. Returns the pair count.
int number_and_measure(int nregions, Scratch& s) {
  const auto nr = static_cast<std::size_t>(nregions);
  const auto nruns = s.runs.size();
  s.region_of.resize(nruns);
  parallel_assign(s.acc, nr, RegionAcc{0, INT_MAX, -1, 0, 0, 0});
  s.first_run.resize(nr + 1);
  s.pairs.resize(nruns);
  plan_bands(s);
  count_roots(s);
  const auto bands = static_cast<std::ptrdiff_t>(s.bands.size());
  auto each_band = [&](auto&& f) {
    parallel_for(0, bands, 1, [&](std::ptrdiff_t b0, std::ptrdiff_t b1) {
      for (auto b = b0; b < b1; ++b) f(s.bands[b], b == 0);
    });
  };
  // Each band's pairs from its first run's place on (at most one a run): build_adjacency reads them there.
  if (bands == 1) {
    measure_own<true>(s, s.bands[0], s.pairs.data(), true);
    return s.bands[0].npairs;
  }
  each_band([&](RunBand& band, bool first) { measure_own<false>(s, band, s.pairs.data() + band.first, first); });
  each_band([&](RunBand& band, bool) { finish_band(s, band, s.pairs.data() + band.first); });
  // The foreign parts into their regions.
  int npairs = 0;
  for (const RunBand& band : s.bands) {
    for (const ForeignRegion& f : band.foreign)
      if (f.id >= 0) merge(s.acc[f.id], f.acc);
    npairs += band.npairs;
  }
  return npairs;
}

}  // namespace gpuvis::segment::cpu

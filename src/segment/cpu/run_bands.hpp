#pragma once
// Bands of rows for the CPU segmenter's stages after labelling (regions.cpp, finishing.cpp), each
// band a contiguous range of runs that one of the pool's threads takes. A region is numbered in the
// band of its root (its first run); a region of an earlier band reaches into a band only through
// the band's first row (any path from there to its root crosses that row), so each band keeps a
// small table of those foreign regions' partial statistics, merged in band order after the pass:
// integer sums, minima and maxima, so the result is the one-thread result whatever the bands.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpuvis::segment::cpu {

// Per-region accumulators of the labelling pass, one 32-byte record per region (two per cache
// line): noisy frames touch regions in scattered order, and one record per touch moves far fewer
// cache lines than separate arrays do.
struct RegionAcc {
  std::int32_t area, left, right, bottom;
  std::int64_t sum_2x, sum_y;  // sum of 2x (a run adds (x0 + x1) * length) and of y: exact integers
};
static_assert(sizeof(RegionAcc) == 32);

// Bands of at least this many rows go to threads of their own (labels.cpp's bands too).
inline constexpr int kLeastBandRows = 48;
// Frames of fewer runs are finished as one band (regions.cpp, plan_bands).
inline constexpr std::size_t kLeastBandedRuns = 131072;
// Frames of fewer adjacency pairs get their lists on one thread (finishing.cpp, build_adjacency):
// on the same Xeon the lists of 53 000 pairs (a noisy 640x480 frame) and of 48 000 (a 4K one with
// 99 symbols) took longer on 16 threads than on one, those of 1.37 million (a noisy 4K frame) half.
inline constexpr int kLeastBandedPairs = 262144;

// A foreign region's partial statistics in one band.
struct ForeignRegion {
  std::int32_t id = -1;  // -1: an empty slot
  std::int32_t runs = 0;    // the band's runs of it (write_runs)
  std::int32_t offset = 0;  // where the next of them goes in the tree's run lists
  RegionAcc acc{};
};

struct RunBand {
  int first = 0, end = 0;  // runs [first, end)
  int base = 0, roots = 0;  // the band's own region numbers [base, base + roots)
  int npairs = 0;
  std::vector<std::int32_t> deferred;  // the band's runs of foreign regions, in order (the first ndeferred)
  std::vector<std::int32_t> pending;   // runs whose pair waits for those, and the first row's (npending)
  int ndeferred = 0, npending = 0;
  std::vector<ForeignRegion> foreign;  // open addressing by id; capacity a power of two
  // The slot of foreign region `id` (added if new). The table has room for every run of the band's
  // first row twice over, and only those regions are ever added.
  ForeignRegion& slot(std::int32_t id) {
    const std::size_t mask = foreign.size() - 1;
    std::size_t i = (static_cast<std::uint32_t>(id) * 2654435761u) & mask;
    while (foreign[i].id != id && foreign[i].id >= 0) i = (i + 1) & mask;
    ForeignRegion& f = foreign[i];
    if (f.id < 0) f = ForeignRegion{id, 0, 0, RegionAcc{0, INT32_MAX, -1, 0, 0, 0}};
    return f;
  }
};

// The root of run r's set, read only (the parents are final once labelling is done).
inline int root_of(const std::int32_t* uf, int r) {
  while (uf[r] != r) r = uf[r];
  return r;
}

}  // namespace gpuvis::segment::cpu

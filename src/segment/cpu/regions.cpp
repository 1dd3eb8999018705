// Stages 2-3 of the CPU segmenter (phases.hpp), the CUDA segmenter's regions.cu on the host. Every
// pass is written without data-dependent branches (conditional moves, "write always, advance by a
// bool"): on noise a branch on the pixels is mispredicted about every other run.
#include <climits>

#include "segment/cpu/phases.hpp"

namespace gpuvis::segment::cpu {
namespace {

// One forward pass over the runs: region numbers in raster order of first pixel (a component's
// root is its first run and every run's parent comes before it, so no find is needed), the
// statistics, and the §3.3 adjacency pairs (row 0 neighbours, and every run start whose north
// pixel has the other colour).
int label_and_measure(Scratch& s) {
  const int nruns = static_cast<int>(s.runs.size());
  const RawRun* runs = s.runs.data();
  const std::int32_t* uf = s.uf.data();
  const std::int32_t* north = s.north.data();
  std::int32_t* region_of = s.region_of.data();
  RegionAcc* acc = s.acc.data();
  std::int32_t* first_run = s.first_run.data();
  Edge* pairs = s.pairs.data();
  int next = 0, npairs = 0;
  auto visit = [&](int r) {
    const RawRun& run = runs[r];
    const int p = uf[r];
    const bool root = p == r;
    const int earlier = region_of[p];  // read unconditionally: a select, not a mispredicted branch
    const int id = root ? next : earlier;
    region_of[r] = id;
    first_run[next] = r;  // kept only when r is the root: otherwise the region's root overwrites it
    next += root;
    RegionAcc& a = acc[id];
    const int len = run.x1 - run.x0 + 1;
    a.area += len;
    a.left = std::min(a.left, run.x0);
    a.right = std::max(a.right, run.x1);
    a.bottom = run.y;  // raster order
    a.sum_2x += std::int64_t{run.x0 + run.x1} * len;
    a.sum_y += std::int64_t{run.y} * len;
    return id;
  };
  const int row1 = s.row_begin[1];
  for (int r = 0, prev = -1; r < row1; ++r) {
    const int id = visit(r);
    pairs[npairs] = {prev, id};
    npairs += r > 0;
    prev = id;
  }
  for (int r = row1; r < nruns; ++r) {
    const int id = visit(r);
    const int n = north[r];
    pairs[npairs] = {id, region_of[n]};
    npairs += runs[n].colour != runs[r].colour;
  }
  return npairs;
}

}  // namespace

// Stages 2-3, numbering and regions: region numbers, statistics and adjacency pairs in one pass.
// Returns the pair count.
int number_and_measure(int nregions, Scratch& s) {
  const auto nr = static_cast<std::size_t>(nregions);
  const auto nruns = s.runs.size();
  s.region_of.resize(nruns);
  s.acc.assign(nr, RegionAcc{0, INT_MAX, -1, 0, 0, 0});
  s.first_run.resize(nr + 1);
  s.pairs.resize(nruns);
  return label_and_measure(s);
}

}  // namespace gpuvis::segment::cpu

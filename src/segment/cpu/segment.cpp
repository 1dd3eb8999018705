// Run-based two-colour connected components with union-find, then region statistics, the §3.3
// adjacency pairs, saturation and the parent forest, all in flat arrays.
#include <algorithm>
#include <numeric>

#include "gpuvis/segment/region_tree.hpp"

namespace gpuvis::segment {
namespace {

struct RawRun {
  std::int32_t x0, x1;
  std::uint8_t colour;
};

int find(std::vector<std::int32_t>& p, int a) {
  while (p[a] != a) {
    p[a] = p[p[a]];
    a = p[a];
  }
  return a;
}

void unite(std::vector<std::int32_t>& p, int a, int b) {
  a = find(p, a);
  b = find(p, b);
  if (a == b) return;
  if (a < b) p[b] = a;  // the earlier run (raster order) stays the root
  else p[a] = b;
}

}  // namespace

void segment_cpu(HostView<const std::uint8_t> binary, int cap, RegionTree& t) {
  require(binary.channels == 1, "segment: the binary frame must have one channel");
  check_image_shape(binary.width, binary.height, 1);
  require(cap >= 1, "segment: adjacency cap must be at least 1");
  const int w = binary.width, h = binary.height;
  t.width = w;
  t.height = h;
  t.cap = cap;

  // 1. Runs per row.
  std::vector<RawRun> runs;
  std::vector<std::int32_t> row_begin(static_cast<std::size_t>(h) + 1);
  for (int y = 0; y < h; ++y) {
    row_begin[y] = static_cast<std::int32_t>(runs.size());
    const std::uint8_t* p = binary.row(y);
    int x = 0;
    while (x < w) {
      const bool white = p[x] != 0;
      int e = x + 1;
      while (e < w && (p[e] != 0) == white) ++e;
      runs.push_back({x, e - 1, static_cast<std::uint8_t>(white ? 255 : 0)});
      x = e;
    }
  }
  row_begin[h] = static_cast<std::int32_t>(runs.size());
  const int nruns = static_cast<int>(runs.size());

  // 2. Union same-colour runs that overlap in consecutive rows (4-connectivity).
  std::vector<std::int32_t> uf(static_cast<std::size_t>(nruns));
  std::iota(uf.begin(), uf.end(), 0);
  for (int y = 1; y < h; ++y) {
    int i = row_begin[y - 1], j = row_begin[y];
    const int ie = row_begin[y], je = row_begin[y + 1];
    while (i < ie && j < je) {
      if (runs[i].x1 >= runs[j].x0 && runs[j].x1 >= runs[i].x0 && runs[i].colour == runs[j].colour) unite(uf, i, j);
      if (runs[i].x1 < runs[j].x1) ++i;
      else ++j;
    }
  }

  // 3. Region ids in raster order of first pixel: a component's first run is its root's run.
  std::vector<std::int32_t> region_of(static_cast<std::size_t>(nruns));
  int nregions = 0;
  for (int r = 0; r < nruns; ++r) {
    const int root = find(uf, r);
    region_of[r] = root == r ? nregions++ : region_of[root];
  }

  auto resize = [&](auto& v, auto value) { v.assign(static_cast<std::size_t>(nregions), value); };
  resize(t.colour, std::uint8_t{0});
  resize(t.flags, std::uint8_t{0});
  resize(t.area, 0);
  resize(t.left, w);
  resize(t.top, h);
  resize(t.right, -1);
  resize(t.bottom, -1);
  resize(t.sum_x, 0.0);
  resize(t.sum_y, 0.0);
  resize(t.first_x, -1);
  resize(t.first_y, -1);
  resize(t.parent, -1);
  resize(t.child_count, 0);
  resize(t.descendant_count, 0);
  resize(t.depth, 0);

  // 4. Statistics and run lists.
  std::vector<std::int32_t> run_count(static_cast<std::size_t>(nregions) + 1, 0);
  for (int y = 0; y < h; ++y)
    for (int i = row_begin[y]; i < row_begin[y + 1]; ++i) {
      const RawRun& run = runs[i];
      const int r = region_of[i];
      const int len = run.x1 - run.x0 + 1;
      if (t.first_y[r] < 0) {
        t.first_x[r] = run.x0;
        t.first_y[r] = y;
        t.colour[r] = run.colour;
      }
      t.area[r] += len;
      t.sum_x[r] += 0.5 * (static_cast<double>(run.x0) + run.x1) * len;
      t.sum_y[r] += static_cast<double>(y) * len;
      t.left[r] = std::min(t.left[r], run.x0);
      t.right[r] = std::max(t.right[r], run.x1);
      t.top[r] = std::min(t.top[r], y);
      t.bottom[r] = std::max(t.bottom[r], y);
      if (y == 0 || y == h - 1 || run.x0 == 0 || run.x1 == w - 1) t.flags[r] |= kBorder;
      ++run_count[r + 1];
    }
  t.run_begin.assign(run_count.begin(), run_count.end());
  std::partial_sum(t.run_begin.begin(), t.run_begin.end(), t.run_begin.begin());
  t.runs.resize(static_cast<std::size_t>(nruns));
  {
    std::vector<std::int32_t> fill(t.run_begin.begin(), t.run_begin.end() - 1);
    for (int y = 0; y < h; ++y)
      for (int i = row_begin[y]; i < row_begin[y + 1]; ++i) t.runs[fill[region_of[i]]++] = {y, runs[i].x0, runs[i].x1};
  }

  // 5. Adjacency pairs (§3.3): row 0 neighbours, and every run start whose north pixel differs.
  std::vector<std::uint64_t> pairs;
  auto add_pair = [&](int a, int b) {
    if (a > b) std::swap(a, b);
    pairs.push_back(static_cast<std::uint64_t>(a) << 32 | static_cast<std::uint32_t>(b));
  };
  for (int i = row_begin[0] + 1; i < row_begin[1]; ++i) add_pair(region_of[i - 1], region_of[i]);
  for (int y = 1; y < h; ++y) {
    int j = row_begin[y - 1];
    for (int i = row_begin[y]; i < row_begin[y + 1]; ++i) {
      while (runs[j].x1 < runs[i].x0) ++j;  // the north run that covers this run's start pixel
      if (runs[j].colour != runs[i].colour) add_pair(region_of[i], region_of[j]);
    }
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());

  std::vector<std::int32_t> degree(static_cast<std::size_t>(nregions), 0);
  for (std::uint64_t p : pairs) {
    ++degree[p >> 32];
    ++degree[p & 0xffffffffu];
  }
  // 6. Saturation on final regions: more than cap neighbours drops all adjacencies; neighbours of
  //    a saturated region are fragmented and lose it.
  for (int r = 0; r < nregions; ++r)
    if (degree[r] > cap) t.flags[r] |= kSaturated;
  t.adj_begin.assign(static_cast<std::size_t>(nregions) + 1, 0);
  for (std::uint64_t p : pairs) {
    const int a = static_cast<int>(p >> 32), b = static_cast<int>(p & 0xffffffffu);
    const bool sa = t.flags[a] & kSaturated, sb = t.flags[b] & kSaturated;
    if (sa && !sb) t.flags[b] |= kFragmented;
    if (sb && !sa) t.flags[a] |= kFragmented;
    if (sa || sb) continue;
    ++t.adj_begin[a + 1];
    ++t.adj_begin[b + 1];
  }
  std::partial_sum(t.adj_begin.begin(), t.adj_begin.end(), t.adj_begin.begin());
  t.adj.resize(static_cast<std::size_t>(t.adj_begin[nregions]));
  {
    std::vector<std::int32_t> fill(t.adj_begin.begin(), t.adj_begin.end() - 1);
    for (std::uint64_t p : pairs) {  // pairs are sorted by (a, b): each list ends up ascending
      const int a = static_cast<int>(p >> 32), b = static_cast<int>(p & 0xffffffffu);
      if ((t.flags[a] | t.flags[b]) & kSaturated) continue;
      t.adj[fill[a]++] = b;
    }
    for (std::uint64_t p : pairs) {
      const int a = static_cast<int>(p >> 32), b = static_cast<int>(p & 0xffffffffu);
      if ((t.flags[a] | t.flags[b]) & kSaturated) continue;
      t.adj[fill[b]++] = a;
    }
    for (int r = 0; r < nregions; ++r) std::sort(t.adj.begin() + t.adj_begin[r], t.adj.begin() + t.adj_begin[r + 1]);
  }

  // 7. Parent forest: the region above the first pixel, for regions off the border. Parents come
  //    earlier in raster order, so one forward pass gives depths and a backward pass subtree sizes.
  std::vector<std::int32_t> prev_row_run(static_cast<std::size_t>(nregions), -1);
  for (int r = 0; r < nregions; ++r) {
    if ((t.flags[r] & kBorder) || t.first_y[r] == 0) continue;
    const int y = t.first_y[r] - 1, x = t.first_x[r];
    // binary search the run of row y that contains x
    int lo = row_begin[y], hi = row_begin[y + 1] - 1;
    while (lo < hi) {
      const int mid = (lo + hi + 1) / 2;
      if (runs[mid].x0 <= x) lo = mid;
      else hi = mid - 1;
    }
    t.parent[r] = region_of[lo];
  }
  for (int r = 0; r < nregions; ++r)
    if (t.parent[r] >= 0) {
      t.depth[r] = t.depth[t.parent[r]] + 1;
      ++t.child_count[t.parent[r]];
    }
  for (int r = nregions - 1; r >= 0; --r)
    if (t.parent[r] >= 0) t.descendant_count[t.parent[r]] += t.descendant_count[r] + 1;
}

}  // namespace gpuvis::segment

// Run-based two-colour connected components with union-find, then region statistics, the §3.3
// adjacency pairs, saturation and the parent forest, all in flat arrays.
#include <algorithm>
#include <bit>
#include <cstring>
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

  // 1. Runs per row, found from the byte changes of the 0/1-normalised row, eight pixels per word;
  // 2. each row's runs are united with the overlapping same-colour runs of the row above
  //    (4-connectivity) while the row is fresh in cache.
  std::vector<RawRun> runs;
  runs.reserve(static_cast<std::size_t>(h) * 8);
  std::vector<std::int32_t> row_begin(static_cast<std::size_t>(h) + 1);
  std::vector<std::int32_t> uf;
  uf.reserve(runs.capacity());
  std::vector<std::uint8_t> norm(static_cast<std::size_t>(w) + 16, 0);
  for (int y = 0; y < h; ++y) {
    row_begin[y] = static_cast<std::int32_t>(runs.size());
    const std::uint8_t* p = binary.row(y);
    std::uint8_t* q = norm.data() + 8;  // q[-1] and the tail are padding
    for (int x = 0; x < w; ++x) q[x] = p[x] != 0;
    q[-1] = q[0];        // no change at x = 0
    q[w] = q[w - 1] ^ 1; // forces a change at x = w
    int start = 0;
    for (int x = 1; x <= w; x += 8) {
      std::uint64_t cur, prev;
      std::memcpy(&cur, q + x, 8);
      std::memcpy(&prev, q + x - 1, 8);
      std::uint64_t d = cur ^ prev;
      while (d) {
        const int e = x + std::countr_zero(d) / 8;
        if (e > w) break;
        runs.push_back({start, e - 1, static_cast<std::uint8_t>(q[start] ? 255 : 0)});
        uf.push_back(static_cast<std::int32_t>(uf.size()));
        start = e;
        d &= d - 1;
      }
    }
    if (y > 0) {
      int i = row_begin[y - 1], j = row_begin[y];
      const int ie = row_begin[y], je = static_cast<int>(runs.size());
      while (i < ie && j < je) {
        if (runs[i].x1 >= runs[j].x0 && runs[j].x1 >= runs[i].x0 && runs[i].colour == runs[j].colour) unite(uf, i, j);
        if (runs[i].x1 < runs[j].x1) ++i;
        else ++j;
      }
    }
  }
  row_begin[h] = static_cast<std::int32_t>(runs.size());
  const int nruns = static_cast<int>(runs.size());

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
  //    Pairs go straight into per-region lists (both directions); duplicates are removed per list,
  //    which keeps the cost linear in the number of runs (no global sort).
  std::vector<std::int32_t> north(static_cast<std::size_t>(nruns), -1);  // run above each run's first pixel
  std::vector<std::int32_t> pa, pb;
  pa.reserve(static_cast<std::size_t>(nruns));
  pb.reserve(static_cast<std::size_t>(nruns));
  for (int i = row_begin[0] + 1; i < row_begin[1]; ++i) {
    pa.push_back(region_of[i - 1]);
    pb.push_back(region_of[i]);
  }
  for (int y = 1; y < h; ++y) {
    int j = row_begin[y - 1];
    for (int i = row_begin[y]; i < row_begin[y + 1]; ++i) {
      while (runs[j].x1 < runs[i].x0) ++j;  // the north run that covers this run's start pixel
      north[i] = j;
      if (runs[j].colour != runs[i].colour) {
        pa.push_back(region_of[i]);
        pb.push_back(region_of[j]);
      }
    }
  }
  std::vector<std::int32_t> begin(static_cast<std::size_t>(nregions) + 1, 0);
  for (std::size_t k = 0; k < pa.size(); ++k) {
    ++begin[pa[k] + 1];
    ++begin[pb[k] + 1];
  }
  std::partial_sum(begin.begin(), begin.end(), begin.begin());
  std::vector<std::int32_t> lists(static_cast<std::size_t>(begin[nregions]));
  {
    std::vector<std::int32_t> fill(begin.begin(), begin.end() - 1);
    for (std::size_t k = 0; k < pa.size(); ++k) {
      lists[fill[pa[k]]++] = pb[k];
      lists[fill[pb[k]]++] = pa[k];
    }
  }
  // Distinct neighbours per region, in linear time with a last-seen stamp per region. Counting
  // stops at cap + 1: such a region is saturated and its list is dropped anyway (big noisy
  // backgrounds touch thousands of specks).
  std::vector<std::int32_t> degree(static_cast<std::size_t>(nregions));
  std::vector<std::int32_t> stamp(static_cast<std::size_t>(nregions), -1);
  for (int r = 0; r < nregions; ++r) {
    std::int32_t* first = lists.data() + begin[r];
    std::int32_t* out = first;
    for (std::int32_t* o = first; o != lists.data() + begin[r + 1]; ++o) {
      if (stamp[*o] == r) continue;
      stamp[*o] = r;
      *out++ = *o;
      if (out - first > cap) break;
    }
    std::sort(first, out);  // at most cap + 1 entries
    degree[r] = static_cast<std::int32_t>(out - first);
  }
  // 6. Saturation on final regions: more than cap distinct neighbours drops all adjacencies;
  //    neighbours of a saturated region are fragmented and lose it.
  for (int r = 0; r < nregions; ++r)
    if (degree[r] > cap) t.flags[r] |= kSaturated;
  t.adj_begin.assign(static_cast<std::size_t>(nregions) + 1, 0);
  t.adj.clear();
  t.adj.reserve(lists.size());
  for (int r = 0; r < nregions; ++r) {
    if (!(t.flags[r] & kSaturated)) {
      for (int k = begin[r]; k < begin[r] + degree[r]; ++k) {
        const int o = lists[k];
        if (t.flags[o] & kSaturated) t.flags[r] |= kFragmented;
        else t.adj.push_back(o);
      }
    }
    t.adj_begin[r + 1] = static_cast<std::int32_t>(t.adj.size());
  }

  // 7. Parent forest: the region above the first pixel, for regions off the border. A region's
  //    first run is its union-find root run. Parents come earlier in raster order, so one forward
  //    pass gives depths and a backward pass subtree sizes.
  for (int i = 0; i < nruns; ++i) {
    const int r = region_of[i];
    if (uf[i] == i && !(t.flags[r] & kBorder) && north[i] >= 0) t.parent[r] = region_of[north[i]];
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

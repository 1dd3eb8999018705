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
  std::int32_t x0, x1, y;
  std::uint8_t colour;
};

int find(std::vector<std::int32_t>& p, int a) {
  while (p[a] != a) {
    p[a] = p[p[a]];
    a = p[a];
  }
  return a;
}


// Per-region accumulator, one cache line per region while the runs are scanned.
struct Acc {
  std::int32_t area = 0, left = 0, right = 0, top = 0, bottom = 0, runs = 0;
  double sx = 0, sy = 0;
  bool border = false;
};

// Per-thread scratch kept between frames: a fresh allocation of these buffers every frame costs
// page faults that, on noisy frames, take longer than the work itself.
struct Scratch {
  std::vector<RawRun> runs;
  std::vector<std::int32_t> uf, north, row_begin, region_of, root_run, begin, lists, fill, degree, stamp;
  std::vector<std::uint8_t> norm;
  std::vector<Acc> acc;
};

}  // namespace

void segment_cpu(HostView<const std::uint8_t> binary, int cap, RegionTree& t) {
  require(binary.channels == 1, "segment: the binary frame must have one channel");
  check_image_shape(binary.width, binary.height, 1);
  require(cap >= 1, "segment: adjacency cap must be at least 1");
  const int w = binary.width, h = binary.height;
  t.width = w;
  t.height = h;
  t.cap = cap;

  // 1. Runs per row, found from the byte changes of the 0/1-normalised row, eight pixels per word.
  // 2. While the row is in cache: each run's north run (the run above its first pixel) and the
  //    union with every overlapping same-colour run of the row above (4-connectivity).
  static thread_local Scratch scratch;
  auto& runs = scratch.runs;
  auto& uf = scratch.uf;
  auto& north = scratch.north;
  auto& row_begin = scratch.row_begin;
  auto& norm = scratch.norm;
  runs.clear();
  uf.clear();
  north.clear();
  row_begin.assign(static_cast<std::size_t>(h) + 1, 0);
  norm.assign(static_cast<std::size_t>(w) + 16, 0);
  for (int y = 0; y < h; ++y) {
    row_begin[y] = static_cast<std::int32_t>(runs.size());
    const std::uint8_t* p = binary.row(y);
    std::uint8_t* q = norm.data() + 8;  // q[-1] and the tail are padding
    for (int x = 0; x < w; ++x) q[x] = p[x] != 0;
    q[-1] = q[0];         // no change at x = 0
    q[w] = q[w - 1] ^ 1;  // forces a change at x = w
    int start = 0;
    for (int x = 1; x <= w; x += 8) {
      std::uint64_t cur, prev;
      std::memcpy(&cur, q + x, 8);
      std::memcpy(&prev, q + x - 1, 8);
      for (std::uint64_t d = cur ^ prev; d; d &= d - 1) {  // one set bit per changed byte
        const int e = x + std::countr_zero(d) / 8;
        if (e > w) break;
        runs.push_back({start, e - 1, y, static_cast<std::uint8_t>(q[start] ? 255 : 0)});
        start = e;
      }
    }
    const int je = static_cast<int>(runs.size());
    uf.resize(static_cast<std::size_t>(je));
    north.resize(static_cast<std::size_t>(je), -1);
    for (int j = row_begin[y]; j < je; ++j) uf[j] = j;
    if (y == 0) continue;
    int i = row_begin[y - 1];
    const int ie = row_begin[y];
    for (int j = row_begin[y]; j < je; ++j) {
      while (runs[i].x1 < runs[j].x0) ++i;
      north[j] = i;
      // Runs alternate in colour along a row, so the same-colour runs above are every other one
      // from the first or second overlapping run: no colour test, no mispredicted branch.
      int root = j;  // j's current root; j is new, so it starts as its own root
      for (int k = i + (runs[i].colour != runs[j].colour); k < ie && runs[k].x0 <= runs[j].x1; k += 2) {
        const int a = find(uf, k);
        if (a < root) {
          uf[root] = a;  // the earlier run (raster order) stays the root
          root = a;
        } else if (a > root) {
          uf[a] = root;
        }
      }
    }
  }
  row_begin[h] = static_cast<std::int32_t>(runs.size());
  const int nruns = static_cast<int>(runs.size());

  // 3. Region ids in raster order of first pixel: a component's first run is its root run.
  auto& region_of = scratch.region_of;
  auto& root_run = scratch.root_run;
  region_of.resize(static_cast<std::size_t>(nruns));
  root_run.clear();
  for (int r = 0; r < nruns; ++r) {
    const int root = find(uf, r);
    if (root == r) {
      region_of[r] = static_cast<std::int32_t>(root_run.size());
      root_run.push_back(r);
    } else {
      region_of[r] = region_of[root];
    }
  }
  const int nregions = static_cast<int>(root_run.size());

  // 4. Statistics, accumulated per region in one structure, then stored as arrays.
  auto& acc = scratch.acc;
  acc.assign(static_cast<std::size_t>(nregions), Acc{});
  for (int r = 0; r < nregions; ++r) {
    const RawRun& first = runs[root_run[r]];
    acc[r].left = first.x0;
    acc[r].right = first.x1;
    acc[r].top = acc[r].bottom = first.y;
  }
  for (int i = 0; i < nruns; ++i) {
    const RawRun& run = runs[i];
    Acc& a = acc[region_of[i]];
    const int len = run.x1 - run.x0 + 1;
    a.area += len;
    a.sx += 0.5 * (static_cast<double>(run.x0) + run.x1) * len;
    a.sy += static_cast<double>(run.y) * len;
    a.left = std::min(a.left, run.x0);
    a.right = std::max(a.right, run.x1);
    a.bottom = run.y;  // runs come in raster order
    a.border = a.border || run.y == 0 || run.y == h - 1 || run.x0 == 0 || run.x1 == w - 1;
    ++a.runs;
  }
  auto resize = [&](auto& v, auto value) { v.assign(static_cast<std::size_t>(nregions), value); };
  resize(t.colour, std::uint8_t{0});
  resize(t.flags, std::uint8_t{0});
  resize(t.area, 0);
  resize(t.left, 0);
  resize(t.top, 0);
  resize(t.right, 0);
  resize(t.bottom, 0);
  resize(t.sum_x, 0.0);
  resize(t.sum_y, 0.0);
  resize(t.first_x, 0);
  resize(t.first_y, 0);
  resize(t.parent, -1);
  resize(t.child_count, 0);
  resize(t.descendant_count, 0);
  resize(t.depth, 0);
  t.run_begin.assign(static_cast<std::size_t>(nregions) + 1, 0);
  for (int r = 0; r < nregions; ++r) {
    const Acc& a = acc[r];
    const RawRun& first = runs[root_run[r]];
    t.colour[r] = first.colour;
    t.flags[r] = a.border ? kBorder : 0;
    t.area[r] = a.area;
    t.left[r] = a.left;
    t.right[r] = a.right;
    t.top[r] = a.top;
    t.bottom[r] = a.bottom;
    t.sum_x[r] = a.sx;
    t.sum_y[r] = a.sy;
    t.first_x[r] = first.x0;
    t.first_y[r] = first.y;
    t.run_begin[r + 1] = t.run_begin[r] + a.runs;
  }
  t.runs.resize(static_cast<std::size_t>(nruns));
  auto& fill = scratch.fill;
  fill.assign(t.run_begin.begin(), t.run_begin.end() - 1);
  for (int i = 0; i < nruns; ++i) t.runs[fill[region_of[i]]++] = {runs[i].y, runs[i].x0, runs[i].x1};

  // 5. Adjacency pairs (§3.3): row 0 neighbours, and every run start whose north pixel differs.
  //    Pairs go straight into per-region lists (both directions); duplicates are removed per list,
  //    which keeps the cost linear in the number of runs (no global sort).
  auto& begin = scratch.begin;
  begin.assign(static_cast<std::size_t>(nregions) + 1, 0);
  auto for_each_pair = [&](auto&& f) {
    for (int i = row_begin[0] + 1; i < row_begin[1]; ++i) f(region_of[i - 1], region_of[i]);
    for (int i = row_begin[1]; i < nruns; ++i)
      if (runs[north[i]].colour != runs[i].colour) f(region_of[i], region_of[north[i]]);
  };
  for_each_pair([&](int a, int b) {
    ++begin[a + 1];
    ++begin[b + 1];
  });
  std::partial_sum(begin.begin(), begin.end(), begin.begin());
  auto& lists = scratch.lists;
  lists.resize(static_cast<std::size_t>(begin[nregions]));
  fill.assign(begin.begin(), begin.end() - 1);
  for_each_pair([&](int a, int b) {
    lists[fill[a]++] = b;
    lists[fill[b]++] = a;
  });
  // Distinct neighbours per region, in linear time with a last-seen stamp per region. Counting
  // stops at cap + 1: such a region is saturated and its list is dropped anyway (big noisy
  // backgrounds touch thousands of specks).
  auto& degree = scratch.degree;
  auto& stamp = scratch.stamp;
  degree.resize(static_cast<std::size_t>(nregions));
  stamp.assign(static_cast<std::size_t>(nregions), -1);
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

  // 7. Parent forest: the region above the first pixel, for regions off the border. Parents come
  //    earlier in raster order, so one forward pass gives depths and a backward pass subtree sizes.
  for (int r = 0; r < nregions; ++r)
    if (!(t.flags[r] & kBorder) && north[root_run[r]] >= 0) t.parent[r] = region_of[north[root_run[r]]];
  for (int r = 0; r < nregions; ++r)
    if (t.parent[r] >= 0) {
      t.depth[r] = t.depth[t.parent[r]] + 1;
      ++t.child_count[t.parent[r]];
    }
  for (int r = nregions - 1; r >= 0; --r)
    if (t.parent[r] >= 0) t.descendant_count[t.parent[r]] += t.descendant_count[r] + 1;
}

}  // namespace gpuvis::segment

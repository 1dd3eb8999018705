// Run-based two-colour connected components with union-find, then region statistics, the §3.3
// adjacency pairs, saturation and the parent forest, all in flat arrays (docs/segmentation.md).
//
// Why it looks the way it does: a noisy frame has a run every two or three pixels, with random
// colours and lengths, so a branch that depends on the pixels is mispredicted about every other
// run and costs more than the work it guards. Every pass after the union-find is therefore
// written without data-dependent branches (conditional moves, "write always, advance by a bool"),
// and the passes share one sequential walk over the runs wherever they can.
#include <algorithm>
#include <array>
#include <bit>
#include <climits>
#include <cstring>
#include <numeric>

#include "gpuvis/segment/region_tree.hpp"

namespace gpuvis::segment {
namespace {

struct RawRun {
  std::int32_t x0, x1, y;
  std::uint8_t colour;  // 0 or 255
};

// Per-thread scratch kept between frames: allocating these buffers every frame costs page faults
// that, on noisy frames, take longer than the work itself.
struct Scratch {
  std::vector<RawRun> runs;
  std::vector<std::int32_t> rid_a, rid_b, changes, uf, north, row_begin, region_of, root_run, begin, lists, fill, degree, stamp;
  std::vector<std::array<std::int32_t, 2>> pairs;
  std::vector<std::uint8_t> norm, saturated;
};

// Root of a's set, halving the path on the way. Parents always have smaller indices than their
// children, so the root of a component is its first run in raster order.
int find(std::int32_t* uf, int a) {
  while (uf[a] != a) {
    uf[a] = uf[uf[a]];
    a = uf[a];
  }
  return a;
}

// Appends the runs of one row and writes the row's run index per pixel (the run each pixel is in),
// which the next row's join reads. The row is normalised to 0/1 bytes first so that changes are
// found eight pixels at a time; within a word that changes, the change positions and run indices
// are written without a branch per pixel (a byte-wise prefix sum by multiplication).
static_assert(std::endian::native == std::endian::little, "the run finder reads pixels as little-endian words");

void find_row_runs(const std::uint8_t* pixels, int w, int y, Scratch& s) {
  std::uint8_t* q = s.norm.data() + 8;  // q[-1] and q[w..w+7] are padding
  for (int x = 0; x < w; ++x) q[x] = pixels[x] != 0;
  q[-1] = q[0];                                            // no change at x = 0
  std::memset(q + w, q[w - 1] ^ 1, 8);                     // exactly one change at x = w, none after
  std::int32_t* changes = s.changes.data();
  int n = 0;
  std::int32_t* rid = s.rid_b.data();
  std::int32_t base = static_cast<std::int32_t>(s.runs.size());
  rid[0] = base;
  for (int x = 1; x <= w; x += 8) {
    std::uint64_t cur, prev;
    std::memcpy(&cur, q + x, 8);
    std::memcpy(&prev, q + x - 1, 8);
    const std::uint64_t d = cur ^ prev;  // 0x01 in every byte where the pixel differs from its west
    if (d == 0) {
      std::fill(rid + x, rid + x + 8, base);
      continue;
    }
    const std::uint64_t prefix = d * 0x0101010101010101ull;  // byte b: changes in bytes 0..b
    for (int b = 0; b < 8; ++b) rid[x + b] = base + static_cast<std::int32_t>((prefix >> (8 * b)) & 0xff);
    base += static_cast<std::int32_t>(prefix >> 56);
    for (int b = 0; b < 8; ++b) {
      changes[n] = x + b;
      n += static_cast<int>((d >> (8 * b)) & 1);
    }
  }
  const std::size_t first = s.runs.size();
  s.runs.resize(first + static_cast<std::size_t>(n));
  RawRun* out = s.runs.data() + first;
  std::uint8_t colour = q[0] ? 255 : 0;
  for (int k = 0, x0 = 0; k < n; ++k) {
    out[k] = {x0, changes[k] - 1, y, colour};
    x0 = changes[k];
    colour = static_cast<std::uint8_t>(~colour);  // runs alternate in colour along a row
  }
}

// Unites every run of the current row [jb, je) with the same-colour runs of the row above that
// overlap it (4-connectivity), and records its north run (the run above its first pixel). The
// runs above that overlap run j are those from the one above its first pixel to the one above its
// last pixel, read from the row above's per-pixel run index; they alternate in colour, so the
// same-colour ones are every other one.
void join_rows(int jb, int je, Scratch& s) {
  const RawRun* runs = s.runs.data();
  std::int32_t* uf = s.uf.data();
  std::int32_t* north = s.north.data();
  const std::int32_t* above = s.rid_a.data();
  auto unite = [uf](int k, int root) {
    const int p1 = uf[k], p2 = uf[p1];
    const int ra = p1 == p2 ? p1 : find(uf, p2);  // k's root, usually one step away
    const int lo = std::min(ra, root), hi = std::max(ra, root);
    uf[hi] = lo;  // the earlier run (raster order) stays the root
    return lo;
  };
  for (int j = jb; j < je; ++j) {
    const RawRun& b = runs[j];
    const int i0 = above[b.x0], i1 = above[b.x1];
    north[j] = i0;
    const int k = i0 + (runs[i0].colour != b.colour);
    // The first same-colour run above, if any, without a branch (uniting j with itself is a no-op).
    int root = unite(k <= i1 ? k : j, j);
    for (int m = k + 2; m <= i1; m += 2) root = unite(m, root);
  }
}

void insertion_sort(std::int32_t* first, std::int32_t* last) {
  for (std::int32_t* p = first + 1; p < last; ++p) {
    const std::int32_t v = *p;
    std::int32_t* q = p;
    for (; q > first && q[-1] > v; --q) *q = q[-1];
    *q = v;
  }
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
  static thread_local Scratch scratch;
  Scratch& s = scratch;

  // 1-2. Runs row by row; each row is joined to the row above while both are in cache.
  s.runs.clear();
  s.row_begin.assign(static_cast<std::size_t>(h) + 1, 0);
  s.norm.assign(static_cast<std::size_t>(w) + 16, 0);
  s.changes.resize(static_cast<std::size_t>(w) + 8);
  s.rid_a.resize(static_cast<std::size_t>(w) + 8);
  s.rid_b.resize(static_cast<std::size_t>(w) + 8);
  for (int y = 0; y < h; ++y) {
    const int jb = static_cast<int>(s.runs.size());
    s.row_begin[y] = jb;
    find_row_runs(binary.row(y), w, y, s);
    const int je = static_cast<int>(s.runs.size());
    s.uf.resize(static_cast<std::size_t>(je));
    s.north.resize(static_cast<std::size_t>(je), -1);
    std::iota(s.uf.begin() + jb, s.uf.end(), jb);
    if (y > 0) join_rows(jb, je, s);
    std::swap(s.rid_a, s.rid_b);
  }
  s.row_begin[h] = static_cast<std::int32_t>(s.runs.size());
  const int nruns = static_cast<int>(s.runs.size());
  const RawRun* runs = s.runs.data();

  // 3. Region numbers in raster order of first pixel: a component's root is its first run, and
  //    every run's parent comes before it, so one forward pass labels all runs without a find.
  int nregions = 0;
  for (int r = 0; r < nruns; ++r) nregions += s.uf[r] == r;
  s.region_of.resize(static_cast<std::size_t>(nruns));
  s.root_run.resize(static_cast<std::size_t>(nregions) + 1);
  for (int r = 0, next = 0; r < nruns; ++r) {
    const int p = s.uf[r];
    const bool root = p == r;
    s.region_of[r] = root ? next : s.region_of[p];
    s.root_run[next] = r;
    next += root;
  }

  // 4. Statistics, accumulated straight into the tree's arrays (consecutive regions share cache
  //    lines, so this costs no more than a per-region struct and saves copying it out).
  const auto nr = static_cast<std::size_t>(nregions);
  t.area.assign(nr, 0);
  t.left.assign(nr, INT_MAX);
  t.right.assign(nr, -1);
  t.top.resize(nr);  // the first run's row
  t.bottom.resize(nr);
  t.sum_x.assign(nr, 0.0);  // sum of 2x while accumulating: a run adds (x0 + x1) * length
  t.sum_y.assign(nr, 0.0);
  t.run_begin.assign(nr + 1, 0);  // run counts at [r + 1] while accumulating
  for (int r = 0; r < nruns; ++r) {
    const RawRun& run = runs[r];
    const int id = s.region_of[r];
    const int len = run.x1 - run.x0 + 1;
    t.area[id] += len;
    t.left[id] = std::min(t.left[id], run.x0);
    t.right[id] = std::max(t.right[id], run.x1);
    t.bottom[id] = run.y;  // raster order
    ++t.run_begin[id + 1];
    t.sum_x[id] += static_cast<double>(std::int64_t{run.x0 + run.x1} * len);  // integers: exact below 2^53
    t.sum_y[id] += static_cast<double>(std::int64_t{run.y} * len);
  }
  t.colour.resize(nr);
  t.flags.resize(nr);
  t.first_x.resize(nr);
  t.first_y.resize(nr);
  t.parent.assign(nr, -1);
  t.child_count.assign(nr, 0);
  t.descendant_count.assign(nr, 0);
  t.depth.assign(nr, 0);
  for (int r = 0; r < nregions; ++r) {
    const RawRun& first = runs[s.root_run[r]];
    t.colour[r] = first.colour;
    t.first_x[r] = first.x0;
    t.first_y[r] = first.y;
    t.top[r] = first.y;
    t.flags[r] = (t.left[r] == 0 || t.top[r] == 0 || t.right[r] == w - 1 || t.bottom[r] == h - 1) ? kBorder : 0;
    t.sum_x[r] *= 0.5;
    t.run_begin[r + 1] += t.run_begin[r];
  }
  t.runs.resize(static_cast<std::size_t>(nruns));
  s.fill.assign(t.run_begin.begin(), t.run_begin.end() - 1);
  for (int r = 0; r < nruns; ++r) t.runs[s.fill[s.region_of[r]]++] = {runs[r].y, runs[r].x0, runs[r].x1};

  // 5. Adjacency pairs (§3.3): row 0 neighbours, and every run start whose north pixel has the
  //    other colour. They go into per-region lists (both directions) by counting sort; duplicates
  //    are removed per list, which keeps the cost linear in the number of runs (no global sort).
  s.pairs.resize(static_cast<std::size_t>(nruns));
  int npairs = 0;
  for (int r = s.row_begin[0] + 1; r < s.row_begin[1]; ++r) s.pairs[npairs++] = {s.region_of[r - 1], s.region_of[r]};
  for (int r = s.row_begin[1]; r < nruns; ++r) {
    const int n = s.north[r];
    s.pairs[npairs] = {s.region_of[r], s.region_of[n]};
    npairs += runs[n].colour != runs[r].colour;
  }
  s.begin.assign(static_cast<std::size_t>(nregions) + 1, 0);
  for (int k = 0; k < npairs; ++k) {
    ++s.begin[s.pairs[k][0] + 1];
    ++s.begin[s.pairs[k][1] + 1];
  }
  std::partial_sum(s.begin.begin(), s.begin.end(), s.begin.begin());
  s.lists.resize(static_cast<std::size_t>(s.begin[nregions]));
  s.fill.assign(s.begin.begin(), s.begin.end() - 1);
  for (int k = 0; k < npairs; ++k) {
    const auto [a, b] = s.pairs[k];
    s.lists[s.fill[a]++] = b;
    s.lists[s.fill[b]++] = a;
  }
  // Distinct neighbours per region, in linear time with a last-seen stamp per region. Counting
  // stops at cap + 1: such a region is saturated and its list is dropped anyway (big noisy
  // backgrounds touch thousands of specks).
  s.degree.resize(static_cast<std::size_t>(nregions));
  s.stamp.assign(static_cast<std::size_t>(nregions), -1);
  s.saturated.resize(static_cast<std::size_t>(nregions));
  for (int r = 0; r < nregions; ++r) {
    std::int32_t* first = s.lists.data() + s.begin[r];
    std::int32_t* const last = s.lists.data() + s.begin[r + 1];
    std::int32_t* out = first;
    for (const std::int32_t* o = first; o != last && out - first <= cap; ++o) {
      const std::int32_t v = *o;
      *out = v;
      out += s.stamp[v] != r;
      s.stamp[v] = r;
    }
    insertion_sort(first, out);  // at most cap + 1 entries
    s.degree[r] = static_cast<std::int32_t>(out - first);
    s.saturated[r] = s.degree[r] > cap;
  }
  // 6. Saturation on final regions: more than cap distinct neighbours drops all adjacencies;
  //    neighbours of a saturated region are fragmented and lose it.
  t.adj_begin.resize(static_cast<std::size_t>(nregions) + 1);
  t.adj_begin[0] = 0;
  t.adj.resize(s.lists.size());
  int nadj = 0;
  for (int r = 0; r < nregions; ++r) {
    if (s.saturated[r]) {
      t.flags[r] |= kSaturated;
    } else {
      bool fragmented = false;
      for (int k = s.begin[r]; k < s.begin[r] + s.degree[r]; ++k) {
        const int o = s.lists[k];
        t.adj[nadj] = o;
        nadj += !s.saturated[o];
        fragmented |= s.saturated[o] != 0;
      }
      t.flags[r] |= fragmented ? kFragmented : 0;
    }
    t.adj_begin[r + 1] = nadj;
  }
  t.adj.resize(static_cast<std::size_t>(nadj));

  // 7. Parent forest: the region above the first pixel, for regions off the border. Parents come
  //    earlier in raster order, so one forward pass gives depths and a backward pass subtree sizes.
  for (int r = 0; r < nregions; ++r)
    if (!(t.flags[r] & kBorder)) t.parent[r] = s.region_of[s.north[s.root_run[r]]];
  for (int r = 0; r < nregions; ++r)
    if (t.parent[r] >= 0) {
      t.depth[r] = t.depth[t.parent[r]] + 1;
      ++t.child_count[t.parent[r]];
    }
  for (int r = nregions - 1; r >= 0; --r)
    if (t.parent[r] >= 0) t.descendant_count[t.parent[r]] += t.descendant_count[r] + 1;
}

}  // namespace gpuvis::segment

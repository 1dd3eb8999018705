// Run-based two-colour connected components with union-find, then region statistics, the §3.3
// adjacency pairs, saturation and the parent forest, all in flat arrays (docs/segmentation.md).
//
// Why it looks the way it does: a noisy frame has a run every two or three pixels, with random
// colours and lengths, so a branch that depends on the pixels is mispredicted about every other
// run and costs more than the work it guards. Every pass after the union-find is therefore
// written without data-dependent branches (conditional moves, "write always, advance by a bool"),
// and the passes share one sequential walk over the runs wherever they can.
//
// The stages are the CUDA segmenter's (segment_cuda.hpp): labels (label_runs), numbering and
// regions (number_and_measure), finishing (write_regions, write_runs, build_adjacency).
#include <algorithm>
#include <array>
#include <bit>
#include <climits>
#include <cstring>
#include <numeric>

#include "gpuvis/core/parallel.hpp"
#include "gpuvis/segment/region_tree.hpp"
#include "segment/cpu/segment.hpp"

namespace gpuvis::segment {
namespace {

struct RawRun {
  std::int32_t x0, x1, y;
  std::uint8_t colour;  // 0 or 255
};

// An adjacency pair of regions (a pair of two different regions, so never a self-pair).
using Edge = std::array<std::int32_t, 2>;

// Per-region accumulators of the labelling pass, one 32-byte record per region (two per cache
// line): noisy frames touch regions in scattered order, and one record per touch moves far fewer
// cache lines than separate arrays do.
struct RegionAcc {
  std::int32_t area, left, right, bottom;
  std::int64_t sum_2x, sum_y;  // sum of 2x (a run adds (x0 + x1) * length) and of y: exact integers
};
static_assert(sizeof(RegionAcc) == 32);

// Per-thread scratch kept between frames: allocating these buffers every frame costs page faults
// that, on noisy frames, take longer than the work itself.
struct Scratch {
  std::vector<RawRun> runs;
  std::vector<std::int32_t> rid_a, rid_b, changes, uf, north, row_begin, region_of, first_run, count, fill, degree;
  std::vector<Edge> pairs, edges;
  std::vector<std::uint8_t> norm, saturated;
  std::vector<RegionAcc> acc;
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
    std::uint8_t counts[8];
    std::memcpy(counts, &prefix, 8);
    for (int b = 0; b < 8; ++b) rid[x + b] = base + counts[b];  // widened and added as vectors
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
// same-colour ones are every other one. kFresh: the runs [jb, je) are still alone in their sets (a
// row just found); otherwise (a band's first row, joined after its band was labelled) each may
// already belong to a set rooted elsewhere.
template <bool kFresh>
int join_rows(int jb, int je, Scratch& s) {
  const RawRun* runs = s.runs.data();
  std::int32_t* uf = s.uf.data();
  std::int32_t* north = s.north.data();
  const std::int32_t* above = s.rid_a.data();
  int merges = 0;
  auto unite = [uf, &merges](int k, int root) {
    const int p1 = uf[k], p2 = uf[p1];
    const int ra = p1 == p2 ? p1 : find(uf, p2);  // k's root, usually one step away
    const int lo = std::min(ra, root), hi = std::max(ra, root);
    uf[hi] = lo;  // the earlier run (raster order) stays the root
    merges += lo != hi;
    return lo;
  };
  for (int j = jb; j < je; ++j) {
    const RawRun& b = runs[j];
    const int i0 = above[b.x0], i1 = above[b.x1];
    north[j] = i0;
    const int k = i0 + (runs[i0].colour != b.colour);
    // The first same-colour run above, if any, without a branch (uniting j with itself is a no-op).
    int root = unite(k <= i1 ? k : j, kFresh ? j : find(uf, j));
    for (int m = k + 2; m <= i1; m += 2) root = unite(m, root);
  }
  return merges;
}

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

// One stable counting-sort pass of edges by one of their endpoints (key 0 = lo, 1 = hi).
void sort_edges_by(int key, int nregions, const Edge* in, int n, Edge* out, std::vector<std::int32_t>& count) {
  count.assign(static_cast<std::size_t>(nregions) + 1, 0);
  for (int k = 0; k < n; ++k) ++count[in[k][key] + 1];
  std::partial_sum(count.begin(), count.end(), count.begin());
  for (int k = 0; k < n; ++k) out[count[in[k][key]]++] = in[k];
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
  Edge* pairs = s.pairs.data();
  for (int k = 0; k < npairs; ++k) {
    const auto [a, b] = pairs[k];
    pairs[k] = {std::min(a, b), std::max(a, b)};
  }
  s.edges.resize(static_cast<std::size_t>(npairs));
  sort_edges_by(1, nregions, pairs, npairs, s.edges.data(), s.count);
  sort_edges_by(0, nregions, s.edges.data(), npairs, pairs, s.count);
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

// Rows y0..y1 of the frame into s's runs, row by row, each row joined to the row above while both
// are in cache (the first row of the range to none): run indices from 0, row_begin by row of the
// range, and the last row's run index per pixel left in s.rid_a. Every union of two different sets
// removes one region. Returns the unions.
int label_rows(HostView<const std::uint8_t> binary, int y0, int y1, Scratch& s) {
  const int w = binary.width;
  s.runs.clear();
  s.uf.clear();
  s.north.clear();
  s.row_begin.assign(static_cast<std::size_t>(y1 - y0) + 1, 0);
  s.norm.assign(static_cast<std::size_t>(w) + 16, 0);
  s.changes.resize(static_cast<std::size_t>(w) + 8);
  s.rid_a.resize(static_cast<std::size_t>(w) + 8);
  s.rid_b.resize(static_cast<std::size_t>(w) + 8);
  int merges = 0;
  for (int y = y0; y < y1; ++y) {
    const int jb = static_cast<int>(s.runs.size());
    s.row_begin[y - y0] = jb;
    find_row_runs(binary.row(y), w, y, s);
    const int je = static_cast<int>(s.runs.size());
    s.uf.resize(static_cast<std::size_t>(je));
    s.north.resize(static_cast<std::size_t>(je), -1);
    std::iota(s.uf.begin() + jb, s.uf.end(), jb);
    if (y > y0) merges += join_rows<true>(jb, je, s);
    std::swap(s.rid_a, s.rid_b);
  }
  s.row_begin[y1 - y0] = static_cast<std::int32_t>(s.runs.size());
  return merges;
}

// Bands of at least this many rows are labelled on threads of their own; below it the joins at
// their borders and the copies cost more than the labelling saves.
constexpr int kLeastBandRows = 48;

// Stage 1, labels (the CUDA segmenter's labels.cu). On several threads the frame is cut into bands
// of rows, each labelled on its own (label_rows); their runs are laid end to end in raster order,
// each band's union-find parents moved by its first run's index, and each band's first row is then
// joined to the row above it. Unions keep the earlier run (raster order) as the root whatever the
// order they are made in, so the components, their roots and everything numbered from them are
// those of one thread. Returns the region count.
int label_runs(HostView<const std::uint8_t> binary, Scratch& s) {
  const int w = binary.width, h = binary.height;
  const int bands = std::min(num_threads(), h / kLeastBandRows);
  if (bands <= 1) {
    const int merges = label_rows(binary, 0, h, s);
    return static_cast<int>(s.runs.size()) - merges;
  }
  // The calling thread's band scratch, named by a reference: inside the lambdas, which run on the
  // pool's threads, the thread_local's own name would be each worker's (empty) copy.
  static thread_local std::vector<Scratch> kept;
  static thread_local std::vector<std::int32_t> kept_merges, kept_offset;  // kept: no allocation per frame
  std::vector<Scratch>& band_scratch = kept;
  std::vector<std::int32_t>& merges = kept_merges;
  band_scratch.resize(static_cast<std::size_t>(bands));
  merges.assign(static_cast<std::size_t>(bands), 0);
  auto band_rows = [&](int b) { return std::pair{static_cast<int>(std::int64_t{h} * b / bands), static_cast<int>(std::int64_t{h} * (b + 1) / bands)}; };
  parallel_for(0, bands, 1, [&](std::ptrdiff_t b0, std::ptrdiff_t b1) {
    for (auto b = b0; b < b1; ++b) {
      const auto [y0, y1] = band_rows(static_cast<int>(b));
      merges[b] = label_rows(binary, y0, y1, band_scratch[b]);
    }
  });
  std::vector<std::int32_t>& offset = kept_offset;
  offset.assign(static_cast<std::size_t>(bands) + 1, 0);
  for (int b = 0; b < bands; ++b) offset[b + 1] = offset[b] + static_cast<std::int32_t>(band_scratch[b].runs.size());
  const auto total = static_cast<std::size_t>(offset[bands]);
  s.runs.resize(total);
  s.uf.resize(total);
  s.north.resize(total);
  s.row_begin.assign(static_cast<std::size_t>(h) + 1, 0);
  parallel_for(0, bands, 1, [&](std::ptrdiff_t b0, std::ptrdiff_t b1) {
    for (auto b = b0; b < b1; ++b) {
      const Scratch& band = band_scratch[b];
      const std::int32_t off = offset[b];
      const auto [y0, y1] = band_rows(static_cast<int>(b));
      std::copy(band.runs.begin(), band.runs.end(), s.runs.begin() + off);
      for (std::size_t i = 0; i < band.uf.size(); ++i) {
        s.uf[off + i] = band.uf[i] + off;
        s.north[off + i] = band.north[i] < 0 ? -1 : band.north[i] + off;
      }
      for (int y = y0; y < y1; ++y) s.row_begin[y] = band.row_begin[y - y0] + off;
    }
  });
  s.row_begin[h] = static_cast<std::int32_t>(total);
  int unions = 0;
  for (int b = 0; b < bands; ++b) unions += merges[b];
  s.rid_a.resize(static_cast<std::size_t>(w) + 8);
  for (int b = 1; b < bands; ++b) {
    const Scratch& above = band_scratch[b - 1];
    for (int x = 0; x < w; ++x) s.rid_a[x] = above.rid_a[x] + offset[b - 1];
    const int jb = offset[b], je = offset[b] + band_scratch[b].row_begin[1];
    unions += join_rows<false>(jb, je, s);
  }
  return static_cast<int>(total) - unions;
}

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
  t.child_count.assign(nr, 0);
  t.descendant_count.assign(nr, 0);
}

// Stage 4, finishing (first part): the statistics into the tree's arrays, and the parent forest:
// the region above the first pixel, for regions off the border. Parents come earlier in raster
// order, so the same forward pass gives depths and child counts, and a backward pass subtree sizes
// (branch-free: index 0 stands in for "no parent" and receives a zero).
void write_regions(int nregions, int w, int h, const Scratch& s, RegionTree& t) {
  size_region_arrays(t, static_cast<std::size_t>(nregions));
  // (Raw pointers: a store through the byte arrays may alias anything, so indexing the vectors
  // would reload every vector's data pointer after each one.)
  const RawRun* runs = s.runs.data();
  const RegionAcc* acc = s.acc.data();
  const std::int32_t* first_runs = s.first_run.data();
  const std::int32_t* north = s.north.data();
  const std::int32_t* region_of = s.region_of.data();
  std::uint8_t* colour = t.colour.data();
  std::uint8_t* flags = t.flags.data();
  std::int32_t *area = t.area.data(), *left = t.left.data(), *right = t.right.data(), *top = t.top.data();
  std::int32_t *bottom = t.bottom.data(), *first_x = t.first_x.data(), *first_y = t.first_y.data();
  std::int32_t *parent = t.parent.data(), *depth = t.depth.data(), *children = t.child_count.data();
  std::int32_t* descendants = t.descendant_count.data();
  double *sum_x = t.sum_x.data(), *sum_y = t.sum_y.data();
  for (int r = 0; r < nregions; ++r) {
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
    const int p = border ? -1 : above;
    const int q = std::max(p, 0);
    parent[r] = p;
    depth[r] = border ? 0 : depth[q] + 1;
    children[q] += !border;
  }
  for (int r = nregions - 1; r >= 0; --r) {
    const int p = parent[r];
    descendants[std::max(p, 0)] += p >= 0 ? descendants[r] + 1 : 0;
  }
}

// Each region's runs (CSR) by counting sort, when asked for (else both arrays are left empty).
void write_runs(int nregions, bool wanted, Scratch& s, RegionTree& t) {
  t.run_begin.clear();
  t.runs.clear();
  if (!wanted) return;
  const int nruns = static_cast<int>(s.runs.size());
  t.run_begin.assign(static_cast<std::size_t>(nregions) + 1, 0);
  for (int r = 0; r < nruns; ++r) ++t.run_begin[s.region_of[r] + 1];
  std::partial_sum(t.run_begin.begin(), t.run_begin.end(), t.run_begin.begin());
  t.runs.resize(static_cast<std::size_t>(nruns));
  s.fill.assign(t.run_begin.begin(), t.run_begin.end() - 1);
  for (int r = 0; r < nruns; ++r) t.runs[s.fill[s.region_of[r]]++] = {s.runs[r].y, s.runs[r].x0, s.runs[r].x1};
}

}  // namespace

void segment_cpu(HostView<const std::uint8_t> binary, int cap, RegionTree& t, SegmentParams options) {
  require(binary.channels == 1, "segment: the binary frame must have one channel");
  check_image_shape(binary.width, binary.height, 1);
  require(cap >= 1, "segment: adjacency cap must be at least 1");
  t.width = binary.width;
  t.height = binary.height;
  t.cap = cap;
  static thread_local Scratch scratch;
  Scratch& s = scratch;
  const int nregions = label_runs(binary, s);
  const int npairs = number_and_measure(nregions, s);
  write_regions(nregions, binary.width, binary.height, s, t);
  write_runs(nregions, options.runs, s, t);
  build_adjacency(nregions, npairs, cap, s, t);  // finishing: adjacency lists and saturation
}

}  // namespace gpuvis::segment

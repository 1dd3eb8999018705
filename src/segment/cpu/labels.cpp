// Stage 1 of the CPU segmenter (phases.hpp), the CUDA segmenter's labels.cu on the host: the runs of
// every row and union-find over them, with 4-connectivity between rows.
//
// Why it looks the way it does: a noisy frame has a run every two or three pixels, with random
// colours and lengths, so a branch that depends on the pixels is mispredicted about every other
// run and costs more than the work it guards; runs are found eight pixels at a time and joined
// without a branch per pixel.
#include <algorithm>
#include <bit>
#include <cstring>
#include <numeric>

#include "gpuvis/core/parallel.hpp"
#include "segment/cpu/phases.hpp"

namespace gpuvis::segment::cpu {
namespace {

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

}  // namespace

// Bands of at least kLeastBandRows rows (run_bands.hpp) are labelled on threads of their own; below
// it the joins at their borders and the copies cost more than the labelling saves.

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

}  // namespace gpuvis::segment::cpu

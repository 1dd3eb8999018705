// Stage 4's adjacency lists on several threads (phases.hpp, build_adjacency): each band routes its
// pairs to the ranges of region numbers of their two ends; each range, on a thread of the pool,
// gathers its regions' neighbours from those entries, sorts and deduplicates each list, judges
// saturation (more than `cap` distinct neighbours) and, once every range has, keeps the lists of
// unsaturated regions without their saturated neighbours (marking them fragmented). Every list is
// its region's sorted distinct neighbours, so the lists and flags are the one-thread ones.
#include <algorithm>
#include <bit>
#include <climits>
#include <cstdint>
#include <vector>

#include "gpuvis/core/parallel.hpp"
#include "segment/cpu/phases.hpp"

namespace gpuvis::segment::cpu {
namespace {

// A region's neighbours (with repeats) made its ascending distinct neighbours in place; returns the
// new end. Short lists, which most regions have, by insertion sort; long ones (the table around
// noise, or the paper around every symbol: hundreds of thousands of pairs) by marking each neighbour
// in `seen` (a bit per region, all clear before and after) and reading the marks in order.
std::int32_t* distinct_sorted(std::int32_t* first, std::int32_t* last, std::vector<std::uint64_t>& seen) {
  const std::ptrdiff_t n = last - first;
  if (n <= 64) {
    for (std::int32_t* i = first + 1; i < last; ++i)
      for (std::int32_t* j = i; j > first && j[-1] > *j; --j) std::swap(j[-1], *j);
    return std::unique(first, last);
  }
  std::uint32_t lowest = UINT32_MAX, highest = 0;
  for (const std::int32_t* p = first; p < last; ++p) {
    const auto v = static_cast<std::uint32_t>(*p);
    seen[v >> 6] |= std::uint64_t{1} << (v & 63);
    lowest = std::min(lowest, v >> 6);
    highest = std::max(highest, v >> 6);
  }
  std::int32_t* out = first;
  for (std::uint32_t word = lowest; word <= highest; ++word)
    for (std::uint64_t bits = seen[word]; bits; bits &= bits - 1) *out++ = static_cast<std::int32_t>(word * 64 + std::countr_zero(bits));
  std::fill(seen.begin() + lowest, seen.begin() + highest + 1, 0);
  return out;
}

// Each band's pairs routed to the ranges of 2^shift regions of their two ends (R ranges): counted
// per band and range, then written as (region, neighbour) into s.routed, so that each range's
// entries from every band lie together; s.route_count[range * B + band] is where that band's start.
void route_pairs(Scratch& s, int shift, int R) {
  const int B = static_cast<int>(s.bands.size());
  s.route_count.assign(static_cast<std::size_t>(B) * R + 1, 0);
  std::int32_t* routes = s.route_count.data();  // first each slot's count, then its start
  const Edge* pairs = s.pairs.data();
  // (Counted and written through a band's own cursors: the bands' slots of one range share cache lines.)
  parallel_for(0, B, 1, [&](std::ptrdiff_t b0, std::ptrdiff_t b1) {
    std::vector<std::int32_t> counts(static_cast<std::size_t>(R));
    for (auto b = b0; b < b1; ++b) {
      const RunBand& band = s.bands[b];
      std::fill(counts.begin(), counts.end(), 0);
      for (const Edge* p = pairs + band.first; p < pairs + band.first + band.npairs; ++p) {
        ++counts[(*p)[0] >> shift];
        ++counts[(*p)[1] >> shift];
      }
      for (int q = 0; q < R; ++q) routes[q * B + b] = counts[q];
    }
  });
  std::int32_t total = 0;
  for (int k = 0; k < B * R; ++k) {
    const std::int32_t n = routes[k];
    routes[k] = total;
    total += n;
  }
  routes[B * R] = total;
  s.routed.resize(static_cast<std::size_t>(total));
  Edge* routed = s.routed.data();
  parallel_for(0, B, 1, [&](std::ptrdiff_t b0, std::ptrdiff_t b1) {
    std::vector<std::int32_t> cursor(static_cast<std::size_t>(R));
    for (auto b = b0; b < b1; ++b) {
      const RunBand& band = s.bands[b];
      for (int q = 0; q < R; ++q) cursor[q] = routes[q * B + b];
      for (const Edge* p = pairs + band.first; p < pairs + band.first + band.npairs; ++p) {
        const auto [u, v] = *p;
        routed[cursor[u >> shift]++] = {u, v};
        routed[cursor[v >> shift]++] = {v, u};
      }
    }
  });
}

}  // namespace

void build_adjacency_in_bands(int nregions, int cap, Scratch& s, RegionTree& t) {
  const auto nr = static_cast<std::size_t>(nregions);
  const int B = static_cast<int>(s.bands.size());
  // Ranges of 2^shift regions, two to four per thread, so that the pool balances them.
  int shift = 6;
  while ((static_cast<std::int64_t>(nregions) >> shift) > 4 * std::int64_t{num_threads()}) ++shift;
  const int R = static_cast<int>((static_cast<std::int64_t>(nregions) + (std::int64_t{1} << shift) - 1) >> shift);
  const int chunk = 1 << shift;
  route_pairs(s, shift, R);
  const std::int32_t* routes = s.route_count.data();
  const Edge* routed = s.routed.data();
  const std::int32_t total = routes[B * R];
  auto entries = [&](int q) { return std::pair{routes[q * B], routes[(q + 1) * B]}; };  // range q's entries
  // Per range of regions, on the pool's threads: its entries read twice, counting, then gathering,
  // each region's neighbours (with repeats); then each list sorted and deduplicated in place, its
  // length the degree, and saturation.
  s.count.resize(nr + 1);
  s.fill.resize(nr);
  s.degree.resize(nr);
  s.saturated.resize(nr);
  s.neighbours.resize(static_cast<std::size_t>(total));
  std::int32_t *count = s.count.data(), *fill = s.fill.data(), *degree = s.degree.data(), *neighbours = s.neighbours.data();
  std::uint8_t* saturated = s.saturated.data();
  parallel_for(0, R, 1, [&](std::ptrdiff_t q0, std::ptrdiff_t q1) {
    for (auto q = q0; q < q1; ++q) {
      const int lo = static_cast<int>(q) * chunk, hi = std::min(nregions, lo + chunk);
      const auto [e0, e1] = entries(static_cast<int>(q));
      std::fill(count + lo, count + hi, 0);
      for (const Edge* e = routed + e0; e < routed + e1; ++e) ++count[(*e)[0]];
      std::int32_t at = e0;
      for (int v = lo; v < hi; ++v) fill[v] = at, at += count[v];
      for (const Edge* e = routed + e0; e < routed + e1; ++e) neighbours[fill[(*e)[0]]++] = (*e)[1];
      thread_local std::vector<std::uint64_t> seen;
      seen.resize((nr >> 6) + 1);  // new words are clear, as distinct_sorted leaves the old ones
      for (int v = lo; v < hi; ++v) {
        std::int32_t* first = neighbours + fill[v] - count[v];
        degree[v] = static_cast<std::int32_t>(distinct_sorted(first, neighbours + fill[v], seen) - first);
        saturated[v] = degree[v] > cap;
      }
    }
  });
  // Per range, every region's saturation known: the kept lists' lengths and the flags.
  s.run_cursor.resize(nr);
  std::int32_t* kept = s.run_cursor.data();
  std::uint8_t* flags = t.flags.data();
  std::vector<std::int32_t> range_kept(static_cast<std::size_t>(R) + 1, 0);  // then each range's first list slot
  parallel_for(0, R, 1, [&](std::ptrdiff_t r0, std::ptrdiff_t r1) {
    for (auto r = r0; r < r1; ++r) {
      const int lo = static_cast<int>(r) * chunk, hi = std::min(nregions, lo + chunk);
      std::int32_t sum = 0;
      for (int v = lo; v < hi; ++v) {
        const std::int32_t* first = neighbours + fill[v] - count[v];
        int unsaturated = 0;
        for (int i = 0; i < degree[v]; ++i) unsaturated += !saturated[first[i]];
        const bool fragmented = !saturated[v] && unsaturated < degree[v];
        kept[v] = saturated[v] ? 0 : unsaturated;
        sum += kept[v];
        flags[v] |= static_cast<std::uint8_t>(saturated[v] * kSaturated | fragmented * kFragmented);
      }
      range_kept[r + 1] = sum;
    }
  });
  for (int q = 0; q < R; ++q) range_kept[q + 1] += range_kept[q];
  t.adj_begin.resize(nr + 1);
  t.adj_begin[nr] = range_kept[R];
  t.adj.resize(static_cast<std::size_t>(range_kept[R]));
  std::int32_t* adj = t.adj.data();
  std::int32_t* adj_begin = t.adj_begin.data();
  parallel_for(0, R, 1, [&](std::ptrdiff_t r0, std::ptrdiff_t r1) {
    for (auto r = r0; r < r1; ++r) {
      const int lo = static_cast<int>(r) * chunk, hi = std::min(nregions, lo + chunk);
      for (std::int32_t v = lo, at = range_kept[r]; v < hi; ++v) adj_begin[v] = at, at += kept[v];
      for (int v = lo; v < hi; ++v) {
        if (saturated[v]) continue;
        const std::int32_t* first = neighbours + fill[v] - count[v];
        std::int32_t* out = adj + adj_begin[v];
        for (int i = 0; i < degree[v]; ++i)
          if (!saturated[first[i]]) *out++ = first[i];  // (writing always would reach the next region's first slot)
      }
    }
  });
}

}  // namespace gpuvis::segment::cpu

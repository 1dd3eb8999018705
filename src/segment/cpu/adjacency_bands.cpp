// Stage 4's adjacency lists on several threads (phases.hpp, build_adjacency): each thread takes a
// range of region numbers, gathers its regions' neighbours from every band's pairs, sorts and
// deduplicates each list, judges saturation (more than `cap` distinct neighbours) and, once every
// range has, keeps the lists of unsaturated regions without their saturated neighbours (marking
// them fragmented). Every list is its region's sorted distinct neighbours, so the lists and flags
// are the one-thread ones.
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

}  // namespace

void build_adjacency_in_bands(int nregions, int cap, Scratch& s, RegionTree& t) {
  const int T = static_cast<int>(s.bands.size());
  const int chunk = std::max(1, (nregions + T - 1) / T);
  const auto nr = static_cast<std::size_t>(nregions);
  // Per range of regions, on its thread: every band's pairs read twice (sequential reads, which
  // cost less than moving the pairs to their ranges first), counting, then gathering, each
  // region's neighbours (with repeats); then each list sorted and deduplicated in place, its
  // length the degree, and saturation.
  s.count.resize(nr + 1);
  s.fill.resize(nr);
  s.degree.resize(nr);
  s.saturated.resize(nr);
  std::vector<std::int32_t> range_begin(static_cast<std::size_t>(T) + 1, 0);
  std::int32_t *count = s.count.data(), *fill = s.fill.data(), *degree = s.degree.data();
  std::uint8_t* saturated = s.saturated.data();
  const Edge* pairs = s.pairs.data();
  auto each_pair = [&](auto&& f) {
    for (const RunBand& band : s.bands)
      for (const Edge* p = pairs + band.first; p < pairs + band.first + band.npairs; ++p) f((*p)[0], (*p)[1]);
  };
  parallel_for(0, T, 1, [&](std::ptrdiff_t r0, std::ptrdiff_t r1) {
    for (auto r = r0; r < r1; ++r) {
      const int lo = std::min(nregions, static_cast<int>(r) * chunk), hi = std::min(nregions, static_cast<int>(r + 1) * chunk);
      const auto width = static_cast<unsigned>(hi - lo);
      std::int32_t spare = 0;
      std::fill(count + lo, count + hi, 0);
      each_pair([&](int u, int v) {
        ++*(static_cast<unsigned>(u - lo) < width ? count + u : &spare);
        ++*(static_cast<unsigned>(v - lo) < width ? count + v : &spare);
      });
      std::int32_t n = 0;
      for (int v = lo; v < hi; ++v) n += count[v];
      range_begin[r + 1] = n;
    }
  });
  for (int r = 0; r < T; ++r) range_begin[r + 1] += range_begin[r];
  s.neighbours.resize(static_cast<std::size_t>(range_begin[T]));
  std::int32_t* neighbours = s.neighbours.data();
  parallel_for(0, T, 1, [&](std::ptrdiff_t r0, std::ptrdiff_t r1) {
    for (auto r = r0; r < r1; ++r) {
      const int lo = std::min(nregions, static_cast<int>(r) * chunk), hi = std::min(nregions, static_cast<int>(r + 1) * chunk);
      const auto width = static_cast<unsigned>(hi - lo);
      std::int32_t at = range_begin[r], spare = 0;
      for (int v = lo; v < hi; ++v) fill[v] = at, at += count[v];
      each_pair([&](int u, int v) {
        const bool take_u = static_cast<unsigned>(u - lo) < width, take_v = static_cast<unsigned>(v - lo) < width;
        *(take_u ? neighbours + fill[u]++ : &spare) = v;
        *(take_v ? neighbours + fill[v]++ : &spare) = u;
      });
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
  parallel_for(0, T, 1, [&](std::ptrdiff_t r0, std::ptrdiff_t r1) {
    for (auto r = r0; r < r1; ++r) {
      const int lo = std::min(nregions, static_cast<int>(r) * chunk), hi = std::min(nregions, static_cast<int>(r + 1) * chunk);
      for (int v = lo; v < hi; ++v) {
        const std::int32_t* first = neighbours + fill[v] - count[v];
        int unsaturated = 0;
        for (int i = 0; i < degree[v]; ++i) unsaturated += !saturated[first[i]];
        const bool fragmented = !saturated[v] && unsaturated < degree[v];
        kept[v] = saturated[v] ? 0 : unsaturated;
        flags[v] |= static_cast<std::uint8_t>(saturated[v] * kSaturated | fragmented * kFragmented);
      }
    }
  });
  t.adj_begin.resize(nr + 1);
  t.adj_begin[0] = 0;
  for (std::size_t v = 0; v < nr; ++v) t.adj_begin[v + 1] = t.adj_begin[v] + kept[v];
  t.adj.resize(static_cast<std::size_t>(t.adj_begin[nr]));
  std::int32_t* adj = t.adj.data();
  const std::int32_t* adj_begin = t.adj_begin.data();
  parallel_for(0, T, 1, [&](std::ptrdiff_t r0, std::ptrdiff_t r1) {
    for (auto r = r0; r < r1; ++r) {
      const int lo = std::min(nregions, static_cast<int>(r) * chunk), hi = std::min(nregions, static_cast<int>(r + 1) * chunk);
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

#include "segment_reference.hpp"
#include "segment/cpu/segment.hpp"

#include <algorithm>
#include <random>
#include <set>
#include <sstream>
#include <vector>

namespace gpuvis::test {

segment::RegionTree segment_reference(HostView<const std::uint8_t> bin, int cap) {
  using namespace segment;
  const int w = bin.width, h = bin.height;
  auto white = [&](int x, int y) { return bin.row(y)[x] != 0; };
  std::vector<int> label(static_cast<std::size_t>(w) * h, -1);
  auto at = [&](int x, int y) -> int& { return label[static_cast<std::size_t>(y) * w + x]; };
  RegionTree t;
  t.width = w;
  t.height = h;
  t.cap = cap;
  // Flood fill in raster order: regions are numbered by their first pixel.
  std::vector<std::pair<int, int>> stack;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      if (at(x, y) >= 0) continue;
      const int r = t.size();
      const bool c = white(x, y);
      t.colour.push_back(c ? 255 : 0);
      t.first_x.push_back(x);
      t.first_y.push_back(y);
      stack.assign(1, {x, y});
      at(x, y) = r;
      while (!stack.empty()) {
        const auto [px, py] = stack.back();
        stack.pop_back();
        const int nx[4] = {px - 1, px + 1, px, px}, ny[4] = {py, py, py - 1, py + 1};
        for (int k = 0; k < 4; ++k)
          if (nx[k] >= 0 && nx[k] < w && ny[k] >= 0 && ny[k] < h && at(nx[k], ny[k]) < 0 && white(nx[k], ny[k]) == c) {
            at(nx[k], ny[k]) = r;
            stack.push_back({nx[k], ny[k]});
          }
      }
    }
  const int n = t.size();
  t.flags.assign(n, 0);
  t.area.assign(n, 0);
  t.left.assign(n, w);
  t.top.assign(n, h);
  t.right.assign(n, -1);
  t.bottom.assign(n, -1);
  t.sum_x.assign(n, 0);
  t.sum_y.assign(n, 0);
  std::vector<std::set<int>> nb(n);
  std::vector<std::vector<Run>> runs(n);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const int r = at(x, y);
      ++t.area[r];
      t.left[r] = std::min(t.left[r], x);
      t.right[r] = std::max(t.right[r], x);
      t.top[r] = std::min(t.top[r], y);
      t.bottom[r] = std::max(t.bottom[r], y);
      t.sum_x[r] += x;
      t.sum_y[r] += y;
      if (x == 0 || y == 0 || x == w - 1 || y == h - 1) t.flags[r] |= kBorder;
      const bool run_start = x == 0 || at(x - 1, y) != r;
      if (run_start) runs[r].push_back({y, x, x});
      else runs[r].back().x1 = x;
      if (y == 0 && x > 0 && at(x - 1, 0) != r) {
        nb[r].insert(at(x - 1, 0));
        nb[at(x - 1, 0)].insert(r);
      }
      if (y > 0 && run_start && at(x, y - 1) != r) {
        nb[r].insert(at(x, y - 1));
        nb[at(x, y - 1)].insert(r);
      }
    }
  for (int r = 0; r < n; ++r)
    if (static_cast<int>(nb[r].size()) > cap) t.flags[r] |= kSaturated;
  t.adj_begin.assign(1, 0);
  t.run_begin.assign(1, 0);
  for (int r = 0; r < n; ++r) {
    if (!(t.flags[r] & kSaturated))
      for (int o : nb[r]) {
        if (t.flags[o] & kSaturated) t.flags[r] |= kFragmented;
        else t.adj.push_back(o);
      }
    t.adj_begin.push_back(static_cast<int>(t.adj.size()));
    t.runs.insert(t.runs.end(), runs[r].begin(), runs[r].end());
    t.run_begin.push_back(static_cast<int>(t.runs.size()));
  }
  t.parent.assign(n, -1);
  t.depth.assign(n, 0);
  t.child_count.assign(n, 0);
  t.descendant_count.assign(n, 0);
  for (int r = 0; r < n; ++r)
    if (!(t.flags[r] & kBorder)) t.parent[r] = at(t.first_x[r], t.first_y[r] - 1);
  for (int r = 0; r < n; ++r)
    if (t.parent[r] >= 0) {
      t.depth[r] = t.depth[t.parent[r]] + 1;
      ++t.child_count[t.parent[r]];
    }
  for (int r = n - 1; r >= 0; --r)
    if (t.parent[r] >= 0) t.descendant_count[t.parent[r]] += t.descendant_count[r] + 1;
  return t;
}

::testing::AssertionResult same_region_tree(const segment::RegionTree& a, const segment::RegionTree& b,
                                            bool up_to_renumbering) {
  if (a.width != b.width || a.height != b.height) return ::testing::AssertionFailure() << "frame sizes differ";
  if (a.size() != b.size())
    return ::testing::AssertionFailure() << "region counts differ: " << a.size() << " vs " << b.size();
  const int n = a.size();
  // Run lists are optional (segment::SegmentParams): compared when both trees have them.
  const bool with_runs = !a.run_begin.empty();
  if (with_runs != !b.run_begin.empty()) return ::testing::AssertionFailure() << "only one tree has run lists";
  // map[r] = b's number for a's region r.
  std::vector<int> map(n), inverse(n, -1);
  if (up_to_renumbering) {
    std::vector<int> by_first(static_cast<std::size_t>(a.width) * a.height, -1);
    for (int r = 0; r < n; ++r) by_first[static_cast<std::size_t>(b.first_y[r]) * b.width + b.first_x[r]] = r;
    for (int r = 0; r < n; ++r) {
      map[r] = by_first[static_cast<std::size_t>(a.first_y[r]) * a.width + a.first_x[r]];
      if (map[r] < 0) return ::testing::AssertionFailure() << "region " << r << "'s first pixel starts no region in b";
    }
  } else {
    for (int r = 0; r < n; ++r) map[r] = r;
  }
  for (int r = 0; r < n; ++r) inverse[map[r]] = r;
  auto fail = [&](const char* field, int r) {
    return ::testing::AssertionFailure() << field << " differs for region " << r << " (first pixel " << a.first_x[r]
                                         << "," << a.first_y[r] << ")";
  };
  for (int r = 0; r < n; ++r) {
    const int s = map[r];
    if (a.colour[r] != b.colour[s]) return fail("colour", r);
    if (a.flags[r] != b.flags[s]) return fail("flags", r);
    if (a.area[r] != b.area[s]) return fail("area", r);
    if (a.left[r] != b.left[s] || a.top[r] != b.top[s] || a.right[r] != b.right[s] || a.bottom[r] != b.bottom[s])
      return fail("bounding box", r);
    if (a.sum_x[r] != b.sum_x[s] || a.sum_y[r] != b.sum_y[s]) return fail("coordinate sums", r);
    if (a.first_x[r] != b.first_x[s] || a.first_y[r] != b.first_y[s]) return fail("first pixel", r);
    const int pa = a.parent[r], pb = b.parent[s];
    if ((pa < 0) != (pb < 0) || (pa >= 0 && map[pa] != pb)) return fail("parent", r);
    if (a.depth[r] != b.depth[s] || a.child_count[r] != b.child_count[s] ||
        a.descendant_count[r] != b.descendant_count[s])
      return fail("depth / child count / descendant count", r);
    std::vector<int> na(a.neighbours(r), a.neighbours(r) + a.degree(r)), nb(b.neighbours(s), b.neighbours(s) + b.degree(s));
    for (int& o : na) o = map[o];
    if (up_to_renumbering) std::sort(na.begin(), na.end());
    if (na != nb) return fail("neighbour list", r);
    if (!with_runs) continue;
    if (a.run_begin[r + 1] - a.run_begin[r] != b.run_begin[s + 1] - b.run_begin[s]) return fail("run count", r);
    for (int i = a.run_begin[r], j = b.run_begin[s]; i < a.run_begin[r + 1]; ++i, ++j)
      if (a.runs[i].y != b.runs[j].y || a.runs[i].x0 != b.runs[j].x0 || a.runs[i].x1 != b.runs[j].x1)
        return fail("runs", r);
  }
  return ::testing::AssertionSuccess();
}

Image<std::uint8_t> binary_noise(int width, int height, double white_fraction, int block, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::bernoulli_distribution white(white_fraction);
  const int bw = (width + block - 1) / block, bh = (height + block - 1) / block;
  std::vector<std::uint8_t> cells(static_cast<std::size_t>(bw) * bh);
  for (auto& c : cells) c = white(rng) ? 255 : 0;
  Image<std::uint8_t> img(width, height);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) img(x, y) = cells[static_cast<std::size_t>(y / block) * bw + x / block];
  return img;
}

Image<std::uint8_t> binary_pattern(int w, int h, int kind) {
  Image<std::uint8_t> img(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      bool white = false;
      switch (kind) {
        case 0: white = false; break;
        case 1: white = true; break;
        case 2: white = (x + y) & 1; break;
        case 3: white = y & 1; break;
        case 4: white = x & 1; break;
        case 5: {
          const int d = std::min(std::min(x, w - 1 - x), std::min(y, h - 1 - y));
          white = (d / 2) & 1;
          break;
        }
        default: white = ((x / 3) + (y / 3)) & 1;
      }
      img(x, y) = white ? 255 : 0;
    }
  return img;
}

}  // namespace gpuvis::test

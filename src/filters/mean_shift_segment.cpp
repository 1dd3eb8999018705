// Mean shift segmentation: filter (either backend), then on the host: connect neighbours with close
// modes, fuse adjacent regions with close mean modes, merge small regions, number the regions.
#include "gpuvis/filters/mean_shift_segment.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <string>
#include <utility>

#include "gpuvis/core/error.hpp"

namespace gpuvis::filters {
namespace {

// Union-find over pixel or region indices, with path halving.
struct DisjointSets {
  std::vector<int> parent;
  explicit DisjointSets(int n) : parent(static_cast<std::size_t>(n)) { std::iota(parent.begin(), parent.end(), 0); }
  int find(int a) {
    while (parent[a] != a) a = parent[a] = parent[parent[a]];
    return a;
  }
  // The smaller index stays the root, so that the result does not depend on the order of unions.
  void join(int a, int b) {
    a = find(a);
    b = find(b);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);
  }
};

// The modes in the space the filter worked in (L*u*v* for colour by default), from the filtered
// image: channels per pixel c, values per pixel in `out`.
std::vector<float> mode_features(HostView<const std::uint8_t> filtered, const MeanShiftParams& p) {
  const int c = filtered.channels;
  std::vector<float> out(static_cast<std::size_t>(filtered.width) * filtered.height * c);
  for (int y = 0; y < filtered.height; ++y)
    for (int x = 0; x < filtered.width; ++x) {
      float* f = &out[(static_cast<std::size_t>(y) * filtered.width + x) * c];
      const std::uint8_t* v = filtered.row(y) + x * c;
      if (c == 3 && p.colour == MeanShiftColour::luv) rgb_to_luv(v, f);
      else
        for (int k = 0; k < c; ++k) f[k] = v[k];
    }
  return out;
}

float distance(const float* a, const float* b, int c) {
  float s = 0;
  for (int k = 0; k < c; ++k) s += (a[k] - b[k]) * (a[k] - b[k]);
  return std::sqrt(s);
}

struct RegionStats {
  std::vector<double> sum;  // per region, c values
  std::vector<int> size;
};

// The mean mode of region r into out[0..c).
void mean_of(const RegionStats& s, int r, int c, float out[3]) {
  for (int k = 0; k < c; ++k) out[k] = static_cast<float>(s.sum[static_cast<std::size_t>(r) * c + k] / s.size[r]);
}

RegionStats region_stats(const std::vector<int>& label, int regions, const std::vector<float>& feat, int c) {
  RegionStats s{std::vector<double>(static_cast<std::size_t>(regions) * c, 0.0), std::vector<int>(regions, 0)};
  for (std::size_t i = 0; i < label.size(); ++i) {
    ++s.size[label[i]];
    for (int k = 0; k < c; ++k) s.sum[static_cast<std::size_t>(label[i]) * c + k] += feat[i * c + k];
  }
  return s;
}

// The pairs of 8-adjacent regions.
std::set<std::pair<int, int>> adjacency(const std::vector<int>& label, int w, int h) {
  std::set<std::pair<int, int>> adj;
  auto add = [&](int a, int b) {
    if (a != b) adj.emplace(std::min(a, b), std::max(a, b));
  };
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const int a = label[static_cast<std::size_t>(y) * w + x];
      if (x + 1 < w) add(a, label[static_cast<std::size_t>(y) * w + x + 1]);
      if (y + 1 < h) {
        add(a, label[static_cast<std::size_t>(y + 1) * w + x]);
        if (x + 1 < w) add(a, label[static_cast<std::size_t>(y + 1) * w + x + 1]);
        if (x > 0) add(a, label[static_cast<std::size_t>(y + 1) * w + x - 1]);
      }
    }
  return adj;
}

// Relabels pixels through a union-find over their labels (pixel indices, or regions), numbering the
// new regions densely in raster order of their first pixel; returns the new region count.
int merge(std::vector<int>& label, int regions, DisjointSets& sets) {
  std::vector<int> id(static_cast<std::size_t>(regions), -1);
  int count = 0;
  // Raster order of first pixel is kept by numbering in pixel order.
  for (int& l : label) {
    const int r = sets.find(l);
    if (id[r] < 0) id[r] = count++;
    l = id[r];
  }
  return count;
}

}  // namespace

void validate(const MeanShiftSegmentParams& p) {
  validate(p.filter);
  require(p.connect > 0 && p.connect <= 4, "meanshift segment: connect must be in (0, 4] (a fraction of h_r), got " +
                                               std::to_string(p.connect));
  require(p.fuse >= 0 && p.fuse <= 4, "meanshift segment: fuse must be in [0, 4] (a fraction of h_r), got " + std::to_string(p.fuse));
  require(p.min_size >= 0, "meanshift segment: min_size must be >= 0, got " + std::to_string(p.min_size));
}

MeanShiftSegmentation mean_shift_segment(HostView<const std::uint8_t> src, const MeanShiftSegmentParams& p) {
  validate(p);
  MeanShiftSegmentation out;
  out.filtered = Image<std::uint8_t>(src.width, src.height, src.channels);
  mean_shift_filter(src, out.filtered.view(), p.filter);
  const int w = src.width, h = src.height, c = src.channels, n = w * h;
  const std::vector<float> feat = mode_features(out.filtered.view(), p.filter);

  // 1. Connect: 8-neighbours whose modes are within connect x h_r.
  DisjointSets pixels(n);
  const float connect = p.connect * p.filter.range;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const int i = y * w + x;
      auto link = [&](int j) {
        if (distance(&feat[static_cast<std::size_t>(i) * c], &feat[static_cast<std::size_t>(j) * c], c) < connect) pixels.join(i, j);
      };
      if (x + 1 < w) link(i + 1);
      if (y + 1 < h) {
        link(i + w);
        if (x + 1 < w) link(i + w + 1);
        if (x > 0) link(i + w - 1);
      }
    }
  std::vector<int> label(static_cast<std::size_t>(n));
  std::iota(label.begin(), label.end(), 0);
  int regions = merge(label, n, pixels);

  // 2. Fuse adjacent regions whose mean modes are within fuse x h_r, until nothing changes (EDISON
  //    repeats its transitive closure a few times; the means are recomputed each pass).
  const float fuse = p.fuse * p.filter.range;
  for (int pass = 0; pass < 10 && fuse > 0; ++pass) {
    const RegionStats s = region_stats(label, regions, feat, c);
    DisjointSets sets(regions);
    bool changed = false;
    for (const auto& [a, b] : adjacency(label, w, h)) {
      float ma[3], mb[3];
      mean_of(s, a, c, ma);
      mean_of(s, b, c, mb);
      if (distance(ma, mb, c) < fuse) {
        sets.join(a, b);
        changed = true;
      }
    }
    if (!changed) break;
    regions = merge(label, regions, sets);
  }

  // 3. Regions smaller than min_size join their neighbour with the closest mean mode, smallest
  //    regions first, until none is left (or one region covers the image).
  while (p.min_size > 0 && regions > 1) {
    const RegionStats s = region_stats(label, regions, feat, c);
    const auto adj = adjacency(label, w, h);
    std::vector<int> target(static_cast<std::size_t>(regions), -1);
    std::vector<float> best(static_cast<std::size_t>(regions), 0.0f);
    auto consider = [&](int small, int other) {
      if (s.size[small] >= p.min_size) return;
      float ms[3], mo[3];
      mean_of(s, small, c, ms);
      mean_of(s, other, c, mo);
      const float d = distance(ms, mo, c);
      if (target[small] < 0 || d < best[small] || (d == best[small] && other < target[small])) {
        target[small] = other;
        best[small] = d;
      }
    };
    for (const auto& [a, b] : adj) {
      consider(a, b);
      consider(b, a);
    }
    DisjointSets sets(regions);
    bool changed = false;
    for (int r = 0; r < regions; ++r)
      if (target[r] >= 0) {
        sets.join(r, target[r]);
        changed = true;
      }
    if (!changed) break;
    regions = merge(label, regions, sets);
  }

  // 4. Labels, numbered in raster order of first pixel, and the region table.
  out.labels = Image<std::int32_t>(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) out.labels(x, y) = label[static_cast<std::size_t>(y) * w + x];
  out.regions.assign(static_cast<std::size_t>(regions), {});
  std::vector<double> sx(regions, 0), sy(regions, 0), sv(static_cast<std::size_t>(regions) * 3, 0);
  for (int r = 0; r < regions; ++r) {
    auto& g = out.regions[r];
    g.label = r;
    g.x0 = w;
    g.y0 = h;
    g.x1 = g.y1 = -1;
  }
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const int r = out.labels(x, y);
      auto& g = out.regions[r];
      ++g.size;
      sx[r] += x;
      sy[r] += y;
      for (int k = 0; k < c; ++k) sv[static_cast<std::size_t>(r) * 3 + k] += out.filtered(x, y, k);
      g.x0 = std::min(g.x0, x);
      g.y0 = std::min(g.y0, y);
      g.x1 = std::max(g.x1, x);
      g.y1 = std::max(g.y1, y);
    }
  for (int r = 0; r < regions; ++r) {
    auto& g = out.regions[r];
    g.centroid_x = sx[r] / g.size;
    g.centroid_y = sy[r] / g.size;
    for (int k = 0; k < c; ++k) g.mean[k] = static_cast<float>(sv[static_cast<std::size_t>(r) * 3 + k] / g.size);
  }
  return out;
}

void draw_boundaries(HostView<std::uint8_t> image, HostView<const std::int32_t> labels, const std::uint8_t colour[3]) {
  require(image.width == labels.width && image.height == labels.height, "draw_boundaries: image and labels differ in size");
  for (int y = 0; y < image.height; ++y)
    for (int x = 0; x < image.width; ++x) {
      const int l = labels(x, y);
      const bool edge = (x + 1 < image.width && labels(x + 1, y) != l) || (y + 1 < image.height && labels(x, y + 1) != l);
      if (!edge) continue;
      for (int k = 0; k < image.channels; ++k) image(x, y, k) = colour[std::min(k, 2)];
    }
}

}  // namespace gpuvis::filters

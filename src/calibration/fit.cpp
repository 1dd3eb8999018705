// Automatic calibration from a camera frame of the calibration sheet: dots found by the tracker's
// own threshold and segmentation, centres refined on the grey levels, matched to the sheet's grid
// points, a camera model fitted (a linear homography first, then Levenberg-Marquardt with radial
// distortion), and the grid's displacements read off the model.
#include "gpuvis/calibration/fit.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "gpuvis/core/error.hpp"
#include "gpuvis/segment/region_tree.hpp"
#include "segment/cpu/segment.hpp"
#include "gpuvis/threshold/threshold.hpp"

namespace gpuvis::calibration {
namespace {

constexpr double kPi = 3.141592653589793238462643383279502884;
constexpr int kParams = 10;  // h0..h7 (h8 = 1), k1, k2

struct Match {
  double tx, ty;  // table pixels (the sheet's dot)
  double px, py;  // camera pixels (measured)
};

// Solves the n x n system a x = b (row-major, overwritten) by Gaussian elimination with partial
// pivoting; false when singular.
bool solve(std::vector<double>& a, std::vector<double>& b, int n) {
  for (int col = 0; col < n; ++col) {
    int pivot = col;
    for (int r = col + 1; r < n; ++r)
      if (std::abs(a[static_cast<std::size_t>(r * n + col)]) > std::abs(a[static_cast<std::size_t>(pivot * n + col)])) pivot = r;
    if (std::abs(a[static_cast<std::size_t>(pivot * n + col)]) < 1e-300) return false;
    if (pivot != col) {
      for (int k = 0; k < n; ++k) std::swap(a[static_cast<std::size_t>(col * n + k)], a[static_cast<std::size_t>(pivot * n + k)]);
      std::swap(b[static_cast<std::size_t>(col)], b[static_cast<std::size_t>(pivot)]);
    }
    for (int r = col + 1; r < n; ++r) {
      const double f = a[static_cast<std::size_t>(r * n + col)] / a[static_cast<std::size_t>(col * n + col)];
      for (int k = col; k < n; ++k) a[static_cast<std::size_t>(r * n + k)] -= f * a[static_cast<std::size_t>(col * n + k)];
      b[static_cast<std::size_t>(r)] -= f * b[static_cast<std::size_t>(col)];
    }
  }
  for (int r = n - 1; r >= 0; --r) {
    double s = b[static_cast<std::size_t>(r)];
    for (int k = r + 1; k < n; ++k) s -= a[static_cast<std::size_t>(r * n + k)] * b[static_cast<std::size_t>(k)];
    b[static_cast<std::size_t>(r)] = s / a[static_cast<std::size_t>(r * n + r)];
  }
  return true;
}

// Dark, round, whole regions of about the dots' size, with centres refined on the grey levels: each
// pixel of the dot's neighbourhood weighs how dark it is between the paper's and the ink's level,
// so the anti-aliased rim counts in proportion (sub-pixel centres).
std::vector<std::array<double, 2>> find_dots(HostView<const std::uint8_t> frame, double radius) {
  threshold::Params tp;
  tp.method = threshold::Method::bernsen;
  tp.bernsen.half_window = std::max(12, static_cast<int>(std::lround(2.5 * radius)));
  tp.bernsen.gate = 24;
  Image<std::uint8_t> binary(frame.width, frame.height);
  threshold::threshold(frame, binary.view(), tp);
  segment::RegionTree tree;
  segment::SegmentParams options;
  options.runs = false;
  segment::segment_cpu(binary.view(), 1 << 20, tree, options);
  const double area = kPi * radius * radius;
  std::vector<std::array<double, 2>> dots;
  for (int r = 0; r < tree.size(); ++r) {
    if (tree.colour[static_cast<std::size_t>(r)] != 0 || (tree.flags[static_cast<std::size_t>(r)] & segment::kBorder)) continue;
    const double a = tree.area[static_cast<std::size_t>(r)];
    const int bw = tree.bbox_width(r), bh = tree.bbox_height(r);
    const double fill = a / (static_cast<double>(bw) * bh);
    if (a < 0.3 * area || a > 2.5 * area || bw > 1.6 * bh || bh > 1.6 * bw || fill < 0.6 || fill > 0.92) continue;
    const int pad = 2;
    const int x0 = std::max(0, tree.left[static_cast<std::size_t>(r)] - pad), x1 = std::min(frame.width - 1, tree.right[static_cast<std::size_t>(r)] + pad);
    const int y0 = std::max(0, tree.top[static_cast<std::size_t>(r)] - pad), y1 = std::min(frame.height - 1, tree.bottom[static_cast<std::size_t>(r)] + pad);
    int lo = 255, hi = 0;
    for (int y = y0; y <= y1; ++y)
      for (int x = x0; x <= x1; ++x) {
        lo = std::min<int>(lo, frame.row(y)[x]);
        hi = std::max<int>(hi, frame.row(y)[x]);
      }
    if (hi - lo < 16) continue;
    double sw = 0, sx = 0, sy = 0;
    for (int y = y0; y <= y1; ++y)
      for (int x = x0; x <= x1; ++x) {
        const double w = std::clamp((hi - frame.row(y)[x]) / static_cast<double>(hi - lo), 0.0, 1.0);
        sw += w;
        sx += w * x;
        sy += w * y;
      }
    dots.push_back({sx / sw, sy / sw});
  }
  return dots;
}

// Each sheet dot takes the nearest measured centre within `reach` of where the model puts it; a
// centre claimed by two dots goes to the nearer.
std::vector<Match> match(const std::vector<SheetDot>& sheet, const std::vector<std::array<double, 2>>& dots, const CameraModel& m,
                         double reach) {
  std::vector<int> owner(dots.size(), -1);
  std::vector<double> owner_d(dots.size(), 1e300);
  for (std::size_t i = 0; i < sheet.size(); ++i) {
    const auto p = m.project(sheet[i].x, sheet[i].y);
    int best = -1;
    double best_d = reach;
    for (std::size_t j = 0; j < dots.size(); ++j) {
      const double d = std::hypot(dots[j][0] - p[0], dots[j][1] - p[1]);
      if (d < best_d) best_d = d, best = static_cast<int>(j);
    }
    if (best >= 0 && best_d < owner_d[static_cast<std::size_t>(best)]) {
      owner[static_cast<std::size_t>(best)] = static_cast<int>(i);
      owner_d[static_cast<std::size_t>(best)] = best_d;
    }
  }
  std::vector<Match> out;
  for (std::size_t j = 0; j < dots.size(); ++j)
    if (owner[j] >= 0) {
      const auto& s = sheet[static_cast<std::size_t>(owner[j])];
      out.push_back({s.x, s.y, dots[j][0], dots[j][1]});
    }
  return out;
}

// The homography alone, by linear least squares (coordinates scaled to about 1 for conditioning).
void fit_homography(const std::vector<Match>& ms, CameraModel& m, double scale) {
  std::vector<double> ata(64, 0), atb(8, 0);
  for (const auto& mt : ms) {
    const double tx = mt.tx / scale, ty = mt.ty / scale, px = mt.px / scale, py = mt.py / scale;
    const double rows[2][9] = {{tx, ty, 1, 0, 0, 0, -tx * px, -ty * px, px}, {0, 0, 0, tx, ty, 1, -tx * py, -ty * py, py}};
    for (const auto& row : rows)
      for (int i = 0; i < 8; ++i) {
        for (int k = 0; k < 8; ++k) ata[static_cast<std::size_t>(i * 8 + k)] += row[i] * row[k];
        atb[static_cast<std::size_t>(i)] += row[i] * row[8];
      }
  }
  if (!solve(ata, atb, 8)) fail(ErrorCode::invalid_argument, "calibrate: the dots found do not determine the sheet's position");
  // Undo the scaling: H = S Hn S^-1 with S = diag(scale, scale, 1).
  const double* hn = atb.data();
  m.h[0] = hn[0];
  m.h[1] = hn[1];
  m.h[2] = hn[2] * scale;
  m.h[3] = hn[3];
  m.h[4] = hn[4];
  m.h[5] = hn[5] * scale;
  m.h[6] = hn[6] / scale;
  m.h[7] = hn[7] / scale;
  m.h[8] = 1;
}

void set_params(CameraModel& m, const double* p) {
  for (int i = 0; i < 8; ++i) m.h[i] = p[i];
  m.k1 = p[8];
  m.k2 = p[9];
}

// Levenberg-Marquardt over the homography and k1, k2, numeric Jacobian (10 parameters, a few
// dozen dots: the cost is nothing).
void refine(const std::vector<Match>& ms, CameraModel& m) {
  double p[kParams];
  for (int i = 0; i < 8; ++i) p[i] = m.h[i];
  p[8] = m.k1;
  p[9] = m.k2;
  const double step[kParams] = {1e-6, 1e-6, 1e-4, 1e-6, 1e-6, 1e-4, 1e-10, 1e-10, 1e-7, 1e-7};
  auto cost = [&](const double* q) {
    CameraModel t = m;
    set_params(t, q);
    double c = 0;
    for (const auto& mt : ms) {
      const auto e = t.project(mt.tx, mt.ty);
      c += (e[0] - mt.px) * (e[0] - mt.px) + (e[1] - mt.py) * (e[1] - mt.py);
    }
    return c;
  };
  double lambda = 1e-3, current = cost(p);
  const std::size_t n = ms.size() * 2;
  std::vector<double> jac(n * kParams), res(n);
  for (int iter = 0; iter < 100; ++iter) {
    CameraModel base = m;
    set_params(base, p);
    for (std::size_t i = 0; i < ms.size(); ++i) {
      const auto e = base.project(ms[i].tx, ms[i].ty);
      res[2 * i] = e[0] - ms[i].px;
      res[2 * i + 1] = e[1] - ms[i].py;
    }
    for (int k = 0; k < kParams; ++k) {
      double q[kParams];
      std::copy(p, p + kParams, q);
      q[k] += step[k];
      CameraModel t = m;
      set_params(t, q);
      q[k] -= 2 * step[k];
      CameraModel u = m;
      set_params(u, q);
      for (std::size_t i = 0; i < ms.size(); ++i) {
        const auto a = t.project(ms[i].tx, ms[i].ty), b = u.project(ms[i].tx, ms[i].ty);
        jac[(2 * i) * kParams + static_cast<std::size_t>(k)] = (a[0] - b[0]) / (2 * step[k]);
        jac[(2 * i + 1) * kParams + static_cast<std::size_t>(k)] = (a[1] - b[1]) / (2 * step[k]);
      }
    }
    std::vector<double> jtj(kParams * kParams, 0), jtr(kParams, 0);
    for (std::size_t i = 0; i < n; ++i)
      for (int a = 0; a < kParams; ++a) {
        jtr[static_cast<std::size_t>(a)] -= jac[i * kParams + static_cast<std::size_t>(a)] * res[i];
        for (int b = 0; b < kParams; ++b)
          jtj[static_cast<std::size_t>(a * kParams + b)] += jac[i * kParams + static_cast<std::size_t>(a)] * jac[i * kParams + static_cast<std::size_t>(b)];
      }
    bool improved = false;
    for (int tries = 0; tries < 10 && !improved; ++tries) {
      std::vector<double> a = jtj, b = jtr;
      for (int k = 0; k < kParams; ++k) a[static_cast<std::size_t>(k * kParams + k)] *= 1 + lambda;
      if (!solve(a, b, kParams)) break;
      double q[kParams];
      for (int k = 0; k < kParams; ++k) q[k] = p[k] + b[static_cast<std::size_t>(k)];
      const double c = cost(q);
      if (c < current) {
        const double gain = current - c;
        std::copy(q, q + kParams, p);
        current = c;
        lambda = std::max(lambda / 10, 1e-12);
        improved = true;
        if (gain < 1e-12 * (1 + current)) iter = 1 << 20;  // converged
      } else {
        lambda *= 10;
      }
    }
    if (!improved) break;
  }
  set_params(m, p);
}

// The grid whose interpolation (Catmull-Rom one way, linear the other: CalibrationMap) follows the
// model over the whole table, not only at the grid points: G is linear in the points, so this is
// linear least squares over a lattice of table points, one system per component, lightly pulled
// toward the model's value at each grid point (which also settles the padding entries no table
// point reaches). Sampling the model only at the points leaves the linear blend's error between
// them (about half a pixel across an 80-pixel cell of a wide-angle view).
CalibrationGrid fit_grid(const CameraModel& model, int w, int h) {
  const GridLayout l = grid_layout(w, h);
  const int n = l.entries();
  CalibrationGrid nodes = CalibrationGrid::zero(w, h);
  for (const auto& d : sheet_dots(w, h)) {
    const auto p = model.project(d.x, d.y);
    nodes.points[static_cast<std::size_t>(d.r * l.gx + d.c)] = {(p[0] - d.x) / l.cell_w, (p[1] - d.y) / l.cell_h};
  }
  const int step = 4;
  std::vector<std::array<double, 2>> samples;
  for (int y = 0; y < h; y += step)
    for (int x = 0; x < w; x += step) samples.push_back({static_cast<double>(x), static_cast<double>(y)});
  CalibrationGrid out = nodes;
  const double pull = 1e-3 * static_cast<double>(samples.size()) / n;
  for (int axis = 0; axis < 2; ++axis) {
    // basis[k][s]: the component at sample s when entry k is 1 and every other entry 0.
    std::vector<std::vector<double>> basis(static_cast<std::size_t>(n));
    for (int k = 0; k < n; ++k) {
      CalibrationGrid unit = CalibrationGrid::zero(w, h);
      unit.points[static_cast<std::size_t>(k)][static_cast<std::size_t>(axis)] = 1;
      const CalibrationMap m(unit, w, h);
      auto& b = basis[static_cast<std::size_t>(k)];
      b.resize(samples.size());
      for (std::size_t s = 0; s < samples.size(); ++s)
        b[s] = m.displacement(samples[s][0] / l.cell_w, samples[s][1] / l.cell_h)[static_cast<std::size_t>(axis)];
    }
    std::vector<double> target(samples.size());
    const double cell = axis == 0 ? l.cell_w : l.cell_h;
    for (std::size_t s = 0; s < samples.size(); ++s)
      target[s] = (model.project(samples[s][0], samples[s][1])[static_cast<std::size_t>(axis)] - samples[s][static_cast<std::size_t>(axis)]) / cell;
    std::vector<double> ata(static_cast<std::size_t>(n * n), 0), atb(static_cast<std::size_t>(n), 0);
    for (int i = 0; i < n; ++i) {
      const auto& bi = basis[static_cast<std::size_t>(i)];
      for (int k = i; k < n; ++k) {
        const auto& bk = basis[static_cast<std::size_t>(k)];
        double sum = 0;
        for (std::size_t s = 0; s < samples.size(); ++s) sum += bi[s] * bk[s];
        ata[static_cast<std::size_t>(i * n + k)] = ata[static_cast<std::size_t>(k * n + i)] = sum;
      }
      double sum = 0;
      for (std::size_t s = 0; s < samples.size(); ++s) sum += bi[s] * target[s];
      atb[static_cast<std::size_t>(i)] = sum + pull * nodes.points[static_cast<std::size_t>(i)][static_cast<std::size_t>(axis)];
      ata[static_cast<std::size_t>(i * n + i)] += pull;
    }
    if (!solve(ata, atb, n)) return nodes;
    for (int k = 0; k < n; ++k) out.points[static_cast<std::size_t>(k)][static_cast<std::size_t>(axis)] = atb[static_cast<std::size_t>(k)];
  }
  return out;
}

}  // namespace

std::vector<SheetDot> sheet_dots(int width, int height) {
  const GridLayout l = grid_layout(width, height);
  std::vector<SheetDot> dots;
  for (int r = 0; r < l.gy; ++r)
    for (int c = 0; c < l.gx; ++c) dots.push_back({c, r, static_cast<double>(c * l.cell_w), static_cast<double>(r * l.cell_h)});
  return dots;
}

double sheet_dot_radius(int width, int height) {
  const GridLayout l = grid_layout(width, height);
  return std::min(l.cell_w, l.cell_h) / 6.0;
}

std::array<double, 2> CameraModel::project(double x, double y) const {
  const double w = h[6] * x + h[7] * y + h[8];
  const double hx = (h[0] * x + h[1] * y + h[2]) / w, hy = (h[3] * x + h[4] * y + h[5]) / w;
  const double dx = hx - cx, dy = hy - cy, s2 = (dx * dx + dy * dy) / (scale * scale);
  const double f = 1 + k1 * s2 + k2 * s2 * s2;
  return {cx + dx * f, cy + dy * f};
}

CalibrationFit fit_calibration(HostView<const std::uint8_t> frame) {
  require(frame.channels == 1, "calibrate: the frame must be 8-bit grey");
  const int w = frame.width, h = frame.height;
  const GridLayout l = grid_layout(w, h);
  const std::vector<SheetDot> sheet = sheet_dots(w, h);
  const auto dots = find_dots(frame, sheet_dot_radius(w, h));
  CalibrationFit fit;
  fit.dots_expected = static_cast<int>(sheet.size());
  fit.model.cx = w / 2.0;
  fit.model.cy = h / 2.0;
  fit.model.scale = std::hypot(w, h) / 2;
  const double reach = 0.45 * std::min(l.cell_w, l.cell_h);
  auto too_few = [&](std::size_t n) {
    fail(ErrorCode::invalid_argument, "calibrate: found " + std::to_string(dots.size()) + " dots and matched " + std::to_string(n) +
                                          " of the sheet's " + std::to_string(sheet.size()) +
                                          " (12 or more needed): is the whole sheet in view, flat, evenly lit, and printed "
                                          "for this camera size (gpuvis calibrate sheet --camera " +
                                          std::to_string(w) + "x" + std::to_string(h) + ")?");
  };
  std::vector<Match> ms = match(sheet, dots, fit.model, reach);
  if (ms.size() < 12) too_few(ms.size());
  // Homography, then the full model, re-matching with each better model (a sheet placed a little
  // off or turned still finds all its dots).
  for (int round = 0; round < 3; ++round) {
    fit_homography(ms, fit.model, std::max(w, h));
    fit.model.k1 = fit.model.k2 = 0;
    refine(ms, fit.model);
    const auto again = match(sheet, dots, fit.model, reach);
    if (again.size() < 12) too_few(again.size());
    const bool same = again.size() == ms.size();
    ms = again;
    if (same && round > 0) break;
  }
  std::set<double> rows, cols;
  double sum = 0;
  for (const auto& m : ms) {
    const auto p = fit.model.project(m.tx, m.ty);
    const double e = std::hypot(p[0] - m.px, p[1] - m.py);
    sum += e * e;
    fit.max_px = std::max(fit.max_px, e);
    rows.insert(m.ty);
    cols.insert(m.tx);
  }
  if (rows.size() < 3 || cols.size() < 3) too_few(ms.size());
  fit.dots_used = static_cast<int>(ms.size());
  fit.rms_px = std::sqrt(sum / static_cast<double>(ms.size()));
  fit.grid = fit_grid(fit.model, w, h);
  return fit;
}

}  // namespace gpuvis::calibration

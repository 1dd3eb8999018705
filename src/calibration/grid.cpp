// reacTIVision's calibration grid (spec §9.5): the file, the grid's interpolation, its integer
// distortion map, and the continuous inverse applied to detections.
#include "gpuvis/calibration/grid.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "gpuvis/core/error.hpp"
#include "gpuvis/io/read_limited.hpp"
#include "gpuvis/io/text_file.hpp"

namespace gpuvis::calibration {
namespace {

constexpr double kPi = 3.141592653589793238462643383279502884;
// A grid for a 4K camera has 15 x 7 points; no real grid file comes near this.
constexpr std::size_t kMaxGridBytes = 1 << 20;

// reacTIVision's Catmull-Rom through v1..v4, at t in [0, 1) between v2 and v3.
double catmull_rom(double v1, double v2, double v3, double v4, double t) {
  return v2 + t * (-0.5 * v1 + 0.5 * v3) + t * t * (v1 - 2.5 * v2 + 2 * v3 - 0.5 * v4) +
         t * t * t * (-0.5 * v1 + 1.5 * v2 - 1.5 * v3 + 0.5 * v4);
}

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

}  // namespace

GridLayout grid_layout(int width, int height) {
  if (width < 6 || height < 6) fail(ErrorCode::invalid_argument, "calibration grid: the frame is too small (" +
                                                                     std::to_string(width) + "x" + std::to_string(height) + ")");
  GridLayout g;
  const double aspect = static_cast<double>(width) / height;
  g.gx = 7 + (aspect > 1.3 ? 2 : 0) + (aspect > 1.7 ? 2 : 0);
  g.gy = 7;
  g.cell_w = width / (g.gx - 1);
  g.cell_h = height / (g.gy - 1);
  return g;
}

CalibrationGrid CalibrationGrid::read(const std::string& path) {
  return parse(read_limited(path, kMaxGridBytes, "calibration grid"), path);
}

CalibrationGrid CalibrationGrid::parse(const std::string& text, const std::string& path) {
  CalibrationGrid grid;
  std::istringstream lines(text);
  std::string line;
  std::vector<double> values;
  for (int number = 1; std::getline(lines, line); ++number) {
    std::istringstream words(line);
    std::string word;
    while (words >> word) {
      char* end = nullptr;
      const double v = std::strtod(word.c_str(), &end);
      if (end == word.c_str() || *end != 0 || !std::isfinite(v))
        fail(ErrorCode::format, path + ":" + std::to_string(number) + ": '" + word +
                                    "' is not a number (a calibration grid holds 'dx dy' pairs of numbers)");
      if (std::abs(v) > kMaxDisplacement)
        fail(ErrorCode::format, path + ":" + std::to_string(number) + ": " + word + " cells is not a displacement a calibration has (at most " +
                                    std::to_string(static_cast<int>(kMaxDisplacement)) + ")");
      if (values.size() >= 2 * 4096) fail(ErrorCode::format, path + ": more than 4096 pairs: not a calibration grid");
      values.push_back(v);
    }
  }
  if (values.size() % 2 != 0)
    fail(ErrorCode::format, path + ": " + std::to_string(values.size()) + " numbers, an odd count: the last pair is incomplete");
  for (std::size_t i = 0; i < values.size(); i += 2) grid.points.push_back({values[i], values[i + 1]});
  return grid;
}

void CalibrationGrid::write(const std::string& path) const {
  std::string text;
  for (const auto& p : points) text += fmt(p[0]) + " " + fmt(p[1]) + "\n";
  write_file_atomically(path, text);
}

CalibrationGrid CalibrationGrid::zero(int width, int height) {
  CalibrationGrid g;
  g.points.assign(static_cast<std::size_t>(grid_layout(width, height).entries()), Displacement{0, 0});
  return g;
}

bool CalibrationGrid::is_zero() const {
  for (const auto& p : points)
    if (p[0] != 0 || p[1] != 0) return false;
  return true;
}

CalibrationMap::CalibrationMap(const CalibrationGrid& grid, int width, int height)
    : layout_(grid_layout(width, height)), width_(width), height_(height), points_(grid.points), identity_(grid.is_zero()) {
  if (static_cast<int>(points_.size()) != layout_.entries())
    fail(ErrorCode::invalid_argument,
         "calibration grid: " + std::to_string(points_.size()) + " points, but a " + std::to_string(width) + "x" +
             std::to_string(height) + " frame needs " + std::to_string(layout_.entries()) + " (a " + std::to_string(layout_.gx) +
             "x" + std::to_string(layout_.gy) + " grid as reacTIVision writes it): was the grid made for another camera size?");
}

const Displacement& CalibrationMap::at(int index) const {
  static constexpr Displacement kZero{0, 0};
  return index >= 0 && index < static_cast<int>(points_.size()) ? points_[static_cast<std::size_t>(index)] : kZero;
}

// One component of G: x (axis 0) is a Catmull-Rom down each of the two neighbouring columns,
// blended linearly across; y (axis 1) a Catmull-Rom along each of the two neighbouring rows,
// blended linearly down. Points are read from the flat array with stride gx, so the column after
// the last (index gx) is the next row's first point, as in reacTIVision.
double CalibrationMap::component(int axis, double u, double v) const {
  const int gx = layout_.gx, gy = layout_.gy;
  u = std::clamp(u, 0.0, static_cast<double>(gx));
  v = std::clamp(v, 0.0, static_cast<double>(gy));
  const int cu = static_cast<int>(u), rv = static_cast<int>(v);
  const double fu = u - cu, fv = v - rv;
  auto value = [&](int c, int r) { return at(r * gx + c)[static_cast<std::size_t>(axis)]; };
  if (axis == 0) {
    auto down_column = [&](int c) {
      const double v2 = value(c, rv), v3 = value(c, rv + 1);
      const double v1 = rv == 0 ? v2 : value(c, rv - 1);
      const double v4 = rv >= gy - 2 ? v3 : value(c, rv + 2);
      return catmull_rom(v1, v2, v3, v4, fv);
    };
    const double a = down_column(cu), b = down_column(cu + 1);
    return a + (b - a) * fu;
  }
  auto along_row = [&](int r) {
    const double v2 = value(cu, r), v3 = value(cu + 1, r);
    const double v1 = cu == 0 ? v2 : value(cu - 1, r);
    const double v4 = cu >= gx - 2 ? v3 : value(cu + 2, r);
    return catmull_rom(v1, v2, v3, v4, fu);
  };
  const double a = along_row(rv), b = along_row(rv + 1);
  return a + (b - a) * fv;
}

Displacement CalibrationMap::displacement(double u, double v) const {
  if (identity_) return {0, 0};
  return {component(0, u, v), component(1, u, v)};
}

std::vector<std::array<int, 2>> CalibrationMap::distortion_map() const {
  const std::size_t w = static_cast<std::size_t>(width_), h = static_cast<std::size_t>(height_);
  std::vector<std::array<int, 2>> map(w * h, {0, 0});
  if (identity_) {
    for (std::size_t y = 0; y < h; ++y)
      for (std::size_t x = 0; x < w; ++x) map[y * w + x] = {static_cast<int>(x), static_cast<int>(y)};
    return map;
  }
  const double cw = layout_.cell_w, ch = layout_.cell_h;
  // Undistorted samples every half pixel, each written at the camera pixel it lands on (later
  // samples overwrite earlier ones); casts truncate toward zero, as reacTIVision's do.
  for (int y2 = 0; y2 < 2 * height_; ++y2) {
    const double y = 0.5 * y2;
    for (int x2 = 0; x2 < 2 * width_; ++x2) {
      const double x = 0.5 * x2;
      const Displacement d = displacement(x / cw, y / ch);
      const int dx = static_cast<int>(x + 0.5 + d[0] * cw), dy = static_cast<int>(y + 0.5 + d[1] * ch);
      if (dx >= 0 && dx < width_ && dy >= 0 && dy < height_)
        map[static_cast<std::size_t>(dy) * w + static_cast<std::size_t>(dx)] = {static_cast<int>(x), static_cast<int>(y)};
    }
  }
  return map;
}

std::array<double, 2> CalibrationMap::undistort(double x, double y) const {
  if (identity_) return {x, y};
  const double cw = layout_.cell_w, ch = layout_.cell_h;
  // Fixed-point iteration u <- p - G(u) * cell: a contraction wherever the grid's displacement
  // changes by less than a cell per cell, which any grid that keeps the table's points in order does.
  double ux = x, uy = y;
  for (int i = 0; i < 50; ++i) {
    const Displacement d = displacement(ux / cw, uy / ch);
    const double nx = x - d[0] * cw, ny = y - d[1] * ch;
    const double change = std::abs(nx - ux) + std::abs(ny - uy);
    ux = nx;
    uy = ny;
    if (change < 1e-9) break;
  }
  return {ux, uy};
}

std::array<double, 2> CalibrationMap::distort(double x, double y) const {
  if (identity_) return {x, y};
  const Displacement d = displacement(x / layout_.cell_w, y / layout_.cell_h);
  return {x + d[0] * layout_.cell_w, y + d[1] * layout_.cell_h};
}

void CalibrationMap::apply(decode::Detections& d) const {
  if (identity_) return;
  auto move = [&](double& x, double& y) {
    const auto u = undistort(x, y);
    x = u[0];
    y = u[1];
  };
  for (auto& f : d.fiducials) {
    // The angle points from the black leaves' centre to the symbol's centre, turned by -90°; the
    // direction is carried through the map's Jacobian at the centre (central differences).
    const double h = 0.5;
    const auto px0 = undistort(f.x - h, f.y), px1 = undistort(f.x + h, f.y);
    const auto py0 = undistort(f.x, f.y - h), py1 = undistort(f.x, f.y + h);
    const double dx = -std::sin(f.angle), dy = std::cos(f.angle);
    const double jx = ((px1[0] - px0[0]) * dx + (py1[0] - py0[0]) * dy) / (2 * h);
    const double jy = ((px1[1] - px0[1]) * dx + (py1[1] - py0[1]) * dy) / (2 * h);
    double a = std::atan2(jy, jx) - kPi / 2;
    if (a < 0) a += 2 * kPi;
    f.angle = a >= 2 * kPi ? 0.0 : a;
    move(f.x, f.y);
    move(f.root_x, f.root_y);
  }
  for (auto& r : d.roots) move(r.x, r.y);
  for (auto& f : d.fingers) move(f.x, f.y);
  for (auto& b : d.blobs) move(b.x, b.y);
  for (auto& b : d.fiducial_blobs) move(b.x, b.y);
  for (auto& b : d.root_blobs) move(b.x, b.y);
}

}  // namespace gpuvis::calibration

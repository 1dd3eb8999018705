// reacTIVision's calibration grid (spec §9.5): layout, interpolation and distortion map against
// cases worked by hand from the spec, the continuous inverse against the integer map, the file,
// and detections moved through a grid that shifts and one that bends.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iostream>
#include <random>

#include "gpuvis/core/error.hpp"
#include "gpuvis/calibration/grid.hpp"
#include "gpuvis/calibration/fit.hpp"
#include "gpuvis/pipeline/detector.hpp"
#include "gpuvis/synth/scene.hpp"
#include "test_support.hpp"

using namespace gpuvis;
using calibration::CalibrationGrid;
using calibration::CalibrationMap;

namespace {

constexpr double kPi = 3.141592653589793238462643383279502884;

// A grid with one point (c, r) displaced.
CalibrationGrid one_point(int width, int height, int c, int r, double dx, double dy) {
  CalibrationGrid g = CalibrationGrid::zero(width, height);
  g.points[static_cast<std::size_t>(r * calibration::grid_layout(width, height).gx + c)] = {dx, dy};
  return g;
}

// Every entry the same: G is that displacement everywhere.
CalibrationGrid constant(int width, int height, double dx, double dy) {
  CalibrationGrid g = CalibrationGrid::zero(width, height);
  for (auto& p : g.points) p = {dx, dy};
  return g;
}

double angle_diff(double a, double b) {
  const double d = std::fmod(std::abs(a - b), 2 * kPi);
  return std::min(d, 2 * kPi - d);
}

}  // namespace

TEST(Calibration, GridLayoutFollowsTheSpec) {
  auto l = calibration::grid_layout(640, 480);  // W/H 1.33: 9 x 7
  EXPECT_EQ(l.gx, 9);
  EXPECT_EQ(l.gy, 7);
  EXPECT_EQ(l.cell_w, 80);
  EXPECT_EQ(l.cell_h, 80);
  EXPECT_EQ(l.entries(), 80);
  l = calibration::grid_layout(1920, 1080);  // 1.78: 11 x 7
  EXPECT_EQ(l.gx, 11);
  EXPECT_EQ(l.cell_w, 192);
  EXPECT_EQ(l.cell_h, 180);
  l = calibration::grid_layout(480, 480);
  EXPECT_EQ(l.gx, 7);
  EXPECT_EQ(l.cell_w, 80);
  EXPECT_THROW(calibration::grid_layout(4, 4), Error);
}

TEST(Calibration, EmptyGridIsTheIdentity) {
  const CalibrationMap map(CalibrationGrid::zero(64, 48), 64, 48);
  EXPECT_TRUE(map.identity());
  const auto dmap = map.distortion_map();
  for (int y = 0; y < 48; ++y)
    for (int x = 0; x < 64; ++x) ASSERT_EQ(dmap[static_cast<std::size_t>(y * 64 + x)], (std::array<int, 2>{x, y}));
  const auto u = map.undistort(12.25, 30.5);
  EXPECT_EQ(u[0], 12.25);
  EXPECT_EQ(u[1], 30.5);
}

// G(u, v) for single displaced points, worked by hand from §9.5's Catmull-Rom
// v2 + t(-v1/2 + v3/2) + t^2(v1 - 2.5 v2 + 2 v3 - v4/2) + t^3(-v1/2 + 1.5 v2 - 1.5 v3 + v4/2).
TEST(Calibration, InterpolationMatchesCasesWorkedFromTheSpec) {
  {
    const CalibrationMap m(one_point(640, 480, 4, 3, 0.2, -0.1), 640, 480);
    EXPECT_DOUBLE_EQ(m.displacement(4, 3)[0], 0.2);
    EXPECT_DOUBLE_EQ(m.displacement(4, 3)[1], -0.1);
    // x: Catmull-Rom down column 4 at t = 0.5 through (0, 0.2, 0, 0) = 0.2 - 0.125 + 0.0375.
    EXPECT_NEAR(m.displacement(4, 3.5)[0], 0.1125, 1e-15);
    // x across columns is linear: halfway to column 5.
    EXPECT_NEAR(m.displacement(4.5, 3)[0], 0.1, 1e-15);
    EXPECT_NEAR(m.displacement(4.5, 3.5)[0], 0.05625, 1e-15);
    // y: Catmull-Rom along row 3 at t = 0.5 through (0, -0.1, 0, 0).
    EXPECT_NEAR(m.displacement(4.5, 3)[1], -0.05625, 1e-15);
    // y down rows is linear.
    EXPECT_NEAR(m.displacement(4, 3.5)[1], -0.05, 1e-15);
  }
  {
    // First interval: v1 is v2. Along row 2 from column 0: (0, 0, 0.3, 0) at t = 0.5.
    const CalibrationMap m(one_point(640, 480, 1, 2, 0, 0.3), 640, 480);
    EXPECT_NEAR(m.displacement(0.5, 2)[1], 0.075 + 0.15 - 0.05625, 1e-15);
  }
  {
    // Last intervals (index >= size - 2): v4 is v3. Along row 2 at column 7.5: (0, 0, 0.3, 0.3).
    const CalibrationMap m(one_point(640, 480, 8, 2, 0, 0.3), 640, 480);
    EXPECT_NEAR(m.displacement(7.5, 2)[1], 0.075 + 0.1125 - 0.0375, 1e-15);
  }
  {
    // Column gx is read from the flat array with stride gx: it is the next row's first point.
    // 650 px wide: 9 x 7 points, 81-px cells, so the last pixel columns reach u = 8.02.
    const CalibrationMap m(one_point(650, 480, 0, 4, 0.5, 0), 650, 480);
    EXPECT_NEAR(m.displacement(8.5, 3)[0], 0.25, 1e-15);
  }
}

// A grid displaced by (0.125, -0.0625) cells everywhere (binary fractions: no rounding anywhere)
// is a shift by (10, -5) px at 640x480: the distortion map sends camera pixel (x, y) to
// (x - 10, y + 5), worked through §9.5's half-pixel sampling and truncation; camera columns 0-9
// and rows 476-479 are never hit and stay (0, 0), and row 475's last sample is the frame's last
// half-pixel row (y = 479.5, truncated to 479).
TEST(Calibration, DistortionMapOfAShiftedGrid) {
  const CalibrationMap m(constant(640, 480, 0.125, -0.0625), 640, 480);
  const auto dmap = m.distortion_map();
  for (int y = 0; y < 480; ++y)
    for (int x = 0; x < 640; ++x) {
      const auto e = dmap[static_cast<std::size_t>(y * 640 + x)];
      if (x >= 10 && y <= 474) ASSERT_EQ(e, (std::array<int, 2>{x - 10, y + 5})) << x << "," << y;
      else if (x >= 10 && y == 475) ASSERT_EQ(e, (std::array<int, 2>{x - 10, 479})) << x << "," << y;
      else ASSERT_EQ(e, (std::array<int, 2>{0, 0})) << x << "," << y;
    }
  const auto u = m.undistort(100.25, 200.75);
  EXPECT_NEAR(u[0], 90.25, 1e-9);
  EXPECT_NEAR(u[1], 205.75, 1e-9);
}

// The continuous inverse that gpuvis applies is the point the grid sends to p, and lies within the
// integer map's own quantisation of it wherever the map has an entry: half a pixel of sampling and
// half of truncation, stretched by the grid's local scale, and the last of the half-pixel rows
// that reach a camera pixel decides its entry.
TEST(Calibration, ContinuousInverseAgreesWithTheDistortionMap) {
  for (const auto& [w, h] : {std::pair{640, 480}, std::pair{1280, 720}, std::pair{650, 490}}) {
    SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
    const CalibrationMap m(test::bent_grid(w, h), w, h);
    const auto l = m.layout();
    const auto dmap = m.distortion_map();
    double worst = 0;
    int mapped = 0;
    for (int y = 0; y < h; y += 3)
      for (int x = 0; x < w; x += 3) {
        const auto e = dmap[static_cast<std::size_t>(y * w + x)];
        if (e[0] == 0 && e[1] == 0) continue;
        ++mapped;
        const auto u = m.undistort(x, y);
        worst = std::max({worst, std::abs(u[0] - e[0]), std::abs(u[1] - e[1])});
        const auto g = m.displacement(u[0] / l.cell_w, u[1] / l.cell_h);
        ASSERT_NEAR(u[0] + g[0] * l.cell_w, x, 1e-6);
        ASSERT_NEAR(u[1] + g[1] * l.cell_h, y, 1e-6);
        // distort() takes the undistorted point back to the camera (the second look's expected
        // places of tracked symbols).
        const auto p = m.distort(u[0], u[1]);
        ASSERT_NEAR(p[0], x, 1e-6);
        ASSERT_NEAR(p[1], y, 1e-6);
      }
    EXPECT_GT(mapped, w * h / 9 / 2);
    EXPECT_LE(worst, 1.25);
  }
}

TEST(Calibration, FileRoundTripAndErrors) {
  const CalibrationGrid g = test::bent_grid(640, 480);
  const std::string path = test::temp_path("calibration.grid");
  g.write(path);
  const CalibrationGrid back = CalibrationGrid::read(path);
  ASSERT_EQ(back.points.size(), 80u);
  for (std::size_t i = 0; i < g.points.size(); ++i) EXPECT_EQ(back.points[i], g.points[i]);
  std::ifstream in(path);
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) ++lines;
  EXPECT_EQ(lines, 80) << "one pair per line, as reacTIVision writes it";

  auto message = [](const std::string& text) {
    const std::string p = test::temp_path("bad.grid");
    std::ofstream(p) << text;
    try {
      CalibrationMap(CalibrationGrid::read(p), 640, 480);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message("0 0\n0 0\n0 zero\n").find("bad.grid:3: 'zero' is not a number"), std::string::npos);
  EXPECT_NE(message("0 0\n0\n").find("odd count"), std::string::npos);
  EXPECT_NE(message("0 0\n0 0\n").find("another camera size"), std::string::npos);
  EXPECT_THROW(CalibrationGrid::read(test::temp_path("absent.grid")), Error);
}

// Detections move through the grid: a shifted grid moves every fiducial, finger and blob by the
// same (8, -4) px and keeps the angles; a shearing grid turns the angles as its Jacobian says.
TEST(Calibration, DetectorMovesDetectionsThroughTheGrid) {
  synth::Generator gen(test::symbols_dir());
  synth::SceneParams sp;
  sp.symbols = 6;
  sp.fingers = 2;
  sp.min_size = 80;
  sp.seed = 21;
  const auto scene = gen.make(sp);
  pipeline::DetectorParams config;
  config.fingers.size = 18;
  config.blobs.max_size = 40000;
  config.blobs.min_size = 100;
  pipeline::Detector plain(config);
  const auto d0 = plain.detect(scene.image.view());
  ASSERT_GE(d0.fiducials.size(), 4u);
  ASSERT_GE(d0.fingers.size(), 1u);

  config.calibration = constant(640, 480, 0.1, -0.05);
  pipeline::Detector shifted(config);
  const auto d1 = shifted.detect(scene.image.view());
  ASSERT_EQ(d1.fiducials.size(), d0.fiducials.size());
  for (std::size_t i = 0; i < d0.fiducials.size(); ++i) {
    EXPECT_EQ(d1.fiducials[i].id, d0.fiducials[i].id);
    EXPECT_NEAR(d1.fiducials[i].x, d0.fiducials[i].x - 8, 1e-9);
    EXPECT_NEAR(d1.fiducials[i].y, d0.fiducials[i].y + 4, 1e-9);
    EXPECT_LT(angle_diff(d1.fiducials[i].angle, d0.fiducials[i].angle), 1e-9);
  }
  ASSERT_EQ(d1.fingers.size(), d0.fingers.size());
  for (std::size_t i = 0; i < d0.fingers.size(); ++i) {
    EXPECT_NEAR(d1.fingers[i].x, d0.fingers[i].x - 8, 1e-9);
    EXPECT_NEAR(d1.fingers[i].y, d0.fingers[i].y + 4, 1e-9);
    EXPECT_EQ(d1.fingers[i].width, d0.fingers[i].width);
  }
  ASSERT_EQ(d1.blobs.size(), d0.blobs.size());
  for (std::size_t i = 0; i < d0.blobs.size(); ++i) EXPECT_NEAR(d1.blobs[i].x, d0.blobs[i].x - 8, 1e-9);

  // Shear: column displacement 0.1 cell per row, i.e. camera x = u_x + 0.1 u_y in the grid's
  // interior rows (Catmull-Rom reproduces a linear ramp there), so table x = camera x - 0.1 y
  // and a direction (dx, dy) turns into (dx - 0.1 dy, dy).
  CalibrationGrid shear = CalibrationGrid::zero(640, 480);
  for (int i = 0; i < 80; ++i) shear.points[static_cast<std::size_t>(i)] = {0.1 * (i / 9), 0};
  config.calibration = shear;
  pipeline::Detector sheared(config);
  const auto d2 = sheared.detect(scene.image.view());
  int checked = 0;
  for (std::size_t i = 0; i < d0.fiducials.size(); ++i) {
    const auto& f = d0.fiducials[i];
    if (f.y < 100 || f.y > 380) continue;  // rows 1-5 of the grid, clear of the end intervals
    ++checked;
    EXPECT_NEAR(d2.fiducials[i].x, f.x - 0.1 * f.y, 1e-6);
    EXPECT_NEAR(d2.fiducials[i].y, f.y, 1e-9);
    const double dx = -std::sin(f.angle), dy = std::cos(f.angle);
    double want = std::atan2(dy, dx - 0.1 * dy) - kPi / 2;
    if (want < 0) want += 2 * kPi;
    EXPECT_LT(angle_diff(d2.fiducials[i].angle, want), 1e-6);
    EXPECT_GT(angle_diff(d2.fiducials[i].angle, f.angle), 1e-4) << "a shear turns every direction but the horizontal";
  }
  EXPECT_GE(checked, 2);

  // A grid made for another camera size is refused on the first frame.
  config.calibration = CalibrationGrid::zero(1280, 720);
  config.calibration->points[0] = {0.1, 0};
  pipeline::Detector wrong(config);
  EXPECT_THROW(wrong.detect(scene.image.view()), Error);
}

namespace {

// A camera's view of the calibration sheet: camera pixel -> table pixel through a wide-angle lens
// (radial, 3 % at the corners), a turn of 1.5 degrees, a 4 % larger view and an offset of
// (6, -4) px; the sheet's dots anti-aliased (4 x 4 samples per pixel), uneven light, sensor noise.
struct SheetView {
  int width = 640, height = 480;
  std::array<double, 2> table_of(double px, double py) const {
    const double cx = width / 2.0, cy = height / 2.0, th = 1.5 * kPi / 180;
    const double dx = px - cx, dy = py - cy, f = 1 + 0.03 * (dx * dx + dy * dy) / (400.0 * 400.0);
    const double qx = dx * f, qy = dy * f;
    return {(std::cos(th) * qx + std::sin(th) * qy) * 1.04 + cx + 6, (-std::sin(th) * qx + std::cos(th) * qy) * 1.04 + cy - 4};
  }
  Image<std::uint8_t> render(std::uint32_t seed) const {
    const double radius = calibration::sheet_dot_radius(width, height);
    const auto l = calibration::grid_layout(width, height);
    Image<std::uint8_t> img(width, height);
    std::mt19937 rng(seed);
    std::normal_distribution<double> noise(0, 2.0);
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) {
        double sum = 0;
        for (int i = 0; i < 4; ++i)
          for (int j = 0; j < 4; ++j) {
            const auto t = table_of(x + (i + 0.5) / 4 - 0.5, y + (j + 0.5) / 4 - 0.5);
            const double c = std::round(t[0] / l.cell_w), r = std::round(t[1] / l.cell_h);
            const bool ink = std::hypot(t[0] - c * l.cell_w, t[1] - r * l.cell_h) <= radius;
            sum += ink ? 30 : 215;
          }
        const double light = 0.8 + 0.2 * x / width;
        img(x, y) = static_cast<std::uint8_t>(std::clamp(std::lround(sum / 16 * light + noise(rng)), 0L, 255L));
      }
    return img;
  }
};

}  // namespace

// gpuvis's automatic calibration on a generated camera frame of the sheet: the grid it writes
// undoes the known distortion to within half a pixel everywhere inside the outer half cells.
TEST(Calibration, FitFromACameraFrameOfTheSheet) {
  const SheetView view;
  const auto frame = view.render(5);
  const calibration::CalibrationFit fit = calibration::fit_calibration(frame.view());
  EXPECT_EQ(fit.dots_expected, 63);
  EXPECT_GE(fit.dots_used, 30) << "every dot whole inside the frame";
  EXPECT_LT(fit.rms_px, 0.15);
  const CalibrationMap map(fit.grid, 640, 480);
  const auto l = map.layout();
  double worst = 0, worst_edge = 0;
  for (int y = 0; y < 480; y += 4)
    for (int x = 0; x < 640; x += 4) {
      const auto truth = view.table_of(x, y);
      const auto u = map.undistort(x, y);
      const double e = std::hypot(u[0] - truth[0], u[1] - truth[1]);
      if (truth[0] < 0 || truth[0] >= 640 || truth[1] < 0 || truth[1] >= 480) continue;  // beyond the table
      const bool inner = truth[0] > l.cell_w / 2.0 && truth[0] < 640 - l.cell_w / 2.0 && truth[1] > l.cell_h / 2.0 &&
                         truth[1] < 480 - l.cell_h / 2.0;
      (inner ? worst : worst_edge) = std::max(inner ? worst : worst_edge, e);
    }
  std::cout << "calibration fit: " << fit.dots_used << " dots, model rms " << fit.rms_px << " px (max " << fit.max_px
            << "); undistorted vs truth: max " << worst << " px inside, " << worst_edge << " px in the outer half cells\n";
  EXPECT_LE(worst, 0.5);
  EXPECT_LE(worst_edge, 0.5);

  // A frame without the sheet is a one-line error saying what to check.
  Image<std::uint8_t> blank(640, 480);
  for (int y = 0; y < 480; ++y)
    for (int x = 0; x < 640; ++x) blank(x, y) = 200;
  try {
    calibration::fit_calibration(blank.view());
    ADD_FAILURE() << "no error for a blank frame";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("is the whole sheet in view"), std::string::npos) << e.what();
  }
}

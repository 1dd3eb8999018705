// Fingers and blobs: oriented-box geometry on drawn shapes, and finger detection on generated
// scenes (found, and never on symbols).
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "gpuvis/decode/blobs.hpp"
#include "gpuvis/io/image_file.hpp"
#include "gpuvis/pipeline/detector.hpp"
#include "gpuvis/synth/scene.hpp"
#include "test_support.hpp"
#include "segment/cpu/segment.hpp"

using namespace gpuvis;

namespace {
// A white filled rotated rectangle (or ellipse) on black.
Image<std::uint8_t> shape(int w, int h, double cx, double cy, double a, double b, double angle, bool ellipse) {
  Image<std::uint8_t> img(w, h);
  const double c = std::cos(angle), s = std::sin(angle);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const double dx = x - cx, dy = y - cy, u = dx * c + dy * s, v = -dx * s + dy * c;
      const bool in = ellipse ? (u * u / (a * a) + v * v / (b * b) <= 1) : (std::abs(u) <= a && std::abs(v) <= b);
      img(x, y) = in ? 255 : 0;
    }
  return img;
}
int white_region(const segment::RegionTree& t) {
  for (int r = 0; r < t.size(); ++r)
    if (t.colour[r] == 255) return r;
  return -1;
}
}  // namespace

TEST(Blobs, AxisAlignedRectangleHasItsPixelSize) {
  Image<std::uint8_t> img(40, 30);
  img.fill(0);
  for (int y = 5; y < 15; ++y)
    for (int x = 8; x < 28; ++x) img(x, y) = 255;  // 20 x 10 pixels
  segment::RegionTree t;
  segment::segment_cpu(img.view(), 19, t);
  const auto g = decode::blob_geometry(t, white_region(t));
  ASSERT_TRUE(g.ok);
  EXPECT_NEAR(g.width, 20, 1e-9);
  EXPECT_NEAR(g.height, 10, 1e-9);
  EXPECT_NEAR(g.x, 17.5, 1e-9);
  EXPECT_NEAR(g.y, 9.5, 1e-9);
  EXPECT_NEAR(std::min(g.angle, std::numbers::pi - g.angle), 0, 1e-9);
}

TEST(Blobs, RotatedRectangleAngleAndSides) {
  for (double deg : {15.0, 40.0, 75.0, 120.0, 160.0}) {
    const double a = deg * std::numbers::pi / 180;
    const auto img = shape(120, 120, 60, 60, 30, 10, a, false);
    segment::RegionTree t;
    segment::segment_cpu(img.view(), 19, t);
    const auto g = decode::blob_geometry(t, white_region(t));
    ASSERT_TRUE(g.ok);
    EXPECT_NEAR(g.width, 61, 2.5) << deg;
    EXPECT_NEAR(g.height, 21, 2.5) << deg;
    EXPECT_NEAR(g.angle, a, 0.05) << deg;
    EXPECT_NEAR(g.x, 60, 0.5) << deg;
    EXPECT_NEAR(g.y, 60, 0.5) << deg;
  }
}

TEST(Blobs, FingerScoreSeparatesDiscsFromOtherShapes) {
  segment::RegionTree t;
  const auto disc = shape(60, 60, 30, 30, 9, 9, 0, true);
  segment::segment_cpu(disc.view(), 19, t);
  int r = white_region(t);
  EXPECT_LT(decode::finger_score(t, r, decode::blob_geometry(t, r)), 0.75 / 4);
  // An L shape: low fill of its box.
  Image<std::uint8_t> l(60, 60);
  l.fill(0);
  for (int y = 10; y < 50; ++y)
    for (int x = 10; x < 50; ++x)
      if (x < 18 || y > 42) l(x, y) = 255;
  segment::segment_cpu(l.view(), 19, t);
  r = white_region(t);
  EXPECT_GE(decode::finger_score(t, r, decode::blob_geometry(t, r)), 0.75 / 4);
}

TEST(Fingers, FoundInScenesAndNeverOnSymbols) {
  if (!codec::available()) GTEST_SKIP() << "needs PNG support to read the printed symbols";
  synth::Generator gen(test::source_path("data/amoeba/symbols"));
  pipeline::DetectorParams cfg;
  cfg.fingers.size = 18;
  pipeline::Detector det(cfg);
  int total = 0, found = 0, on_symbols = 0, extra = 0;
  for (int i = 0; i < 40; ++i) {
    synth::SceneParams q;
    q.symbols = 6;
    q.fingers = 5;
    q.blur = 1.0;
    q.noise = 4;
    q.seed = 500 + static_cast<std::uint32_t>(i) * 13u;
    const auto scene = gen.make(q);
    const auto& d = det.detect(scene.image.view());
    std::vector<bool> used(scene.fingers.size(), false);
    for (const auto& f : d.fingers) {
      bool matched = false;
      for (std::size_t k = 0; k < scene.fingers.size(); ++k)
        if (!used[k] && std::hypot(scene.fingers[k].x - f.x, scene.fingers[k].y - f.y) < scene.fingers[k].size / 2) {
          used[k] = matched = true;
          break;
        }
      if (matched) continue;
      bool inside_symbol = false;
      for (const auto& s : scene.symbols) inside_symbol = inside_symbol || std::hypot(s.x - f.x, s.y - f.y) < s.size * 0.75;
      on_symbols += inside_symbol;
      extra += !inside_symbol;
    }
    total += static_cast<int>(scene.fingers.size());
    found += static_cast<int>(std::count(used.begin(), used.end(), true));
  }
  std::cout << "fingers: " << found << "/" << total << " found, " << on_symbols << " on symbols, " << extra << " elsewhere\n";
  EXPECT_GE(found, total * 97 / 100);
  EXPECT_EQ(on_symbols, 0);
  EXPECT_EQ(extra, 0);
}

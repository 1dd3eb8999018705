// CPU threshold tests: the fast implementations against literal reference implementations written
// here from the spec (docs/thresholds.md, ../shared spec §2), hand-worked cases for reacTIVision's
// quirks, thread-count independence and parameter validation.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <memory>
#include <vector>

#include "gpuvis/core/parallel.hpp"
#include "gpuvis/threshold/threshold.hpp"
#include "threshold/cpu/threshold_cpu.hpp"
#include "threshold/rules.hpp"
#include "test_support.hpp"

using namespace gpuvis;
using namespace gpuvis::threshold;

namespace {

Image<std::uint8_t> run(const Image<std::uint8_t>& src, const Params& p) {
  Image<std::uint8_t> out(src.width(), src.height());
  out.fill(77);  // poison: every pixel must be written
  threshold_cpu(src.view(), out.view(), p);
  return out;
}

std::size_t diff(const Image<std::uint8_t>& a, const Image<std::uint8_t>& b) {
  return count_differences<std::uint8_t>(a.view(), b.view());
}

Image<std::uint8_t> from_rows(const std::vector<std::vector<int>>& rows) {
  Image<std::uint8_t> img(static_cast<int>(rows[0].size()), static_cast<int>(rows.size()));
  for (int y = 0; y < img.height(); ++y)
    for (int x = 0; x < img.width(); ++x) img(x, y) = static_cast<std::uint8_t>(rows[y][x]);
  return img;
}

// Tiled Bernsen, literally per pixel from spec §2.4 with one strip.
Image<std::uint8_t> tiled_reference(const Image<std::uint8_t>& src, int T, int G) {
  const int W = src.width(), H = src.height(), h = T / 2;
  auto axis = [&](int n) {  // cell boundaries
    std::vector<int> b{0};
    const int F = n >= h ? (n - h) / T : 0;
    for (int k = 0; k <= F; ++k) b.push_back(std::min(n, h + k * T));
    b.push_back(n);
    return b;
  };
  const auto bx = axis(W), by = axis(H);
  const int Cx = static_cast<int>(bx.size()) - 1, Cy = static_cast<int>(by.size()) - 1;
  std::vector<std::pair<int, int>> cells;
  for (int j = 0; j < Cy; ++j)
    for (int i = 0; i < Cx; ++i) {
      int mn = 255, mx = 0;
      for (int y = by[j]; y < by[j + 1]; ++y)
        for (int x = std::max(0, bx[i]); x < bx[i + 1]; ++x) {
          const int v = src(x, y);
          if (v < mn) mn = v;
          else if (v > mx) mx = v;
        }
      cells.emplace_back(mn, mx);
    }
  Image<std::uint8_t> out(W, H);
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      const int tx = x / T, ty = y / T;
      int MN = 255, MX = 0;
      for (int dy = 0; dy < 2; ++dy)
        for (int dx = 0; dx < 2; ++dx) {
          const std::size_t idx = static_cast<std::size_t>((ty + dy) * Cx + tx + dx);
          const auto c = idx < cells.size() ? cells[idx] : std::pair<int, int>{0, 0};
          MN = std::min(MN, c.first);
          MX = std::max(MX, c.second);
        }
      int t = (MN + MX) / 2;
      if (MX - MN < G) t = t < 128 ? 255 : 0;
      out(x, y) = src(x, y) > t ? 255 : 0;
    }
  return out;
}

// Bradley-Roth from spec §2.5 with a (H+1)x(W+1) uint32 integral image.
Image<std::uint8_t> bradley_roth_reference(const Image<std::uint8_t>& src, int size, float bias, int contrast) {
  const int W = src.width(), H = src.height();
  const int r = std::max(1, std::min(size, std::min(63, H / 2)));
  std::vector<std::uint32_t> I(static_cast<std::size_t>(W + 1) * (H + 1), 0);
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x)
      I[(y + 1) * (W + 1) + x + 1] = src(x, y) + I[y * (W + 1) + x + 1] + I[(y + 1) * (W + 1) + x] - I[y * (W + 1) + x];
  const std::uint32_t K = 1024 - static_cast<std::uint32_t>(static_cast<std::int32_t>(bias * 1024.0f));
  const auto m = static_cast<std::uint32_t>(contrast);
  Image<std::uint8_t> out(W, H);
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      const int y0 = std::max(0, y - r), y1 = std::min(H, y + r + 1), x0 = std::max(0, x - r), x1 = std::min(W, x + r + 1);
      const std::uint32_t S = I[y1 * (W + 1) + x1] - I[y0 * (W + 1) + x1] - I[y1 * (W + 1) + x0] + I[y0 * (W + 1) + x0];
      const std::uint32_t v = src(x, y);
      bool white;
      if (x < r || x >= W - r) {
        const std::uint32_t N = static_cast<std::uint32_t>((x1 - x0) * (y1 - y0));
        white = v * N > (S * K) / 1024 && S > m * N;
      } else {
        const std::uint32_t Np = static_cast<std::uint32_t>((2 * r + 1) * (y1 - y0));
        const std::uint32_t inv = (1u << 20) / Np;
        white = v > ((S * K) / 1024) * inv / (1u << 20) && S * inv / (1u << 20) >= m;
      }
      out(x, y) = white ? 255 : 0;
    }
  return out;
}

struct Size {
  int w, h;
};
const Size kSizes[] = {{1, 1}, {1, 37}, {53, 1}, {2, 2}, {17, 5}, {64, 48}, {101, 77}, {160, 121}};

}  // namespace

TEST(Bernsen, MatchesTheNaiveDefinitionForAllWindowsAndGates) {
  std::uint32_t seed = 1;
  for (const Size s : kSizes)
    for (int h : {1, 2, 3, 6, 12, 32, 127})
      for (int gate : {0, 32, 255}) {
        const auto img = (seed % 2) ? test::random_image(s.w, s.h, seed) : test::textured_image(s.w, s.h, seed);
        ++seed;
        Params p;
        p.method = Method::bernsen;
        p.bernsen = {h, gate};
        Image<std::uint8_t> ref(s.w, s.h);
        bernsen_naive(img.view(), ref.view(), p.bernsen);
        EXPECT_EQ(diff(run(img, p), ref), 0u) << s.w << "x" << s.h << " h=" << h << " gate=" << gate;
      }
}

// Every (min, pixel, max) a window can give, each in a 3x3 block of identical rows [min, pixel,
// max] so that the centre's h=1 window holds exactly those three values: the vectorised decision
// of bernsen_cpu must equal the per-pixel rule of the naive definition for all of them.
TEST(Bernsen, DecisionHoldsForEveryWindowMinPixelMaxTriple) {
  std::vector<std::array<std::uint8_t, 3>> triples;
  for (int mn = 0; mn < 256; ++mn)
    for (int v = mn; v < 256; ++v)
      for (int mx = v; mx < 256; ++mx)
        triples.push_back({static_cast<std::uint8_t>(mn), static_cast<std::uint8_t>(v), static_cast<std::uint8_t>(mx)});
  constexpr int kPerRow = 1024;
  const int rows = static_cast<int>((triples.size() + kPerRow - 1) / kPerRow);
  Image<std::uint8_t> img(3 * kPerRow, 3 * rows);
  for (std::size_t i = 0; i < img.view().stride * static_cast<std::size_t>(img.height()); ++i) img.view().data[i] = 0;
  for (std::size_t i = 0; i < triples.size(); ++i) {
    const int bx = 3 * static_cast<int>(i % kPerRow), by = 3 * static_cast<int>(i / kPerRow);
    for (int dy = 0; dy < 3; ++dy)
      for (int dx = 0; dx < 3; ++dx) img.view()(bx + dx, by + dy) = triples[i][static_cast<std::size_t>(dx)];
  }
  for (int gate : {0, 1, 32, 128, 255}) {
    Params p;
    p.method = Method::bernsen;
    p.bernsen = {1, gate};
    Image<std::uint8_t> ref(img.width(), img.height());
    bernsen_naive(img.view(), ref.view(), p.bernsen);
    const auto out = run(img, p);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < triples.size(); ++i) {
      const int cx = 3 * static_cast<int>(i % kPerRow) + 1, cy = 3 * static_cast<int>(i / kPerRow) + 1;
      wrong += out.view()(cx, cy) != ref.view()(cx, cy);
    }
    EXPECT_EQ(wrong, 0u) << "gate " << gate << " of " << triples.size() << " triples";
  }
}

TEST(Bernsen, LowContrastRegionsFollowTheirMidValue) {
  Params p;
  p.bernsen = {4, 32};
  Image<std::uint8_t> dark(20, 10), bright(20, 10);
  dark.fill(126);   // T = 126 < 127: black
  bright.fill(127); // T = 127: white
  for (int y = 0; y < 10; ++y)
    for (int x = 0; x < 20; ++x) {
      EXPECT_EQ(run(dark, p)(x, y), 0);
      EXPECT_EQ(run(bright, p)(x, y), 255);
    }
}

TEST(Bernsen, SeparatesAnEdgeAtTheMidpoint) {
  // A 40-level step: max-min = 40 >= gate, T = 100; pixels above 100 white.
  Image<std::uint8_t> img(12, 3);
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 12; ++x) img(x, y) = x < 6 ? 80 : 120;
  Params p;
  p.bernsen = {2, 32};
  const auto out = run(img, p);
  EXPECT_EQ(out(5, 1), 0);
  EXPECT_EQ(out(6, 1), 255);
  EXPECT_EQ(out(0, 1), 0);   // window [0,2] is flat 80: low contrast, T=80 < 127 -> black
  EXPECT_EQ(out(11, 1), 0);  // flat 120: T = 120 < 127 -> black
}

TEST(TiledBernsen, CellMaxIgnoresPixelsThatLowerTheMinimum) {
  // Spec §2.4 Q1, worked by hand: the 200 at (1,0) lowers the running min of its cell first, so
  // its cell reports max 0 and every tile is low-contrast dark -> all black. A true max would make
  // tile (0,0) threshold at 105 and (1,0) white.
  const auto img = from_rows({{10, 200, 10, 10}, {10, 10, 10, 10}, {10, 10, 10, 10}, {10, 10, 10, 200}});
  Params p;
  p.method = Method::tiled;
  p.tiled = {2, 16};
  const auto out = run(img, p);
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 4; ++x) EXPECT_EQ(out(x, y), 0) << x << "," << y;
}

TEST(TiledBernsen, LastTileColumnWrapsToTheNextCellRow) {
  // Spec §2.4 Q2, worked by hand: W=5, T=4 (h=2, W mod T = 1 < h). Tile column 1 reads cell
  // column 2 = cell (0, next row) and the cell past the grid as (0,0): MN=0, MX=100, t=50, so the
  // flat 100 column x=4 is white while tile 0 (flat, low contrast, t=255) is black.
  Image<std::uint8_t> img(5, 4);
  img.fill(100);
  Params p;
  p.method = Method::tiled;
  p.tiled = {4, 16};
  const auto out = run(img, p);
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 5; ++x) EXPECT_EQ(out(x, y), x == 4 ? 255 : 0) << x << "," << y;
}

TEST(TiledBernsen, MatchesTheLiteralSpecOnManyImages) {
  std::uint32_t seed = 100;
  for (const Size s : kSizes)
    for (int tile : {2, 3, 4, 10, 16, 33})
      for (int gradient : {0, 16, 64}) {
        const auto img = (seed % 2) ? test::random_image(s.w, s.h, seed) : test::textured_image(s.w, s.h, seed);
        ++seed;
        Params p;
        p.method = Method::tiled;
        p.tiled = {tile, gradient};
        EXPECT_EQ(diff(run(img, p), tiled_reference(img, tile, gradient)), 0u)
            << s.w << "x" << s.h << " tile=" << tile << " gradient=" << gradient;
      }
}

TEST(BradleyRoth, MatchesTheIntegralImageDefinition) {
  std::uint32_t seed = 300;
  for (const Size s : kSizes)
    for (int size : {1, 3, 7, 16, 63, 200})
      for (float bias : {0.0f, 0.16f, 0.5f})
        for (int contrast : {0, 32}) {
          const auto img = (seed % 2) ? test::random_image(s.w, s.h, seed) : test::textured_image(s.w, s.h, seed);
          ++seed;
          Params p;
          p.method = Method::bradley_roth;
          p.bradley_roth = {size, bias, contrast};
          EXPECT_EQ(diff(run(img, p), bradley_roth_reference(img, size, bias, contrast)), 0u)
              << s.w << "x" << s.h << " size=" << size << " bias=" << bias << " contrast=" << contrast;
        }
}

TEST(BradleyRoth, DefaultsAreReacTIVisionsShippedSettings) {
  const Params p;
  EXPECT_EQ(p.bradley_roth.size, 16);
  EXPECT_FLOAT_EQ(p.bradley_roth.bias, 0.16f);
  EXPECT_EQ(p.bradley_roth.contrast, 32);
  EXPECT_EQ(p.tiled.tile, 16);
  EXPECT_EQ(p.tiled.gradient, 16);
}

TEST(Threshold, OutputDoesNotDependOnTheThreadCount) {
  const auto img = test::textured_image(333, 251, 42);
  for (Method m : {Method::bernsen, Method::tiled, Method::bradley_roth}) {
    Params p;
    p.method = m;
    set_num_threads(1);
    const auto one = run(img, p);
    for (int n : {2, 3, 7, 16}) {
      set_num_threads(n);
      EXPECT_EQ(diff(run(img, p), one), 0u) << to_string(m) << " with " << n << " threads";
    }
  }
  set_num_threads(0);
}

TEST(Threshold, BadParametersAreRejectedWithTheirName) {
  auto expect_error = [](Params p, const std::string& needle) {
    try {
      validate(p);
      FAIL() << "expected an error mentioning " << needle;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  Params p;
  p.bernsen.half_window = 0;
  expect_error(p, "window");
  p = {};
  p.bernsen.gate = 256;
  expect_error(p, "gate");
  p = {};
  p.method = Method::tiled;
  p.tiled.tile = 1;
  expect_error(p, "tile");
  p = {};
  p.method = Method::bradley_roth;
  p.bradley_roth.bias = -0.1f;
  expect_error(p, "bias");
  p = {};
  p.method = Method::bradley_roth;
  p.bradley_roth.contrast = 300;
  expect_error(p, "contrast");
  EXPECT_THROW(parse_method("otsu"), Error);
}

TEST(Threshold, MismatchedImagesAreRejected) {
  const auto a = test::random_image(10, 10, 1);
  Image<std::uint8_t> b(10, 11);
  EXPECT_THROW(threshold_cpu(a.view(), b.view(), Params{}), Error);
}

TEST(Equalizer, CapturedFrameBecomesFlatAtTheCentreMean) {
  auto img = test::textured_image(64, 40, 8);
  long sum = 0;
  for (int y = 15; y < 25; ++y)
    for (int x = 27; x < 37; ++x) sum += img(x, y);
  Equalizer eq;
  EXPECT_FALSE(eq.enabled());
  eq.capture(img.view());
  EXPECT_TRUE(eq.enabled());
  EXPECT_EQ(eq.background_level(), sum / 100);
  auto frame = img.clone();
  eq.apply(frame.view());
  for (int y = 0; y < 40; ++y)
    for (int x = 0; x < 64; ++x) ASSERT_EQ(frame(x, y), sum / 100);
  // Disabled: identity. A different size: a clear error.
  eq.set_enabled(false);
  auto other = img.clone();
  eq.apply(other.view());
  EXPECT_EQ(diff(other, img), 0u);
  eq.set_enabled(true);
  Image<std::uint8_t> small(10, 10);
  EXPECT_THROW(eq.apply(small.view()), Error);
}

TEST(Equalizer, SubtractsTheBackgroundAndClamps) {
  Image<std::uint8_t> bg(12, 12), frame(12, 12);
  bg.fill(50);
  bg(0, 0) = 250;
  frame.fill(60);
  Equalizer eq;
  eq.capture(bg.view());  // level a = 50
  eq.apply(frame.view());
  EXPECT_EQ(frame(5, 5), 60);  // 60 - 50 + 50
  EXPECT_EQ(frame(0, 0), 0);   // 60 - 250 + 50 < 0
}

// A Thresholder with an equaliser thresholds the equalised frame: the same bytes as
// Equalizer::apply then the threshold, for every method with and without sharpening; the
// equaliser's rule by its definition (frame - background + centre level, clamped); a disabled
// equaliser is none; a frame of another size than the background is one clear error.
TEST(Equalizer, AThresholderWithAnEqualizerThresholdsTheEqualisedFrame) {
  EXPECT_EQ(gpuvis_equalize_rule(120, 100, 90), 110);
  EXPECT_EQ(gpuvis_equalize_rule(10, 200, 100), 0);
  EXPECT_EQ(gpuvis_equalize_rule(250, 10, 100), 255);
  const auto bg = test::textured_image(97, 61, 11);
  const auto frame = test::textured_image(97, 61, 12);
  auto eq = std::make_shared<Equalizer>();
  eq->capture(bg.view());
  Image<std::uint8_t> equalised(97, 61);
  eq->apply(frame.view(), equalised.view());
  for (int y = 0; y < 61; ++y)
    for (int x = 0; x < 97; ++x) ASSERT_EQ(equalised(x, y), std::clamp(frame(x, y) - bg(x, y) + eq->background_level(), 0, 255));
  for (Method m : {Method::bernsen, Method::tiled, Method::bradley_roth})
    for (int k : {0, 2}) {
      Params p;
      p.method = m;
      p.sharpen = k;
      p.backend = Backend::cpu;
      Image<std::uint8_t> expected(97, 61), got(97, 61), plain(97, 61);
      threshold_cpu(equalised.view(), expected.view(), p);
      auto t = make_thresholder(p);
      t->set_equalizer(eq);
      t->apply(frame.view(), got.view());
      EXPECT_EQ(diff(got, expected), 0u) << to_string(m) << " sharpen " << k;
      eq->set_enabled(false);
      t->apply(frame.view(), got.view());
      threshold_cpu(frame.view(), plain.view(), p);
      EXPECT_EQ(diff(got, plain), 0u) << "disabled, " << to_string(m);
      EXPECT_GT(diff(plain, expected), 0u) << "the background changes nothing here";
      eq->set_enabled(true);
    }
  auto t = make_thresholder(Params{});
  t->set_equalizer(eq);
  Image<std::uint8_t> small(10, 10), out(10, 10);
  EXPECT_THROW(t->apply(small.view(), out.view()), Error);
}

// Params::sharpen, against its definition written out here: where a pixel and its four neighbours
// (the edge repeated outside the frame) span at least 48 levels, g + k(4g - n - s - w - e)/4
// truncated towards zero, kept within their range; elsewhere g. Then the threshold reads the
// sharpened frame.
TEST(Threshold, SharpenFollowsItsDefinition) {
  for (std::uint32_t seed : {1u, 2u}) {
    const auto img = seed == 1 ? test::random_image(37, 23, seed) : test::textured_image(64, 48, seed);
    for (int k = 1; k <= 4; ++k) {
      Image<std::uint8_t> expected(img.width(), img.height()), got(img.width(), img.height());
      got.fill(77);
      for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x) {
          auto at = [&](int xx, int yy) {
            return static_cast<int>(img(std::clamp(xx, 0, img.width() - 1), std::clamp(yy, 0, img.height() - 1)));
          };
          const int g = at(x, y), n = at(x, y - 1), s = at(x, y + 1), w = at(x - 1, y), e = at(x + 1, y);
          const int lo = std::min({g, n, s, w, e}), hi = std::max({g, n, s, w, e});
          int v = g;
          if (hi - lo >= 48) v = std::clamp(g + k * (4 * g - n - s - w - e) / 4, lo, hi);
          expected(x, y) = static_cast<std::uint8_t>(v);
        }
      sharpen_cpu(img.view(), got.view(), k);
      EXPECT_EQ(diff(got, expected), 0u) << "k=" << k << " seed " << seed;
      for (Method m : {Method::bernsen, Method::tiled, Method::bradley_roth}) {
        Params p;
        p.method = m;
        p.bernsen.half_window = 4;
        const auto plain = run(expected, p);
        p.sharpen = k;
        EXPECT_EQ(diff(run(img, p), plain), 0u) << "method " << to_string(m) << " k=" << k;
      }
    }
  }
  Params bad;
  bad.sharpen = 5;
  EXPECT_THROW(validate(bad), Error);
  bad.sharpen = -1;
  EXPECT_THROW(validate(bad), Error);
}

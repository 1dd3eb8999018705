// Convolution on the CPU: kernel parsing, the rank-1 test, border modes, and results against a
// direct double-precision reference for every type, channel count and border.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "cuda/strip_plan.hpp"
#include "gpuvis/core/error.hpp"
#include "gpuvis/filters/convolve.hpp"
#include "filters/filter_backends.hpp"
#include "test_support.hpp"

using namespace gpuvis;
using namespace gpuvis::filters;

namespace {


// A double-precision image for the reference results.
struct Ref {
  int w, h, c;
  std::vector<double> v;
  Ref(int w_, int h_, int c_) : w(w_), h(h_), c(c_), v(static_cast<std::size_t>(w_) * h_ * c_) {}
  double& operator()(int x, int y, int ch) { return v[(static_cast<std::size_t>(y) * w + x) * c + ch]; }
  double at(int y, int i) const { return v[static_cast<std::size_t>(y) * w * c + i]; }
};

// out(x, y) = sum k(i, j) * in(x + i - rx, y + j - ry), in double, borders by border_index.
template <class T>
Ref reference(const Image<T>& src, const Kernel& k, const Border& b) {
  Ref out(src.width(), src.height(), src.channels());
  const int rx = k.width / 2, ry = k.height / 2;
  for (int y = 0; y < src.height(); ++y)
    for (int x = 0; x < src.width(); ++x)
      for (int c = 0; c < src.channels(); ++c) {
        double acc = 0;
        for (int j = 0; j < k.height; ++j)
          for (int i = 0; i < k.width; ++i) {
            const int xx = border_index(x + i - rx, src.width(), b.mode), yy = border_index(y + j - ry, src.height(), b.mode);
            const double v = (xx < 0 || yy < 0) ? b.value : static_cast<double>(src(xx, yy, c));
            acc += k.at(i, j) * v;
          }
        out(x, y, c) = acc;
      }
  return out;
}

template <class T>
void expect_close(const Image<T>& got, const Ref& ref, const std::string& what) {
  int bad = 0;
  for (int y = 0; y < got.height(); ++y)
    for (int i = 0; i < got.width() * got.channels(); ++i) {
      const double r = ref.at(y, i), g = static_cast<double>(got.row(y)[i]);
      bool ok;
      if constexpr (std::is_same_v<T, float>) {
        ok = std::abs(g - r) <= 1e-4 * std::max(1.0, std::abs(r)) + 1e-3;
      } else {
        const double hi = std::is_same_v<T, std::uint8_t> ? 255 : 65535;
        ok = std::abs(g - std::clamp(std::nearbyint(r), 0.0, hi)) <= 1;
      }
      if (!ok && bad++ < 3) ADD_FAILURE() << what << ": sample " << i << " of row " << y << " is " << g << ", expected " << r;
    }
  EXPECT_EQ(bad, 0) << what;
}

}  // namespace

TEST(Kernel, ParsesInlineNamedAndFileKernels) {
  auto k = parse_kernel("1,2,1;2,4,2;1,2,1/16");
  EXPECT_EQ(k.width, 3);
  EXPECT_EQ(k.height, 3);
  EXPECT_FLOAT_EQ(k.at(1, 1), 0.25f);
  k = parse_kernel("1 2 3 4 5");
  EXPECT_EQ(k.width, 5);
  EXPECT_EQ(k.height, 1);
  k = parse_kernel("gaussian:sigma=2");
  EXPECT_EQ(k.width, 13);
  double sum = 0;
  for (float w : k.weights) sum += w;
  EXPECT_NEAR(sum, 1.0, 1e-5);
  k = parse_kernel("box:5x3");
  EXPECT_EQ(k.width, 5);
  EXPECT_EQ(k.height, 3);
  EXPECT_FLOAT_EQ(k.at(0, 0), 1.0f / 15);
  EXPECT_FLOAT_EQ(parse_kernel("sobel-x").at(2, 1), 2.0f);
  EXPECT_FLOAT_EQ(parse_kernel("laplacian").at(1, 1), -4.0f);
  const std::string file = test::temp_path("k.txt");
  std::ofstream(file) << "# a 3x3 kernel\n0 1 0\n1 1 1   # middle row\n0 1 0\n";
  EXPECT_EQ(parse_kernel("@" + file).weights, (std::vector<float>{0, 1, 0, 1, 1, 1, 0, 1, 0}));
}

// parse_kernel(spec) is refused with an error that contains `needle`.
static void expect_kernel_error(const std::string& spec, const std::string& needle) {
  try {
    parse_kernel(spec);
    ADD_FAILURE() << "accepted " << spec;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(Kernel, BadKernelsAreRejectedWithTheReason) {
  const auto expect_error = expect_kernel_error;
  expect_error("1,2", "odd");
  expect_error("", "empty");
  expect_error("1,2,3;4,5", "different lengths");
  expect_error("1,x,3", "not a number");
  expect_error("gaussian:sigma=0", "sigma");
  expect_error("box:4", "odd");
  expect_error("emboss", "unknown kernel name");
  expect_error("1,2,1/0", "divisor");
  expect_error("@/no/such/kernel", "kernel file '/no/such/kernel' does not exist");
  Kernel big{33, 33, std::vector<float>(33 * 33)};
  for (int i = 0; i < 33 * 33; ++i) big.weights[i] = static_cast<float>(i % 7);  // not rank 1
  Image<float> a(40, 40), b(40, 40);
  a.fill(1);
  EXPECT_THROW(convolve_cpu<float>(a.view(), b.view(), big), Error);
  Image<float> wrong(41, 40);
  EXPECT_THROW(convolve_cpu<float>(a.view(), wrong.view(), parse_kernel("box:3")), Error);
}

TEST(Kernel, RankOneKernelsAreSeparated) {
  const auto s = separate(parse_kernel("1,2,1;2,4,2;1,2,1"));
  ASSERT_TRUE(s.separable);
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 3; ++x) EXPECT_FLOAT_EQ(s.column[y] * s.row[x], parse_kernel("1,2,1;2,4,2;1,2,1").at(x, y));
  EXPECT_TRUE(separate(parse_kernel("gaussian:sigma=3")).separable);
  EXPECT_TRUE(separate(parse_kernel("sobel-x")).separable);
  EXPECT_FALSE(separate(parse_kernel("laplacian")).separable);
  EXPECT_FALSE(separate(parse_kernel("sharpen")).separable);
}

TEST(Border, ModesMapLikeOpenCV) {
  // n = 5: abcde
  EXPECT_EQ(border_index(-1, 5, BorderMode::replicate), 0);
  EXPECT_EQ(border_index(-2, 5, BorderMode::reflect), 1);      // ba|abcde
  EXPECT_EQ(border_index(-2, 5, BorderMode::reflect101), 2);   // cb|abcde
  EXPECT_EQ(border_index(6, 5, BorderMode::reflect), 3);       // abcde|ed
  EXPECT_EQ(border_index(6, 5, BorderMode::reflect101), 2);    // abcde|dc
  EXPECT_EQ(border_index(-1, 5, BorderMode::wrap), 4);
  EXPECT_EQ(border_index(7, 5, BorderMode::wrap), 2);
  EXPECT_EQ(border_index(-1, 5, BorderMode::constant), -1);
  EXPECT_EQ(border_index(-7, 2, BorderMode::reflect101), 1);  // far outside small images stays inside
  EXPECT_EQ(border_index(-3, 1, BorderMode::reflect), 0);
  EXPECT_EQ(parse_border("constant:7.5").value, 7.5f);
  EXPECT_THROW(parse_border("mirror"), Error);
}

template <class T>
void check_all(std::uint32_t seed) {
  const char* kernels[] = {"1,2,1;2,4,2;1,2,1/16", "sobel-y", "laplacian", "0.5,-1,2,0.25,1;1,1,1,1,1;-2,0,0,3,1", "gaussian:sigma=1.5",
                           "box:7x3"};
  const char* borders[] = {"constant:9", "replicate", "reflect", "reflect101", "wrap"};
  for (int channels : {1, 3, 4})
    for (const char* ks : kernels)
      for (const char* bs : borders)
        for (bool flip : {false, true}) {
          const auto src = test::random_typed<T>(23, 17, channels, seed++, -50.f, 300.f);
          ConvolveParams o;
          o.border = parse_border(bs);
          o.flip = flip;
          Image<T> out(23, 17, channels);
          convolve_cpu<T>(src.view(), out.view(), parse_kernel(ks), o);
          expect_close(out, reference(src, flip ? flipped(parse_kernel(ks)) : parse_kernel(ks), o.border),
                       std::string(ks) + " " + bs + (flip ? " flip" : "") + " c=" + std::to_string(channels));
        }
}

TEST(Convolve, MatchesTheDirectDefinitionU8) { check_all<std::uint8_t>(1); }
TEST(Convolve, MatchesTheDirectDefinitionU16) { check_all<std::uint16_t>(1000); }
TEST(Convolve, MatchesTheDirectDefinitionF32) { check_all<float>(2000); }

TEST(Convolve, SeparablePathEqualsTheTwoDimensionalPath) {
  const auto src = test::random_typed<float>(64, 48, 3, 5, -50.f, 300.f);
  for (const char* ks : {"gaussian:sigma=2.5", "box:9", "1,4,6,4,1;2,8,12,8,2;1,4,6,4,1"}) {
    ConvolveParams sep, full;
    full.allow_separable = false;
    Image<float> a(64, 48, 3), b(64, 48, 3);
    convolve_cpu<float>(src.view(), a.view(), parse_kernel(ks), sep);
    convolve_cpu<float>(src.view(), b.view(), parse_kernel(ks), full);
    for (int y = 0; y < 48; ++y)
      for (int i = 0; i < 64 * 3; ++i) ASSERT_NEAR(a.row(y)[i], b.row(y)[i], 1e-5 * std::max(1.0f, std::abs(b.row(y)[i]))) << ks;
  }
  // A long 1x127 separable kernel is accepted; the same size as a 2D kernel would not be.
  const auto k = parse_kernel("gaussian:sigma=20,size=127");
  Image<float> a(200, 150, 1), b(200, 150, 1);
  a.fill(3.0f);
  convolve_cpu<float>(a.view(), b.view(), k);
  EXPECT_NEAR(b(100, 75), 3.0f, 1e-4);
}

TEST(Convolve, TinyImagesAndLargeKernels) {
  for (const char* bs : {"reflect", "reflect101", "wrap", "replicate", "constant"}) {
    const auto src = test::random_typed<std::uint8_t>(1, 1, 1, 3, -50.f, 300.f);
    Image<std::uint8_t> out(1, 1, 1);
    ConvolveParams o;
    o.border = parse_border(bs);
    convolve_cpu<std::uint8_t>(src.view(), out.view(), parse_kernel("box:9"), o);
    expect_close(out, reference(src, parse_kernel("box:9"), o.border), bs);
  }
}

// ---- bilateral ----
#include "gpuvis/filters/bilateral.hpp"

TEST(Bilateral, FlatImagesStayFlatAndParametersAreChecked) {
  Image<std::uint8_t> flat(40, 30, 3);
  flat.fill(77);
  Image<std::uint8_t> out(40, 30, 3);
  BilateralParams p;
  bilateral_cpu<std::uint8_t>(flat.view(), out.view(), p);
  EXPECT_EQ(count_differences<std::uint8_t>(flat.view(), out.view()), 0u);
  p.sigma_range = 0;
  EXPECT_THROW(bilateral_cpu<std::uint8_t>(flat.view(), out.view(), p), Error);
  p = {};
  p.radius = 0;
  EXPECT_THROW(bilateral_cpu<std::uint8_t>(flat.view(), out.view(), p), Error);
  Image<std::uint8_t> grey(40, 30, 1);
  EXPECT_THROW(bilateral_cpu<std::uint8_t>(flat.view(), grey.view(), BilateralParams{}), Error);
}

TEST(Bilateral, SmoothsNoiseButKeepsEdges) {
  // A step from 50 to 200 with noise: the filter reduces the noise on both sides and keeps the
  // step sharp (a Gaussian blur of the same width would not).
  Image<float> img(64, 32, 1), out(64, 32, 1);
  std::mt19937 rng(1);
  std::normal_distribution<float> n(0, 5);
  for (int y = 0; y < 32; ++y)
    for (int x = 0; x < 64; ++x) img(x, y) = (x < 32 ? 50.f : 200.f) + n(rng);
  BilateralParams p;
  p.radius = 4;
  p.sigma_space = 3;
  p.sigma_range = 20;
  bilateral_cpu<float>(img.view(), out.view(), p);
  double noise_in = 0, noise_out = 0;
  for (int y = 4; y < 28; ++y)
    for (int x = 4; x < 28; ++x) noise_in += std::abs(img(x, y) - 50), noise_out += std::abs(out(x, y) - 50);
  EXPECT_LT(noise_out, noise_in / 2);
  for (int y = 0; y < 32; ++y) {
    EXPECT_LT(out(31, y), 70.f);  // still on the dark side of the step
    EXPECT_GT(out(32, y), 180.f);
  }
  // Adaptive: a flat noisy area gets a small range sigma, a strong edge a large one; still finite.
  p.adaptive = true;
  bilateral_cpu<float>(img.view(), out.view(), p);
  for (int y = 0; y < 32; ++y)
    for (int x = 0; x < 64; ++x) ASSERT_TRUE(std::isfinite(out(x, y)));
}

namespace {

// The bilateral filter by its definition, in double: over the window dx² + dy² <= r², weights
// exp(-(dx² + dy²) / 2σs²) · exp(-D / 2σr²), D the colour distance (Σd² or (Σ|d|)² over the first
// three channels) or, per channel, that channel's d²; out = Σ w·v / Σ w.
template <class T>
Ref bilateral_reference(const Image<T>& src, const BilateralParams& p) {
  Ref out(src.width(), src.height(), src.channels());
  const int C = src.channels(), compared = C == 4 ? 3 : C, r = p.radius;
  auto at = [&](int x, int y, int c) {
    const int xx = border_index(x, src.width(), p.border.mode), yy = border_index(y, src.height(), p.border.mode);
    return (xx < 0 || yy < 0) ? static_cast<double>(p.border.value) : static_cast<double>(src(xx, yy, c));
  };
  const double ss = 2.0 * p.sigma_space * p.sigma_space, sr = 2.0 * p.sigma_range * p.sigma_range;
  for (int y = 0; y < src.height(); ++y)
    for (int x = 0; x < src.width(); ++x) {
      double sum[4] = {}, wsum[4] = {};
      for (int dy = -r; dy <= r; ++dy)
        for (int dx = -r; dx <= r; ++dx) {
          if (dx * dx + dy * dy > r * r) continue;
          const double space = std::exp(-(dx * dx + dy * dy) / ss);
          double colour = 0;
          for (int c = 0; c < compared; ++c) {
            const double d = at(x + dx, y + dy, c) - at(x, y, c);
            colour += p.distance == ColourDistance::l1 ? std::abs(d) : d * d;
          }
          if (p.distance == ColourDistance::l1) colour *= colour;
          for (int c = 0; c < C; ++c) {
            const double v = at(x + dx, y + dy, c), d = v - at(x, y, c);
            const double w = space * std::exp(-(p.mode == RangeMode::per_channel ? d * d : colour) / sr);
            sum[c] += w * v;
            wsum[c] += w;
          }
        }
      for (int c = 0; c < C; ++c) out(x, y, c) = sum[c] / wsum[c];
    }
  return out;
}

template <class T>
void check_bilateral(float lo, float hi, float sigma_range) {
  std::uint32_t seed = 40;
  // Widths that leave vector tails, every channel count, mode, distance and a few borders.
  for (auto [w, h] : {std::pair{37, 23}, std::pair{8, 5}, std::pair{3, 2}})
    for (int c : {1, 3, 4})
      for (RangeMode mode : {RangeMode::colour, RangeMode::per_channel})
        for (ColourDistance distance : {ColourDistance::l2, ColourDistance::l1})
          for (const char* border : {"reflect101", "constant:3", "wrap"}) {
            if (mode == RangeMode::per_channel && distance == ColourDistance::l1) continue;  // distance is for colour
            const auto src = test::random_typed<T>(w, h, c, seed++, lo, hi);
            BilateralParams p;
            p.radius = seed % 2 ? 3 : 5;
            p.sigma_space = 2.5f;
            p.sigma_range = sigma_range;
            p.mode = mode;
            p.distance = distance;
            p.border = parse_border(border);
            Image<T> out(w, h, c);
            bilateral_cpu<T>(src.view(), out.view(), p);
            expect_close(out, bilateral_reference(src, p),
                         std::to_string(w) + "x" + std::to_string(h) + " c=" + std::to_string(c) + " " + border +
                             (mode == RangeMode::per_channel ? " per-channel" : distance == ColourDistance::l1 ? " l1" : " l2"));
          }
}

}  // namespace

TEST(Bilateral, MatchesTheDirectDefinitionU8) { check_bilateral<std::uint8_t>(0, 255, 30); }
TEST(Bilateral, MatchesTheDirectDefinitionU16) { check_bilateral<std::uint16_t>(0, 4000, 500); }
TEST(Bilateral, MatchesTheDirectDefinitionF32) { check_bilateral<float>(-100, 1000, 150); }

namespace gpuvis::filters {
namespace {

// A kernel file is read with a ceiling: a device that never ends is refused as a device, and a file
// over 1 MiB from its size, before either is read.
TEST(KernelFile, EndlessOrHugeFilesAreRefused) {
  const auto expect_error = expect_kernel_error;
  if (std::filesystem::exists("/dev/zero")) expect_error("@/dev/zero", "kernel file '/dev/zero' is a device, not a file");
  const std::string huge = test::temp_path("huge.kernel");
  std::ofstream(huge) << "1,2,1";
  std::filesystem::resize_file(huge, std::uintmax_t{3} << 20);  // sparse: nothing is written
  expect_error("@" + huge, "is 3 MiB; such a file may have at most 1 MiB");
}

}  // namespace
}  // namespace gpuvis::filters

#include "filters/bilateral_rules.hpp"
#include "filters/cpu/row_kernels.hpp"

// detail::weight_exp is the weights' exponential on every backend; it must be exp to float
// precision over the whole range the filter uses.
TEST(Bilateral, WeightExponentialIsExpToFloatPrecision) {
  double worst = 0;
  for (double x = 0; x >= -87.0; x -= 0.000731) {
    const double want = std::exp(x), got = detail::weight_exp(static_cast<float>(x));
    worst = std::max(worst, std::abs(got - std::exp(static_cast<double>(static_cast<float>(x)))) / want);
  }
  EXPECT_LT(worst, 3e-7);
  EXPECT_EQ(detail::weight_exp(0.0f), 1.0f);
  EXPECT_GT(detail::weight_exp(-1e9f), 0.0f);  // held at exp(-87), never 0 or a denormal
  EXPECT_LT(detail::weight_exp(-1e9f), 2e-38f);
}


// The CPU filter (vector loops and tables) gives, to the last bit, what the shared per-pixel rule
// gives, which is the CUDA kernel's computation: so the backends agree without a GPU to compare.
// Float outputs are compared before rounding, where a fused multiply-add or another exp would show.
template <class T>
void check_shared_pixel_rule() {
  std::uint32_t seed = 70;
  for (int c : {1, 3, 4})
    for (RangeMode mode : {RangeMode::colour, RangeMode::per_channel})
      for (ColourDistance distance : {ColourDistance::l2, ColourDistance::l1})
        for (bool adaptive : {false, true}) {
          if (mode == RangeMode::per_channel && distance == ColourDistance::l1) continue;
          const int w = 203, h = 61;
          const auto texture = test::textured_colour(w, h, c, seed++);
          Image<T> src(w, h, c), got(w, h, c);
          for (int y = 0; y < h; ++y)
            for (int i = 0; i < w * c; ++i) src.row(y)[i] = static_cast<T>(texture.row(y)[i]);
          BilateralParams p;
          p.radius = seed % 2 ? 3 : 5;  // reused weights: taps up to 3 or 5 rows away
          p.sigma_space = 2.0f;
          p.sigma_range = 20;
          p.mode = mode;
          p.distance = distance;
          p.adaptive = adaptive;
          bilateral_cpu<T>(src.view(), got.view(), p);
          const float space_coeff = -0.5f / (p.sigma_space * p.sigma_space);
          auto space = [&](int dx, int dy) { return detail::weight_exp(static_cast<float>(dx * dx + dy * dy) * space_coeff); };
          int differ = 0;
          for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
              auto fetch = [&](int dx, int dy, int ch) {
                const int xx = border_index(x + dx, w, p.border.mode), yy = border_index(y + dy, h, p.border.mode);
                return static_cast<float>(src(xx, yy, ch));
              };
              float o[4];
              if (c == 1) detail::bilateral_pixel<1>(fetch, p.radius, space, detail::ExpWeight{}, p.sigma_range, adaptive, mode, distance, o);
              else if (c == 3) detail::bilateral_pixel<3>(fetch, p.radius, space, detail::ExpWeight{}, p.sigma_range, adaptive, mode, distance, o);
              else detail::bilateral_pixel<4>(fetch, p.radius, space, detail::ExpWeight{}, p.sigma_range, adaptive, mode, distance, o);
              for (int ch = 0; ch < c; ++ch) differ += got(x, y, ch) != detail::saturate<T>(o[ch]);
            }
          EXPECT_EQ(differ, 0) << "c=" << c << (mode == RangeMode::per_channel ? " per-channel" : distance == ColourDistance::l1 ? " l1" : " l2")
                               << (adaptive ? " adaptive" : "");
        }
}

TEST(Bilateral, EqualsTheSharedPixelRuleBitForBitU8) {
  // Weights computed, gathered from the 8-bit table, and looked up in registers.
  for (auto lookup : {cpu_rows::WeightLookup::compute, cpu_rows::WeightLookup::gather, cpu_rows::WeightLookup::registers}) {
    cpu_rows::set_bilateral_lookup(lookup);
    check_shared_pixel_rule<std::uint8_t>();
  }
  cpu_rows::set_bilateral_lookup(cpu_rows::WeightLookup::fastest);
}
TEST(Bilateral, EqualsTheSharedPixelRuleBitForBitF32) { check_shared_pixel_rule<float>(); }

// An output pixel's value does not depend on where it falls in a row (vector body or tail), so a
// tile of an image, as Dask's chunks cut it, gives the whole image's values away from its edges.
// The tile is 150 wide, so its rows end in a tail shorter than any vector, outside the border.
TEST(Convolve, TilesGiveTheWholeImagesValues) {
  for (int c : {1, 3}) {
    const auto img = test::random_typed<float>(300, 40, c, 12, -100.f, 1000.f);
    Image<float> tile(150, 30, c);
    copy<float>(img.view().crop(7, 4, 150, 30), tile.view());
    auto compare = [&](const Image<float>& whole, const Image<float>& part, int r) {
      int differ = 0;
      for (int y = r; y < 30 - r; ++y)
        for (int x = r; x < 150 - r; ++x)
          for (int ch = 0; ch < c; ++ch) differ += part(x, y, ch) != whole(x + 7, y + 4, ch);
      return differ;
    };
    for (const char* ks : {"0.5,-1,2,0.25,1;1,1,1,1,1;-2,0,0,3,1", "gaussian:sigma=1", "box:3"}) {
      Image<float> whole(300, 40, c), part(150, 30, c);
      convolve_cpu<float>(img.view(), whole.view(), parse_kernel(ks), {});
      convolve_cpu<float>(tile.view(), part.view(), parse_kernel(ks), {});
      EXPECT_EQ(compare(whole, part, 3), 0) << ks << " c=" << c;
    }
    BilateralParams p;
    p.radius = 2;
    Image<float> whole(300, 40, c), part(150, 30, c);
    bilateral_cpu<float>(img.view(), whole.view(), p);
    bilateral_cpu<float>(tile.view(), part.view(), p);
    EXPECT_EQ(compare(whole, part, 2), 0) << "bilateral c=" << c;
  }
}

// Several output rows at once (cpu_rows::correlate_rows, which the CPU convolutions use) give each
// row's correlate() sum of the same non-zero taps to the last bit, for every row count, in the
// vector body and the tail, with zero weights skipped: the results are those of one row at a time.
TEST(Convolve, RowsAtOnceEqualOneRowAtATime) {
  std::mt19937 rng(91);
  std::uniform_real_distribution<float> value(-300.f, 300.f);
  for (auto [kernel_rows, kernel_cols] : {std::pair{13, 1}, std::pair{7, 7}, std::pair{3, 5}}) {
    const std::size_t n = 1000, pad = 4 * kernel_cols;
    std::vector<std::vector<float>> input(kernel_rows + cpu_rows::kRowsAtOnce - 1, std::vector<float>(n + pad));
    for (auto& row : input)
      for (float& v : row) v = value(rng);
    std::vector<float> weights(static_cast<std::size_t>(kernel_rows) * kernel_cols);
    for (std::size_t i = 0; i < weights.size(); ++i) weights[i] = i % 5 == 2 ? 0.0f : value(rng) / 300.f;
    std::vector<std::ptrdiff_t> offsets;
    for (int o = 0; o < kernel_cols; ++o) offsets.push_back(3 * o);
    std::vector<const float*> rows;
    for (auto& row : input) rows.push_back(row.data());
    for (int count = 1; count <= cpu_rows::kRowsAtOnce; ++count)
      for (std::size_t width : {n, std::size_t{37}, std::size_t{5}}) {
        std::vector<std::vector<float>> got(count, std::vector<float>(width));
        std::vector<float*> out;
        for (auto& row : got) out.push_back(row.data());
        cpu_rows::correlate_rows(rows.data(), weights.data(), kernel_rows, kernel_cols, offsets.data(), count, width, out.data());
        int differ = 0;
        for (int j = 0; j < count; ++j) {
          std::vector<const float*> taps;
          std::vector<float> tap_weights;
          for (int r = 0; r < kernel_rows; ++r)
            for (int o = 0; o < kernel_cols; ++o)
              if (weights[r * kernel_cols + o] != 0.0f) {
                taps.push_back(rows[j + r] + offsets[o]);
                tap_weights.push_back(weights[r * kernel_cols + o]);
              }
          std::vector<float> want(width);
          cpu_rows::correlate(taps.data(), tap_weights.data(), static_cast<int>(taps.size()), width, want.data());
          for (std::size_t x = 0; x < width; ++x) differ += std::memcmp(&got[j][x], &want[x], sizeof(float)) != 0;
        }
        EXPECT_EQ(differ, 0) << kernel_rows << "x" << kernel_cols << " count " << count << " width " << width;
      }
  }
}

// How the CUDA strip pipeline cuts a host image (cuda/strip_plan.hpp; the CUDA tests check that
// results do not depend on it): the strips cover every row once, in order, none higher than the
// plan's strip_rows; images of several strips get a short first and last strip, the rows between
// shared evenly; and a memory budget bounds what the strips in flight hold.
TEST(StripPlan, StripsCoverTheImageWithShortEnds) {
  const std::size_t row = 1920 * 4;  // a 1080p float row
  const cuda::StripPlan full_hd = cuda::plan_strips(row, row, 1080, 3, 0, 0);
  EXPECT_EQ(full_hd.strip_rows, 540);
  EXPECT_EQ(full_hd.edge_rows, 135);
  EXPECT_EQ(cuda::strip_heights(1080, full_hd, true), (std::vector<int>{135, 405, 405, 135}));
  EXPECT_EQ(full_hd.slots, 3);
  const cuda::StripPlan small = cuda::plan_strips(row, row, 100, 3, 0, 0);  // one strip
  EXPECT_EQ(small.edge_rows, 0);
  EXPECT_EQ(cuda::strip_heights(100, small, true), std::vector<int>{100});
  for (int height : {1, 7, 64, 1080, 2160, 4321})
    for (int halo : {0, 3, 16})
      for (std::size_t budget : {std::size_t{0}, std::size_t{1} << 20, std::size_t{300} << 10}) {
        const cuda::StripPlan plan = cuda::plan_strips(row, row, height, halo, 0, budget, std::size_t{1} << 20);
        ASSERT_GT(plan.strip_rows, 0);
        const std::vector<int> heights = cuda::strip_heights(height, plan, true);
        int sum = 0;
        for (int h : heights) {
          ASSERT_GT(h, 0);
          ASSERT_LE(h, plan.strip_rows);
          sum += h;
        }
        ASSERT_EQ(sum, height) << height << " rows, halo " << halo << ", budget " << budget;
        ASSERT_LE(plan.slots, static_cast<int>(heights.size()));
        if (budget) {
          const std::size_t per_slot = (row + row) * plan.strip_rows + row * 2 * halo;
          ASSERT_LE(per_slot * plan.slots, budget);
        }
        if (plan.edge_rows > 0 && heights.size() > 2) {
          ASSERT_EQ(heights.front(), plan.edge_rows);
          ASSERT_EQ(heights.back(), plan.edge_rows);
          const auto [lo, hi] = std::minmax_element(heights.begin() + 1, heights.end() - 1);
          ASSERT_LE(*hi - *lo, 1);
        }
      }
}

// 8-bit smoothing in 16-bit fixed point (filters/smooth_fixed.hpp): which kernels take it, the CPU's
// bytes against the rule written out here once more, and the promise to users: within one grey
// level of the float sums (and of the exact value plus the stated bound), whatever the image.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>

#include "filters/cpu/smooth_fixed_rows.hpp"
#include "filters/filter_backends.hpp"
#include "gpuvis/core/parallel.hpp"
#include "gpuvis/filters/convolve.hpp"
#include "test_support.hpp"

using namespace gpuvis;
using namespace gpuvis::filters;

namespace {

std::optional<detail::FixedSmoothing> fixed_form(const char* kernel, const Border& border = {}) {
  return detail::fixed_smoothing(separate(parse_kernel(kernel)), border);
}

// The rule for one output, pixel by pixel from the definition (no padded rows, no vectors): the row
// pass at every source row the column pass needs, borders by border_index.
std::uint8_t rule_at(const Image<std::uint8_t>& src, const detail::FixedSmoothing& f, const Border& b, int x, int y, int ch) {
  const int rx = f.row_half(), ry = f.column_half();
  auto sample = [&](int xx, int yy) -> unsigned {
    const int sx = border_index(xx, src.width(), b.mode), sy = border_index(yy, src.height(), b.mode);
    return gpuvis_smooth_sample(sx < 0 || sy < 0 ? static_cast<unsigned>(b.value) : src(sx, sy, ch));
  };
  auto row_pass = [&](int yy) {
    unsigned acc = gpuvis_smooth_bias(rx) + gpuvis_smooth_tap(sample(x, yy), f.row[0]);
    for (int k = 1; k <= rx; ++k) acc += gpuvis_smooth_tap(sample(x - k, yy) + sample(x + k, yy), f.row[k]);
    return acc;
  };
  unsigned acc = gpuvis_smooth_bias(ry) + gpuvis_smooth_tap(row_pass(y), f.column[0]);
  for (int k = 1; k <= ry; ++k) acc += gpuvis_smooth_tap(row_pass(y - k) + row_pass(y + k), f.column[k]);
  return static_cast<std::uint8_t>(gpuvis_smooth_output(acc));
}

// Uniform noise: every sample anywhere in 0..255, the worst case for the weights' rounding.
Image<std::uint8_t> noise(int w, int h, int c, unsigned seed) {
  Image<std::uint8_t> img(w, h, c);
  std::mt19937 rng(seed);
  for (int y = 0; y < h; ++y)
    for (int i = 0; i < w * c; ++i) img.row(y)[i] = static_cast<std::uint8_t>(rng() & 255);
  return img;
}

}  // namespace

TEST(SmoothFixed, SmoothingKernelsTakeItOthersKeepFloatSums) {
  for (const char* k : {"gaussian:sigma=0.8", "gaussian:sigma=2", "gaussian:sigma=5", "box:3", "box:9", "box:5x3", "1,2,1;2,4,2;1,2,1/16",
                        "box:33", "gaussian:sigma=5.3"})
    EXPECT_TRUE(fixed_form(k)) << k;
  EXPECT_FALSE(fixed_form("sobel-x"));                        // negative weights
  EXPECT_FALSE(fixed_form("1,2,1;2,4,2;1,2,1"));              // sums to 16: would pass 255 before the rounding
  EXPECT_FALSE(fixed_form("1,2,3;2,4,6;1,2,3/24"));           // not symmetric
  EXPECT_FALSE(fixed_form("box:35"));                         // more than 33 taps
  EXPECT_FALSE(fixed_form("gaussian:sigma=30,size=127"));
  EXPECT_FALSE(fixed_form("1,2,1;2,3,2;1,2,1/15"));           // not separable
  EXPECT_FALSE(fixed_form("gaussian:sigma=2", Border{BorderMode::constant, 3.5f}));  // not a grey level
  EXPECT_TRUE(fixed_form("gaussian:sigma=2", Border{BorderMode::constant, 40.0f}));
  const auto g = fixed_form("gaussian:sigma=2");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->row.size(), 7u);  // 13 taps
  EXPECT_LT(g->error_bound, 0.1);
  unsigned sum = g->row[0];
  for (std::size_t k = 1; k < g->row.size(); ++k) sum += 2u * g->row[k];
  EXPECT_EQ(sum, 65536u);  // the row's weights sum to exactly 1
}

// The CPU's vectors and bands give the rule's bytes: every border, 1, 3 and 4 channels, widths that
// leave vector tails, several thread counts.
TEST(SmoothFixed, CpuEqualsTheRuleByteForByte) {
  const Border borders[] = {{BorderMode::reflect101, 0}, {BorderMode::reflect, 0}, {BorderMode::replicate, 0}, {BorderMode::wrap, 0},
                            {BorderMode::constant, 200}};
  unsigned seed = 1;
  for (const char* k : {"gaussian:sigma=2", "box:5x3", "gaussian:sigma=1.2,size=5"})
    for (const Border& b : borders)
      for (int c : {1, 3, 4})
        for (const auto& [w, h] : {std::pair{97, 23}, std::pair{5, 40}, std::pair{300, 9}}) {
          const auto src = noise(w, h, c, seed++);
          const auto f = fixed_form(k, b);
          ASSERT_TRUE(f) << k;
          ConvolveParams o;
          o.border = b;
          Image<std::uint8_t> got(w, h, c);
          convolve_cpu<std::uint8_t>(src.view(), got.view(), parse_kernel(k), o);
          int wrong = 0;
          for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
              for (int ch = 0; ch < c; ++ch) wrong += got(x, y, ch) != rule_at(src, *f, b, x, y, ch);
          ASSERT_EQ(wrong, 0) << k << " " << to_string(b) << " c=" << c << " " << w << "x" << h;
        }
  const auto src = noise(640, 200, 3, 99);
  Image<std::uint8_t> one(640, 200, 3), many(640, 200, 3);
  set_num_threads(1);
  convolve_cpu<std::uint8_t>(src.view(), one.view(), parse_kernel("gaussian:sigma=2"));
  set_num_threads(0);
  convolve_cpu<std::uint8_t>(src.view(), many.view(), parse_kernel("gaussian:sigma=2"));
  for (int y = 0; y < 200; ++y) ASSERT_EQ(std::memcmp(one.row(y), many.row(y), 640 * 3), 0) << y;
}

// The vector loops against the scalar ones on long rows (every lane position and tail).
TEST(SmoothFixed, VectorRowsEqualScalarRows) {
  const auto f = fixed_form("gaussian:sigma=3");
  ASSERT_TRUE(f);
  const int m = f->row_half();
  for (std::size_t n : {1u, 31u, 64u, 257u, 4099u}) {
    std::vector<std::uint16_t> padded(n + 2 * m), a(n), b(n);
    std::mt19937 rng(static_cast<unsigned>(n));
    for (auto& v : padded) v = static_cast<std::uint16_t>(gpuvis_smooth_sample(rng() & 255));
    fixed_rows::row_pass(padded.data() + m, 1, f->row.data(), m, n, a.data());
    fixed_rows::scalar::row_pass(padded.data() + m, 1, f->row.data(), m, 0, n, b.data());
    ASSERT_EQ(a, b) << n;
    std::vector<std::vector<std::uint16_t>> rows(2 * m + 1, std::vector<std::uint16_t>(n));
    std::vector<const std::uint16_t*> pointers;
    for (auto& r : rows) {
      for (auto& v : r) v = static_cast<std::uint16_t>(rng() % 32700);
      pointers.push_back(r.data());
    }
    std::vector<std::uint8_t> x(n), y(n);
    fixed_rows::column_pass(pointers.data(), f->column.data(), m, n, x.data());
    fixed_rows::scalar::column_pass(pointers.data(), f->column.data(), m, 0, n, y.data());
    ASSERT_EQ(x, y) << n;
  }
}

// Within one grey level of the float sums on noise (the worst case) and on smooth ramps, and within
// the stated bound of the exact value before its rounding; most outputs equal.
TEST(SmoothFixed, WithinOneGreyLevelOfTheFloatSums) {
  for (const char* k : {"gaussian:sigma=0.8", "gaussian:sigma=2", "gaussian:sigma=5", "box:9", "box:33"}) {
    const auto f = fixed_form(k);
    ASSERT_TRUE(f) << k;
    for (int image = 0; image < 2; ++image) {
      Image<std::uint8_t> src = noise(211, 67, 3, 7);
      if (image == 1)
        for (int y = 0; y < 67; ++y)
          for (int i = 0; i < 211 * 3; ++i) src.row(y)[i] = static_cast<std::uint8_t>((i * 7 + y * 3) % 256 < 128 ? i % 256 : 255 - i % 256);
      ConvolveParams fixed, floats;
      floats.fixed_point = false;
      Image<std::uint8_t> a(211, 67, 3), b(211, 67, 3);
      convolve_cpu<std::uint8_t>(src.view(), a.view(), parse_kernel(k), fixed);
      convolve_cpu<std::uint8_t>(src.view(), b.view(), parse_kernel(k), floats);
      int far = 0, differ = 0, off_bound = 0;
      const Kernel kernel = parse_kernel(k);
      const int rx = kernel.width / 2, ry = kernel.height / 2;
      for (int y = 0; y < 67; ++y)
        for (int x = 0; x < 211; ++x)
          for (int ch = 0; ch < 3; ++ch) {
            const int d = std::abs(int{a(x, y, ch)} - int{b(x, y, ch)});
            far += d > 1;
            differ += d != 0;
            double exact = 0;  // the definition in double, reflect101 borders
            for (int j = -ry; j <= ry; ++j)
              for (int i = -rx; i <= rx; ++i)
                exact += kernel.at(i + rx, j + ry) * src(border_index(x + i, 211, BorderMode::reflect101), border_index(y + j, 67, BorderMode::reflect101), ch);
            off_bound += std::abs(a(x, y, ch) - exact) > 0.5 + f->error_bound + 1e-9;
          }
      EXPECT_EQ(far, 0) << k;
      EXPECT_EQ(off_bound, 0) << k << ": an output further from the exact value than half a grey level and the bound " << f->error_bound;
      EXPECT_LT(differ, 211 * 67 * 3 / 4) << k;  // the exact value within the bound of a half: rare for small bounds
    }
  }
}

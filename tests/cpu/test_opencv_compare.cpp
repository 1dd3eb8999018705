// gpuvis filters against OpenCV (a test-only dependency) on the modes both support.
#include <gtest/gtest.h>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <algorithm>
#include <random>

#include "gpuvis/filters/convolve.hpp"
#include "filters/filter_backends.hpp"
#include "test_support.hpp"

using namespace gpuvis;
using namespace gpuvis::filters;

namespace {

template <class T> int cv_depth();
template <> int cv_depth<std::uint8_t>() { return CV_8U; }
template <> int cv_depth<std::uint16_t>() { return CV_16U; }
template <> int cv_depth<float>() { return CV_32F; }


template <class T>
cv::Mat as_mat(const Image<T>& img) {
  return cv::Mat(img.height(), img.width(), CV_MAKETYPE(cv_depth<T>(), img.channels()), const_cast<T*>(img.data()),
                 static_cast<std::size_t>(img.stride()));
}

int cv_border(BorderMode m) {
  switch (m) {
    case BorderMode::constant: return cv::BORDER_CONSTANT;
    case BorderMode::replicate: return cv::BORDER_REPLICATE;
    case BorderMode::reflect: return cv::BORDER_REFLECT;
    case BorderMode::wrap: return cv::BORDER_WRAP;
    default: return cv::BORDER_REFLECT_101;
  }
}

// Floats: 1e-5 relative to the magnitude of the sum's terms (scale = sum |k| * max |x|), since
// cancellation makes small results carry the rounding of large terms. Integers: 1 LSB.
template <class T>
void compare(const Image<T>& ours, const cv::Mat& theirs, const std::string& what, double scale = 0) {
  int bad = 0;
  for (int y = 0; y < ours.height(); ++y)
    for (int i = 0; i < ours.width() * ours.channels(); ++i) {
      const double a = ours.row(y)[i], b = theirs.ptr<T>(y)[i];
      const bool ok = std::is_same_v<T, float> ? std::abs(a - b) <= 1e-5 * std::max({1.0, std::abs(b), scale}) : std::abs(a - b) <= 1;
      if (!ok && bad++ < 3) ADD_FAILURE() << what << ": row " << y << " sample " << i << ": gpuvis " << a << ", OpenCV " << b;
    }
  EXPECT_EQ(bad, 0) << what;
}

template <class T>
void run_all(std::uint32_t seed) {
  const char* kernels[] = {"1,2,1;2,4,2;1,2,1/16", "sharpen", "laplacian", "0.5,-1,2,0.25,1;1,1,1,1,1;-2,0,0,3,1", "box:5"};
  for (int channels : {1, 3})
    for (const char* ks : kernels)
      for (BorderMode m : {BorderMode::constant, BorderMode::replicate, BorderMode::reflect, BorderMode::reflect101}) {
        const auto src = test::random_typed<T>(61, 37, channels, seed++, 0.f, 1000.f);
        const Kernel k = parse_kernel(ks);
        ConvolveParams o;
        o.border.mode = m;  // constant 0, OpenCV's filter2D default
        Image<T> ours(61, 37, channels);
        convolve_cpu<T>(src.view(), ours.view(), k, o);
        cv::Mat kmat(k.height, k.width, CV_32F, const_cast<float*>(k.weights.data()));
        cv::Mat theirs;
        cv::filter2D(as_mat(src), theirs, -1, kmat, cv::Point(-1, -1), 0, cv_border(m));
        double l1 = 0;
        for (float w : k.weights) l1 += std::abs(w);
        compare(ours, theirs, std::string("filter2D ") + ks + " border " + to_string(o.border) + " c=" + std::to_string(channels),
                l1 * 1000);
      }
}

}  // namespace

TEST(OpenCV, Filter2DU8) { run_all<std::uint8_t>(1); }
TEST(OpenCV, Filter2DU16) { run_all<std::uint16_t>(100); }
TEST(OpenCV, Filter2DF32) { run_all<float>(200); }

TEST(OpenCV, SepFilter2DGaussian) {
  for (double sigma : {0.8, 2.0, 5.0}) {
    const auto src = test::random_typed<float>(120, 90, 3, 7, 0.f, 1000.f);
    const Kernel k = parse_kernel("gaussian:sigma=" + std::to_string(sigma));
    const auto s = separate(k);
    ASSERT_TRUE(s.separable);
    Image<float> ours(120, 90, 3);
    convolve_cpu<float>(src.view(), ours.view(), k);
    cv::Mat theirs;
    cv::sepFilter2D(as_mat(src), theirs, -1, cv::Mat(s.row), cv::Mat(s.column), cv::Point(-1, -1), 0, cv::BORDER_REFLECT_101);
    compare(ours, theirs, "sepFilter2D sigma " + std::to_string(sigma));
  }
}

#include "gpuvis/filters/bilateral.hpp"

TEST(OpenCV, BilateralGreyAndColour) {
  for (int channels : {1, 3})
    for (int radius : {2, 3, 5}) {
      const auto src = test::random_typed<std::uint8_t>(90, 70, channels, 40 + radius, 0.f, 1000.f);
      BilateralParams p;
      p.radius = radius;
      p.sigma_space = 2.5f;
      p.sigma_range = 40;
      p.distance = ColourDistance::l1;  // OpenCV's colour distance on 8-bit images
      Image<std::uint8_t> ours(90, 70, channels);
      bilateral_cpu<std::uint8_t>(src.view(), ours.view(), p);
      cv::Mat theirs;
      cv::bilateralFilter(as_mat(src), theirs, 2 * radius + 1, 40, 2.5, cv::BORDER_REFLECT_101);
      compare(ours, theirs, "bilateralFilter c=" + std::to_string(channels) + " r=" + std::to_string(radius));
    }
}

// The bilateral filter on OpenCL against the CPU, byte for byte as the CUDA backend is: every sample
// type, 1, 3 and 4 channels, fixed and adaptive σr, colour and per-channel range weights, the l1
// and l2 colour distances, every border, windows small enough for local memory and too large for
// it, camera-like content where outputs sit on rounding boundaries, and sub-views with a foreign
// stride.
#include <gtest/gtest.h>

#include <string>

#include "filters/filter_backends.hpp"
#include "gpuvis/filters/bilateral.hpp"
#include "gpuvis/filters/convolve.hpp"
#include "opencl_skip.hpp"
#include "test_support.hpp"

using namespace gpuvis;
using namespace gpuvis::filters;

namespace {

template <class T>
std::size_t opencl_differences(HostView<const T> src, BilateralParams p) {
  Image<T> cpu(src.width, src.height, src.channels), ocl(src.width, src.height, src.channels);
  bilateral_cpu<T>(src, cpu.view(), p);
  p.backend = Backend::opencl;
  bilateral<T>(src, ocl.view(), p);
  return count_differences<T>(cpu.view(), ocl.view());
}

std::string describe(int c, const BilateralParams& p) {
  return "c=" + std::to_string(c) + " r=" + std::to_string(p.radius) + (p.adaptive ? " adaptive" : "") +
         (p.mode == RangeMode::colour ? " colour" : " per-channel") + (p.distance == ColourDistance::l1 ? " l1" : " l2");
}

}  // namespace

TEST(BilateralOpencl, EqualsTheCpuForEveryTypeChannelCountModeAndBorder) {
  GPUVIS_REQUIRE_OPENCL();
  std::uint32_t seed = 50;
  for (int c : {1, 3, 4})
    for (bool adaptive : {false, true})
      for (RangeMode mode : {RangeMode::colour, RangeMode::per_channel})
        for (const char* border : {"reflect101", "constant:40", "wrap"}) {
          BilateralParams p;
          p.radius = 3;
          p.adaptive = adaptive;
          p.mode = mode;
          p.border = parse_border(border);
          const auto u8 = test::random_typed<std::uint8_t>(101, 67, c, seed++, -100.f, 1000.f);
          EXPECT_EQ(opencl_differences<std::uint8_t>(u8.view(), p), 0u) << "u8 " << describe(c, p) << " " << border;
          const auto u16 = test::random_typed<std::uint16_t>(45, 38, c, seed++, -100.f, 70000.f);
          p.sigma_range = 9000;
          EXPECT_EQ(opencl_differences<std::uint16_t>(u16.view(), p), 0u) << "u16 " << describe(c, p) << " " << border;
          const auto f = test::random_typed<float>(64, 48, c, seed++, -100.f, 1000.f);
          p.sigma_range = 200;
          EXPECT_EQ(opencl_differences<float>(f.view(), p), 0u) << "f32 " << describe(c, p) << " " << border;
        }
}

// Camera-like content, where one output in 10^5 or so sits on a rounding boundary: floats compared
// exactly, 8-bit outputs exactly after rounding.
TEST(BilateralOpencl, EqualsTheCpuBitForBitOnCameraLikeImages) {
  GPUVIS_REQUIRE_OPENCL();
  std::uint32_t seed = 90;
  for (int c : {1, 3})
    for (bool adaptive : {false, true}) {
      const auto u8 = test::textured_colour(320, 240, c, seed++);
      const Image<float> f = test::as_float(u8);
      BilateralParams p;
      p.radius = 3;
      p.sigma_range = 20;
      p.adaptive = adaptive;
      EXPECT_EQ(opencl_differences<std::uint8_t>(u8.view(), p), 0u) << "u8 " << describe(c, p);
      EXPECT_EQ(opencl_differences<float>(f.view(), p), 0u) << "f32 " << describe(c, p);
    }
}

// Radii whose tiles do not fit in local memory on a GPU (3 or 4 channels at radius 64 need
// 330 KiB), where every tap reads the image, and the l1 colour distance.
TEST(BilateralOpencl, LargeWindowsAndTheL1DistanceEqualTheCpu) {
  GPUVIS_REQUIRE_OPENCL();
  std::uint32_t seed = 70;
  for (int c : {1, 4})
    for (int radius : {20, 64})
      for (ColourDistance distance : {ColourDistance::l2, ColourDistance::l1}) {
        BilateralParams p;
        p.radius = radius;
        p.sigma_space = static_cast<float>(radius) / 2;
        p.distance = distance;
        const auto u8 = test::random_typed<std::uint8_t>(75, 140, c, seed++, -100.f, 1000.f);
        EXPECT_EQ(opencl_differences<std::uint8_t>(u8.view(), p), 0u) << describe(c, p);
      }
}

TEST(BilateralOpencl, SubViewsWithAForeignStrideEqualTheCpu) {
  GPUVIS_REQUIRE_OPENCL();
  const auto big = test::random_typed<std::uint8_t>(300, 200, 3, 5, 0.f, 255.f);
  const auto view = big.view().crop(13, 7, 201, 150);
  BilateralParams p;
  p.radius = 4;
  Image<std::uint8_t> cpu(201, 150, 3), canvas(240, 170, 3);
  canvas.fill(9);
  bilateral_cpu<std::uint8_t>(view, cpu.view(), p);
  p.backend = Backend::opencl;
  const auto out = canvas.view().crop(20, 10, 201, 150);
  bilateral<std::uint8_t>(view, out, p);
  EXPECT_EQ(count_differences<std::uint8_t>(HostView<const std::uint8_t>(out), cpu.view()), 0u);
  EXPECT_EQ(canvas(19, 10, 0), 9);  // beside the output view: untouched
  EXPECT_EQ(canvas(20, 9, 2), 9);
}

// Images of 1 MiB and more go in strips through page-locked staging, several in flight, each strip
// with its radius rows above and below mapped by the border rule on the host: a 9.2 MB sub-view
// with a foreign stride (three strips), every border, the CPU's bytes; the canvas beside the
// output untouched.
TEST(BilateralOpencl, LargeImagesInStripsEqualTheCpu) {
  GPUVIS_REQUIRE_OPENCL();
  const auto big = test::random_typed<float>(1130, 720, 3, 8, 0.f, 255.f);
  const auto view = big.view().crop(17, 9, 1100, 700);
  for (const char* border : {"reflect101", "wrap", "constant:40"}) {
    BilateralParams p;
    p.radius = 3;
    p.border = parse_border(border);
    Image<float> cpu(1100, 700, 3), canvas(1120, 710, 3);
    canvas.fill(-1.f);
    bilateral_cpu<float>(view, cpu.view(), p);
    p.backend = Backend::opencl;
    const auto out = canvas.view().crop(10, 5, 1100, 700);
    bilateral<float>(view, out, p);
    EXPECT_EQ(count_differences<float>(HostView<const float>(out), cpu.view()), 0u) << border;
    EXPECT_EQ(canvas(9, 5, 0), -1.f);  // beside the output view: untouched
    EXPECT_EQ(canvas(10, 705, 1), -1.f);
  }
}

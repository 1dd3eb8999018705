// OpenCL convolution against the CPU, within the tolerance the CUDA backend is held to (1 LSB for
// integer samples, 1e-5 relative to the terms' magnitude for floats): every sample type, 1, 3 and
// 4 channels, every border, 2D and separable kernels up to 31x31 and 1x127, a flipped kernel,
// 1x1 images and sub-views with a foreign stride.
#include <gtest/gtest.h>

#include "filters/filter_backends.hpp"
#include "filter_compare.hpp"
#include "gpuvis/filters/convolve.hpp"
#include "opencl_skip.hpp"
#include "test_support.hpp"

using namespace gpuvis;
using namespace gpuvis::filters;

namespace {

template <class T>
void check(int w, int h, std::uint32_t seed, std::initializer_list<const char*> kernels) {
  test::expect_convolution_like_the_cpu<T>(
      w, h, seed, kernels,
      [](HostView<const T> src, HostView<T> dst, const Kernel& k, ConvolveParams o) {
        o.backend = Backend::opencl;
        convolve<T>(src, dst, k, o);
      },
      true);
}

}  // namespace

TEST(ConvolveOpencl, EqualsTheCpuForEveryTypeChannelCountAndBorder) {
  GPUVIS_REQUIRE_OPENCL();
  const auto kernels = {"1,2,1;2,4,2;1,2,1/16", "sharpen", "0.5,-1,2,0.25,1;1,1,1,1,1;-2,0,0,3,1", "gaussian:sigma=2", "box:31x31",
                        "gaussian:sigma=15,size=127"};
  check<std::uint8_t>(97, 61, 1, kernels);
  check<std::uint8_t>(1, 1, 2, {"sharpen", "box:5"});
  check<std::uint16_t>(130, 33, 3, {"sharpen", "gaussian:sigma=2", "box:3x9"});
  check<float>(77, 129, 4, {"0.5,-1,2,0.25,1;1,1,1,1,1;-2,0,0,3,1", "gaussian:sigma=3"});
}

TEST(ConvolveOpencl, SubViewsWithAForeignStrideEqualTheCpu) {
  GPUVIS_REQUIRE_OPENCL();
  const auto big = test::random_typed<std::uint8_t>(300, 200, 3, 5, 0.f, 255.f);
  const auto view = big.view().crop(13, 7, 201, 150);
  ConvolveParams o;
  Image<std::uint8_t> cpu(201, 150, 3), canvas(240, 170, 3);
  canvas.fill(9);
  convolve_cpu<std::uint8_t>(view, cpu.view(), parse_kernel("gaussian:sigma=1.5"), o);
  o.backend = Backend::opencl;
  convolve<std::uint8_t>(view, canvas.view().crop(20, 10, 201, 150), parse_kernel("gaussian:sigma=1.5"), o);
  Image<std::uint8_t> ocl(201, 150, 3);
  for (int y = 0; y < 150; ++y)
    for (int x = 0; x < 201 * 3; ++x) ocl.row(y)[x] = canvas.view().crop(20, 10, 201, 150).row(y)[x];
  EXPECT_EQ(test::convolve_differences(ocl, cpu, 0), 0);
  EXPECT_EQ(canvas(19, 10, 0), 9);  // beside the output view: untouched
  EXPECT_EQ(canvas(20, 9, 2), 9);
}

// Images of 1 MiB and more cross the bus through page-locked staging in pieces of about 2 MiB:
// a sub-view of 9 MB with a foreign stride, both ways, and the canvas beside the output untouched.
TEST(ConvolveOpencl, LargeImagesThroughStagingInPiecesEqualTheCpu) {
  GPUVIS_REQUIRE_OPENCL();
  const auto big = test::random_typed<float>(1130, 720, 3, 6, 0.f, 1.f);
  const auto view = big.view().crop(17, 9, 1100, 700);  // 9.2 MB, rows 13560 bytes apart
  ConvolveParams o;
  Image<float> cpu(1100, 700, 3), canvas(1120, 710, 3);
  canvas.fill(-1.f);
  convolve_cpu<float>(view, cpu.view(), parse_kernel("gaussian:sigma=2"), o);
  o.backend = Backend::opencl;
  const auto out = canvas.view().crop(10, 5, 1100, 700);
  convolve<float>(view, out, parse_kernel("gaussian:sigma=2"), o);
  Image<float> ocl(1100, 700, 3);
  for (int y = 0; y < 700; ++y)
    for (int x = 0; x < 1100 * 3; ++x) ocl.row(y)[x] = out.row(y)[x];
  EXPECT_EQ(test::convolve_differences(ocl, cpu, 0), 0);
  EXPECT_EQ(canvas(9, 5, 0), -1.f);  // beside the output view: untouched
  EXPECT_EQ(canvas(10, 4, 2), -1.f);
  EXPECT_EQ(canvas(10, 705, 1), -1.f);
}

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

// Images of 1 MiB and more cross the bus in strips through page-locked staging, several in flight:
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

// Images larger than the device memory budget go in strips whose halo rows the host stages already
// mapped by the border rule: the bytes of the whole image in one piece, for every border (wrap and
// the constant included, whose rows above the image come from its bottom or from the value), 2D and
// separable kernels, one and three channels, and strips thinner than the kernel's reach.
TEST(ConvolveOpencl, StripsWithinAMemoryBudgetEqualTheWholeImage) {
  GPUVIS_REQUIRE_OPENCL();
  const char* borders[] = {"reflect101", "reflect", "replicate", "wrap", "constant:7.5"};
  for (int channels : {1, 3}) {
    const auto img = test::random_typed<std::uint8_t>(83, 57, channels, 11 + static_cast<std::uint32_t>(channels), 0.f, 255.f);
    // box:3x15 and the Gaussian of sigma 2 run in one pass (convolve_separable), that of 41 taps in two
    for (const char* kernel : {"gaussian:sigma=2", "0.5,-1,2,0.25,1;1,1,1,1,1;-2,0,0,3,1", "box:3x15", "gaussian:sigma=7,size=41"})
      for (const char* border : borders) {
        ConvolveParams o;
        o.backend = Backend::opencl;
        o.border = parse_border(border);
        Image<std::uint8_t> whole(83, 57, channels), strips(83, 57, channels), cpu(83, 57, channels);
        convolve<std::uint8_t>(img.view(), whole.view(), parse_kernel(kernel), o);
        const std::size_t row = 83u * static_cast<std::size_t>(channels);
        const auto halo = static_cast<std::size_t>(parse_kernel(kernel).height / 2);
        for (const std::size_t strip_rows : {20u, 3u, 1u}) {
          // Per row at most: in, out and the float row pass (6 bytes a sample); the halo rows: in and row pass.
          o.max_gpu_memory = row * (6 * strip_rows + 10 * halo);
          strips.fill(1);
          convolve<std::uint8_t>(img.view(), strips.view(), parse_kernel(kernel), o);
          int differing = 0;  // exactly: not within a tolerance
          for (int y = 0; y < 57; ++y)
            for (std::size_t i = 0; i < row; ++i) differing += strips.row(y)[i] != whole.row(y)[i];
          EXPECT_EQ(differing, 0) << kernel << " " << border << " " << channels << " " << strip_rows;
        }
        ConvolveParams on_cpu;
        on_cpu.border = o.border;
        convolve_cpu<std::uint8_t>(img.view(), cpu.view(), parse_kernel(kernel), on_cpu);
        EXPECT_EQ(test::convolve_differences(whole, cpu, 1), 0) << kernel << " " << border;
      }
  }
  ConvolveParams tiny;
  tiny.backend = Backend::opencl;
  tiny.max_gpu_memory = 64;
  Image<std::uint8_t> img(83, 57), out(83, 57);
  try {
    convolve<std::uint8_t>(img.view(), out.view(), parse_kernel("gaussian:sigma=2"), tiny);
    ADD_FAILURE() << "a 64-byte budget was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot hold one strip"), std::string::npos) << e.what();
  }
}

// 8-bit smoothing in fixed point (filters/smooth_fixed.hpp) gives the CPU's bytes exactly: every
// border, 1, 3 and 4 channels, 3 to 33 taps, whole images and strips.
TEST(ConvolveOpencl, FixedPointSmoothingEqualsTheCpuByteForByte) {
  GPUVIS_REQUIRE_OPENCL();
  test::expect_fixed_smoothing_like_the_cpu(70, 32 * 1024, [](HostView<const std::uint8_t> src, HostView<std::uint8_t> dst, const Kernel& k,
                                                             ConvolveParams o) {
    o.backend = Backend::opencl;
    convolve<std::uint8_t>(src, dst, k, o);
  });
}

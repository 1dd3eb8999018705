// CUDA convolution against the CPU: within 1 LSB for integer types and 1e-5 (relative to the
// terms' magnitude) for floats; strip processing identical to the one-shot path.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

#include "gpuvis/filters/convolve.hpp"
#include "filters/filter_backends.hpp"
#include "filter_compare.hpp"
#include "test_support.hpp"

using namespace gpuvis;
using namespace gpuvis::filters;

namespace {

template <class T>
void check(int w, int h, std::uint32_t seed) {
  test::expect_convolution_like_the_cpu<T>(
      w, h, seed,
      {"1,2,1;2,4,2;1,2,1/16", "sharpen", "0.5,-1,2,0.25,1;1,1,1,1,1;-2,0,0,3,1", "gaussian:sigma=2", "box:31x31",
       "gaussian:sigma=15,size=127"},
      [](HostView<const T> src, HostView<T> dst, const Kernel& k, const ConvolveParams& o) { convolve_cuda<T>(src, dst, k, o); });
}
}  // namespace

TEST(ConvolveCuda, EqualsCpuU8) {
  GPUVIS_REQUIRE_GPU();
  check<std::uint8_t>(97, 61, 1);
  check<std::uint8_t>(1, 1, 2);
}
TEST(ConvolveCuda, EqualsCpuU16) {
  GPUVIS_REQUIRE_GPU();
  check<std::uint16_t>(130, 33, 3);
}
TEST(ConvolveCuda, EqualsCpuF32) {
  GPUVIS_REQUIRE_GPU();
  check<float>(77, 129, 4);
}

TEST(ConvolveCuda, StripsGiveTheSameResultAsOneShot) {
  GPUVIS_REQUIRE_GPU();
  for (const char* ks : {"box:7", "sharpen", "gaussian:sigma=4"})
    for (const char* bs : {"wrap", "constant:7", "reflect101"}) {
      const auto src = test::random_typed<std::uint8_t>(800, 600, 3, 9, -100.f, 1000.f);
      ConvolveParams whole, strips;
      whole.border = strips.border = parse_border(bs);
      strips.max_gpu_memory = 600 * 1024;  // tens of rows per strip
      int calls = 0;
      strips.progress = [&](double) { ++calls; };
      Image<std::uint8_t> a(800, 600, 3), b(800, 600, 3);
      convolve_cuda<std::uint8_t>(src.view(), a.view(), parse_kernel(ks), whole);
      convolve_cuda<std::uint8_t>(src.view(), b.view(), parse_kernel(ks), strips);
      EXPECT_EQ(count_differences<std::uint8_t>(a.view(), b.view()), 0u) << ks << " " << bs;
      EXPECT_GT(calls, 3) << "expected several strips";
    }
  ConvolveParams tiny;
  tiny.max_gpu_memory = 100;
  const auto src = test::random_typed<std::uint8_t>(800, 600, 3, 9, -100.f, 1000.f);
  Image<std::uint8_t> out(800, 600, 3);
  try {  // one line that says what budget would do
    convolve_cuda<std::uint8_t>(src.view(), out.view(), parse_kernel("box:7"), tiny);
    ADD_FAILURE() << "a 100-byte budget was accepted";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("is too small"), std::string::npos) << what;
    EXPECT_NE(what.find("need at least"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

TEST(ConvolveCuda, FourKColour) {
  GPUVIS_REQUIRE_GPU();
  const auto src = test::random_typed<float>(3840, 2160, 3, 11, -100.f, 1000.f);
  for (const char* ks : {"gaussian:sigma=1.5", "0.5,-1,2,0.25,1;1,1,1,1,1;-2,0,0,3,1"}) {
    Image<float> cpu(3840, 2160, 3), gpu(3840, 2160, 3);
    convolve_cpu<float>(src.view(), cpu.view(), parse_kernel(ks));
    convolve_cuda<float>(src.view(), gpu.view(), parse_kernel(ks));
    EXPECT_EQ(test::convolve_differences(gpu, cpu, 10 * 1000), 0) << ks;
  }
}

// One-channel separable kernels take a path with 128-column tiles whose interior tiles read rows
// with vector loads: frames wide and tall enough to have interior tiles, odd sizes, strips.
TEST(ConvolveCuda, OneChannelSeparableOnLargeFrames) {
  GPUVIS_REQUIRE_GPU();
  for (auto [w, h] : {std::pair{1000, 300}, std::pair{3840, 2160}, std::pair{1283, 517}})
    for (const char* ks : {"gaussian:sigma=2", "box:3", "gaussian:sigma=2.4", "1,4,6,4,1;4,16,24,16,4;6,24,36,24,6;4,16,24,16,4;1,4,6,4,1/256"})
      for (const char* bs : {"reflect101", "constant:5"}) {
        ConvolveParams o;
        o.border = parse_border(bs);
        const auto f = test::random_typed<float>(w, h, 1, 21, -100.f, 1000.f);
        Image<float> fc(w, h, 1), fg(w, h, 1);
        convolve_cpu<float>(f.view(), fc.view(), parse_kernel(ks), o);
        convolve_cuda<float>(f.view(), fg.view(), parse_kernel(ks), o);
        EXPECT_EQ(test::convolve_differences(fg, fc, 1000), 0) << ks << " " << bs << " " << w << "x" << h;
        const auto u = test::random_typed<std::uint8_t>(w, h, 1, 22, -100.f, 1000.f);
        Image<std::uint8_t> uc(w, h, 1), ug(w, h, 1), us(w, h, 1);
        convolve_cpu<std::uint8_t>(u.view(), uc.view(), parse_kernel(ks), o);
        convolve_cuda<std::uint8_t>(u.view(), ug.view(), parse_kernel(ks), o);
        EXPECT_EQ(test::convolve_differences(ug, uc, 0), 0) << ks << " " << bs << " u8 " << w << "x" << h;
        o.max_gpu_memory = static_cast<std::size_t>(w) * 70;  // strips of a few dozen rows
        convolve_cuda<std::uint8_t>(u.view(), us.view(), parse_kernel(ks), o);
        EXPECT_EQ(count_differences<std::uint8_t>(ug.view(), us.view()), 0u) << ks << " " << bs << " strips " << w << "x" << h;
      }
}

#include "gpuvis/filters/bilateral.hpp"

TEST(BilateralCuda, EqualsCpu) {
  GPUVIS_REQUIRE_GPU();
  std::uint32_t seed = 50;
  for (int c : {1, 3, 4})
    for (bool adaptive : {false, true})
      for (RangeMode mode : {RangeMode::colour, RangeMode::per_channel}) {
        BilateralParams p;
        p.radius = 3;
        p.adaptive = adaptive;
        p.mode = mode;
        const auto u8 = test::random_typed<std::uint8_t>(101, 67, c, seed++, -100.f, 1000.f);
        Image<std::uint8_t> a(101, 67, c), b(101, 67, c);
        bilateral_cpu<std::uint8_t>(u8.view(), a.view(), p);
        bilateral_cuda<std::uint8_t>(u8.view(), b.view(), p);
        EXPECT_EQ(test::convolve_differences(b, a, 0), 0) << "u8 c=" << c << " adaptive=" << adaptive;
        const auto f = test::random_typed<float>(64, 48, c, seed++, -100.f, 1000.f);
        Image<float> fa(64, 48, c), fb(64, 48, c);
        p.sigma_range = 200;
        bilateral_cpu<float>(f.view(), fa.view(), p);
        bilateral_cuda<float>(f.view(), fb.view(), p);
        EXPECT_EQ(test::convolve_differences(fb, fa, 1000), 0) << "f32 c=" << c << " adaptive=" << adaptive;
      }
}

// Bit for bit on camera-like content at 640x480, where one output in 10^5 or so sits on a rounding
// boundary: floats compared exactly before rounding, 8-bit outputs exactly after.
TEST(BilateralCuda, EqualsCpuBitForBitOnCameraLikeImages) {
  GPUVIS_REQUIRE_GPU();
  std::uint32_t seed = 90;
  for (int c : {1, 3, 4})
    for (RangeMode mode : {RangeMode::colour, RangeMode::per_channel})
      for (bool adaptive : {false, true}) {
        const auto u8 = test::textured_colour(640, 480, c, seed++);
        const Image<float> f = test::as_float(u8);
        BilateralParams p;
        p.radius = 3;
        p.sigma_range = 20;
        p.mode = mode;
        p.adaptive = adaptive;
        Image<std::uint8_t> a(640, 480, c), b(640, 480, c);
        bilateral_cpu<std::uint8_t>(u8.view(), a.view(), p);
        bilateral_cuda<std::uint8_t>(u8.view(), b.view(), p);
        EXPECT_EQ(count_differences<std::uint8_t>(a.view(), b.view()), 0u) << "u8 c=" << c << " adaptive=" << adaptive;
        Image<float> fa(640, 480, c), fb(640, 480, c);
        bilateral_cpu<float>(f.view(), fa.view(), p);
        bilateral_cuda<float>(f.view(), fb.view(), p);
        EXPECT_EQ(count_differences<float>(fa.view(), fb.view()), 0u) << "f32 c=" << c << " adaptive=" << adaptive;
      }
}

#include "filters/cuda/filters_cuda.hpp"

TEST(ConvolveCuda, DeviceLevelEntryEqualsCpu) {
  GPUVIS_REQUIRE_GPU();
  for (const char* ks : {"gaussian:sigma=3", "0.5,-1,2,0.25,1;1,1,1,1,1;-2,0,0,3,1"})
    for (const char* bs : {"wrap", "constant:5", "reflect"}) {
      const auto src = test::random_typed<std::uint16_t>(333, 211, 3, 77, -100.f, 1000.f);
      ConvolveParams o;
      o.border = parse_border(bs);
      Image<std::uint16_t> cpu(333, 211, 3), gpu(333, 211, 3);
      convolve_cpu<std::uint16_t>(src.view(), cpu.view(), parse_kernel(ks), o);
      cuda::Stream s;
      cuda::DeviceImage<std::uint16_t> d_src(333, 211, 3), d_dst(333, 211, 3);
      cuda::DeviceBuffer ws;
      cuda::upload<std::uint16_t>(src.view(), d_src.view(), s);
      cuda_impl::convolve<std::uint16_t>(d_src.view(), d_dst.view(), parse_kernel(ks), o, ws, s);
      cuda::download<std::uint16_t>(d_dst.view(), gpu.view(), s);
      s.synchronize();
      EXPECT_EQ(test::convolve_differences(gpu, cpu, 0), 0) << ks << " " << bs;
    }
}

#include "cuda/memory.hpp"

// Windows up to the largest radius, whose tiles (3 or 4 channels, radius 64) do not fit in a
// block's shared memory, so every tap reads the source through the cache; and the l1 colour
// distance: bit for bit the CPU's, from host images (strips) and on the device.
TEST(BilateralCuda, LargeWindowsAndL1DistanceEqualCpu) {
  GPUVIS_REQUIRE_GPU();
  std::uint32_t seed = 70;
  for (int c : {1, 3, 4})
    for (int radius : {20, 64})
      for (ColourDistance distance : {ColourDistance::l2, ColourDistance::l1}) {
        BilateralParams p;
        p.radius = radius;
        p.sigma_space = static_cast<float>(radius) / 2;
        p.distance = distance;
        const auto u8 = test::random_typed<std::uint8_t>(75, 140, c, seed++, -100.f, 1000.f);
        Image<std::uint8_t> a(75, 140, c), b(75, 140, c);
        bilateral_cpu<std::uint8_t>(u8.view(), a.view(), p);
        bilateral_cuda<std::uint8_t>(u8.view(), b.view(), p);
        EXPECT_EQ(count_differences<std::uint8_t>(a.view(), b.view()), 0u)
            << "c=" << c << " radius " << radius << (distance == ColourDistance::l1 ? " l1" : " l2");
        cuda::Stream s;
        cuda::DeviceImage<std::uint8_t> din(75, 140, c), dout(75, 140, c);
        Image<std::uint8_t> d(75, 140, c);
        cuda::upload<std::uint8_t>(u8.view(), din.view(), s);
        cuda_impl::bilateral<std::uint8_t>(din.view(), dout.view(), p, s);
        cuda::download<std::uint8_t>(dout.view(), d.view(), s);
        s.synchronize();
        EXPECT_EQ(count_differences<std::uint8_t>(a.view(), d.view()), 0u) << "device API c=" << c << " radius " << radius;
      }
}

// The host paths run in overlapped strips (cuda::StripPipeline): a 4K image is cut into several,
// each staged with its halo rows, through pinned staging or, for page-locked images, straight.
// Every combination gives the one result: the CPU's for the bilateral (bit for bit), the
// unstripped device path's for the convolution.
TEST(FilterStrips, PinnedAndPageableImagesGiveTheSameResult) {
  GPUVIS_REQUIRE_GPU();
  const int w = 3840, h = 2160;
  auto pinned_copy = [](const auto& img) {
    using T = std::remove_cv_t<std::remove_reference_t<decltype(*img.data())>>;
    cuda::PinnedImage<T> p(img.width(), img.height(), img.channels());
    copy<T>(img.view(), p.view());
    return p;
  };
  {
    const auto rgb = test::textured_colour(w, h, 3, 31);
    BilateralParams p;
    p.radius = 3;
    p.sigma_range = 20;
    p.border = parse_border("constant:7");
    Image<std::uint8_t> cpu(w, h, 3), gpu(w, h, 3);
    bilateral_cpu<std::uint8_t>(rgb.view(), cpu.view(), p);
    bilateral_cuda<std::uint8_t>(rgb.view(), gpu.view(), p);
    EXPECT_EQ(count_differences<std::uint8_t>(cpu.view(), gpu.view()), 0u) << "pageable";
    auto src = pinned_copy(rgb);
    cuda::PinnedImage<std::uint8_t> out(w, h, 3);
    bilateral_cuda<std::uint8_t>(src.view(), out.view(), p);
    EXPECT_EQ(count_differences<std::uint8_t>(cpu.view(), out.view()), 0u) << "pinned in and out";
    bilateral_cuda<std::uint8_t>(src.view(), gpu.view(), p);
    EXPECT_EQ(count_differences<std::uint8_t>(cpu.view(), gpu.view()), 0u) << "pinned in";
    bilateral_cuda<std::uint8_t>(rgb.view(), out.view(), p);
    EXPECT_EQ(count_differences<std::uint8_t>(cpu.view(), out.view()), 0u) << "pinned out";
  }
  for (const char* ks : {"gaussian:sigma=2", "0.5,-1,2,0.25,1;1,1,1,1,1;-2,0,0,3,1"})
    for (const char* bs : {"reflect101", "constant:5"}) {
      const auto f = test::random_typed<float>(w, h, 1, 41, -100.f, 1000.f);
      ConvolveParams o;
      o.border = parse_border(bs);
      // The unstripped device path, as the reference for the host paths.
      Image<float> whole(w, h, 1), gpu(w, h, 1);
      {
        cuda::Stream s;
        cuda::DeviceImage<float> d_src(w, h, 1), d_dst(w, h, 1);
        cuda::DeviceBuffer ws;
        cuda::upload<float>(f.view(), d_src.view(), s);
        cuda_impl::convolve<float>(d_src.view(), d_dst.view(), parse_kernel(ks), o, ws, s);
        cuda::download<float>(d_dst.view(), whole.view(), s);
        s.synchronize();
      }
      convolve_cuda<float>(f.view(), gpu.view(), parse_kernel(ks), o);
      EXPECT_EQ(count_differences<float>(whole.view(), gpu.view()), 0u) << ks << " " << bs << " pageable";
      auto src = pinned_copy(f);
      cuda::PinnedImage<float> out(w, h, 1);
      convolve_cuda<float>(src.view(), out.view(), parse_kernel(ks), o);
      EXPECT_EQ(count_differences<float>(whole.view(), out.view()), 0u) << ks << " " << bs << " pinned";
      o.max_gpu_memory = static_cast<std::size_t>(w) * sizeof(float) * 200;  // three slots of a few dozen rows
      convolve_cuda<float>(f.view(), gpu.view(), parse_kernel(ks), o);
      EXPECT_EQ(count_differences<float>(whole.view(), gpu.view()), 0u) << ks << " " << bs << " small budget";
    }
}

// 8-bit smoothing in fixed point (filters/smooth_fixed.hpp) gives the CPU's bytes exactly: every
// border, 1, 3 and 4 channels, kernels of 3 to 33 taps, in strips, and on device memory.
TEST(ConvolveCuda, FixedPointSmoothingEqualsTheCpuByteForByte) {
  GPUVIS_REQUIRE_GPU();
  test::expect_fixed_smoothing_like_the_cpu(40, 64 * 1024, [](HostView<const std::uint8_t> src, HostView<std::uint8_t> dst, const Kernel& k,
                                                             const ConvolveParams& o) { convolve_cuda<std::uint8_t>(src, dst, k, o); });
  // The device entry point (the Python module's CuPy and PyTorch arrays).
  const auto src = test::random_typed<std::uint8_t>(640, 480, 3, 5);
  Image<std::uint8_t> cpu(640, 480, 3), got(640, 480, 3);
  convolve_cpu<std::uint8_t>(src.view(), cpu.view(), parse_kernel("gaussian:sigma=2"));
  cuda::DeviceImage<std::uint8_t> d_src(640, 480, 3), d_dst(640, 480, 3);
  cuda::Stream stream;
  cuda::upload<std::uint8_t>(src.view(), d_src.view(), stream);
  convolve_on_device<std::uint8_t>(DeviceView<const std::uint8_t>(d_src.view()), d_dst.view(), parse_kernel("gaussian:sigma=2"), {},
                                   stream.get());
  cuda::download<std::uint8_t>(DeviceView<const std::uint8_t>(d_dst.view()), got.view(), stream);
  stream.synchronize();
  EXPECT_EQ(count_differences<std::uint8_t>(cpu.view(), got.view()), 0u) << "device memory";
}

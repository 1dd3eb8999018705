// The second look's deconvolutions on the GPU (src/pipeline/second_look/deconvolver.hpp) restore
// what the CPU's deconvolve restores, bit for bit, for every kind of kernel and patch the looks
// use, so that `--backend cuda` reports the CPU's symbols when prints move.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numbers>
#include <random>
#include <string>

#include "compare_detections.hpp"
#include "gpuvis/pipeline/detector.hpp"
#include "gpuvis/synth/scene.hpp"
#include "gpuvis/track/tracker.hpp"
#include "pipeline/second_look/deconvolver.hpp"
#include "test_support.hpp"

using namespace gpuvis;
namespace sl = gpuvis::pipeline::second_look;

namespace {

// A print-like patch: bars of ink on paper with a table's gradient, smeared along `angle` over
// `length` px, with noise.
Image<float> smeared_patch(int w, int h, double angle, double length, std::uint32_t seed) {
  Image<float> sharp(w, h), out(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      sharp(x, y) = ((x / 5 + y / 7) % 3 == 0) ? 40.0f : 200.0f - 0.3f * static_cast<float>(x);
  const auto kernel = sl::line_kernel(angle, length);
  std::mt19937 rng(seed);
  std::normal_distribution<float> noise(0, 3);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      float v = 0;
      for (const auto& t : kernel)
        v += t.weight * sharp(std::clamp(x - t.dx, 0, w - 1), std::clamp(y - t.dy, 0, h - 1));
      out(x, y) = std::round(std::clamp(v + noise(rng), 0.0f, 255.0f));
    }
  return out;
}

::testing::AssertionResult same_bits(const Image<float>& cpu, const Image<float>& gpu) {
  if (cpu.width() != gpu.width() || cpu.height() != gpu.height())
    return ::testing::AssertionFailure() << "sizes differ";
  long differing = 0;
  for (int y = 0; y < cpu.height(); ++y)
    differing +=
        std::memcmp(cpu.view().row(y), gpu.view().row(y), sizeof(float) * static_cast<std::size_t>(cpu.width())) != 0;
  if (differing == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << differing << " rows differ";
}

}  // namespace

TEST(DeconvolveCuda, RestorationsEqualTheCpuBitForBit) {
  GPUVIS_REQUIRE_GPU();
  const auto gpu = sl::make_cuda_deconvolver();
  const pipeline::SecondLookParams defaults;
  // Patch sizes of the looks (odd, narrow, the largest), smears of 3 to 14 px at angles that give
  // taps on every side, with and without the smoothness term, with an early estimate.
  const struct {
    int w, h;
    double angle, length, smoothness;
    int early;
  } cases[] = {{37, 53, 0.3, 3, 0.25, 0},      {130, 121, 1.2, 12, 0.25, 30}, {97, 97, 2.9, 7, 0.125, 0},
               {219, 219, 0.05, 14, 0.25, 30}, {64, 40, 1.6, 9, 0, 0},        {16, 90, 2.2, 5, 0.25, 12}};
  for (const auto& c : cases) {
    SCOPED_TRACE(std::to_string(c.w) + "x" + std::to_string(c.h) + " smear " + std::to_string(c.length));
    const Image<float> patch = smeared_patch(c.w, c.h, c.angle, c.length, static_cast<std::uint32_t>(c.w * 7 + c.h));
    const auto bounds = sl::print_bounds(patch.view());
    std::vector<sl::Blur> kernels;
    for (double turn : {-0.1, 0.0, 0.05})
      for (double scale : {0.9, 1.0, 1.15}) kernels.push_back(sl::line_kernel(c.angle + turn, c.length * scale));
    // Slid and turned (the varying blur's matrices), both ways, between the lines.
    for (double spin : {-0.1, 0.06})
      kernels.insert(kernels.begin() + 2, sl::Blur::rigid({c.length * std::cos(c.angle), c.length * std::sin(c.angle), spin, 0.45 * c.w, 0.55 * c.h},
                                                          c.w, c.h));
    const sl::DeconvolveSettings settings{defaults.iterations, c.smoothness, bounds, c.early};
    std::vector<Image<float>> restored, early;
    gpu->run(patch.view(), kernels, settings, restored, early);
    ASSERT_EQ(restored.size(), kernels.size());
    for (std::size_t k = 0; k < kernels.size(); ++k) {
      Image<float> cpu_early;
      const Image<float> cpu = sl::deconvolve(patch.view(), kernels[k], settings.iterations, settings.smoothness,
                                              bounds, c.early, cpu_early);
      EXPECT_TRUE(same_bits(cpu, restored[k])) << "kernel " << k;
      if (c.early > 0) {
        EXPECT_TRUE(same_bits(cpu_early, early[k])) << "kernel " << k << ", early estimate";
      }
    }
  }
}

// Tracked prints sliding 12 px a frame from their first frame, the shutter open all the frame: the
// frames where the second look deblurs the most (halo roots, inner roots, the trials' second group,
// appearances taken from deblurred patches). CUDA reports the CPU's detections frame by frame.
TEST(DeconvolveCuda, TrackedSmearedPrintsAreReportedAsOnTheCpu) {
  GPUVIS_REQUIRE_GPU();
  synth::Generator gen(test::symbols_dir());
  synth::SceneParams q;
  q.symbols = 6;
  q.min_size = 53;
  q.max_size = 89;
  q.speed = 12;
  q.spin = 2 * std::numbers::pi / 180;
  q.motion_blur = 1;
  q.seed = 77;
  pipeline::DetectorParams config;
  pipeline::Detector cpu(config);
  config.backend = Backend::cuda;
  pipeline::Detector gpu(config);
  track::Tracker tracker;
  std::vector<decode::ExpectedSymbol> expected;
  int deblurred = 0;
  for (int t = 0; t < 16; ++t) {
    SCOPED_TRACE(t);
    q.frame = t;
    const auto scene = gen.make(q);
    tracker.expected_symbols(expected);
    cpu.expect(expected);
    gpu.expect(expected);
    const pipeline::Detections on_cpu = cpu.detect(scene.image.view());
    EXPECT_TRUE(test::same_detections(on_cpu, gpu.detect(scene.image.view())));
    for (const auto& l : on_cpu.second_looks) deblurred += l.id >= 0 && std::string(l.kind) != "appearance";
    tracker.update(on_cpu, t / 60.0);
  }
  EXPECT_GT(deblurred, 3) << "few symbols came from deblurring: the frames do not test it";
}

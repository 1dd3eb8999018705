// Backend::automatic for host-image filters (gpuvis/filters/auto_backend.hpp): a warm-up call on
// the GPU, two timed calls on each backend in turn, then the faster; never for a backend asked for
// by name, and nothing to learn on a machine without a GPU.
#include <gtest/gtest.h>

#include "filters/auto_backend.hpp"
#include "gpuvis/cuda/runtime.hpp"
#include "gpuvis/filters/convolve.hpp"
#include "gpuvis/opencl/devices.hpp"
#include "test_support.hpp"

using namespace gpuvis;
using namespace gpuvis::filters;

namespace {

// Plays calls of one kind through the bookkeeping, the GPU's timed calls taking gpu_us[0], [1], ...
// in turn and the CPU's cpu_us[0], [1], ...; returns the backend each call ran on.
std::vector<Backend> play(detail::AutoBackend& a, const std::string& kind, Backend gpu, std::vector<double> gpu_us,
                          std::vector<double> cpu_us, int calls) {
  std::vector<Backend> ran;
  std::size_t g = 0, c = 0;
  for (int i = 0; i < calls; ++i) {
    const auto turn = a.next(kind, gpu);
    ran.push_back(turn.backend);
    if (turn.timed) a.measured(kind, turn.backend, turn.backend == Backend::cpu ? cpu_us.at(c++) : gpu_us.at(g++));
  }
  return ran;
}
constexpr Backend G = Backend::cuda, C = Backend::cpu, O = Backend::opencl;

}  // namespace

TEST(AutoBackend, TimesEachBackendTwiceAndKeepsTheFaster) {
  detail::AutoBackend a;
  const auto cpu_faster = play(a, "separable f32x1 1920x1080 pageable", G, {460, 430}, {380, 390}, 8);
  EXPECT_EQ(cpu_faster, (std::vector<Backend>{G, G, C, G, C, C, C, C}));
  const auto gpu_faster = play(a, "bilateral u8x3 1920x1080 pageable", O, {400, 410}, {5700, 5600}, 7);
  EXPECT_EQ(gpu_faster, (std::vector<Backend>{O, O, C, O, C, O, O}));
  // One slow GPU call (the machine busy with something else) does not decide: its other call does.
  const auto one_slow = play(a, "convolve 7x7 f32x1 1920x1080 pageable", G, {2200, 410}, {560, 570}, 6);
  EXPECT_EQ(one_slow.back(), G);
  // Each kind learns for itself; choices() reports all three, with their faster calls.
  const auto choices = a.choices();
  ASSERT_EQ(choices.size(), 3u);
  for (const auto& c : choices) {
    if (c.call.starts_with("separable")) {
      EXPECT_EQ(c.chosen, C);
      EXPECT_DOUBLE_EQ(c.cpu_us, 380);
      EXPECT_DOUBLE_EQ(c.gpu_us, 430);
      EXPECT_EQ(c.calls, 8);
    } else if (c.call.starts_with("bilateral")) {
      EXPECT_EQ(c.chosen, O);
      EXPECT_EQ(c.gpu, O);
    } else {
      EXPECT_DOUBLE_EQ(c.gpu_us, 410);
      EXPECT_EQ(c.chosen, G);
    }
  }
  a.reset();
  EXPECT_TRUE(a.choices().empty());
}

TEST(AutoBackend, StaysOnTheGpuUntilTheCpuHasReported) {
  // Calls of one kind from several threads (Dask's workers): a call may start before the timed
  // ones have reported, and then runs on the GPU.
  detail::AutoBackend a;
  const std::string kind = "convolve 7x7 f32x1 3840x2160 pageable";
  std::vector<detail::AutoBackend::Turn> turns;
  for (int i = 0; i < 5; ++i) turns.push_back(a.next(kind, G));
  EXPECT_FALSE(turns[0].timed);
  for (int i = 1; i < 5; ++i) EXPECT_TRUE(turns[i].timed) << i;
  EXPECT_EQ(a.next(kind, G).backend, G);  // nothing reported yet
  a.measured(kind, C, 100);
  EXPECT_EQ(a.next(kind, G).backend, G);  // the GPU's time is not in yet
  a.measured(kind, G, 200);
  const auto after = a.next(kind, G);
  EXPECT_EQ(after.backend, C);
  EXPECT_FALSE(after.timed);
}

TEST(AutoBackend, ForgetsEverythingPastItsMostKinds) {
  detail::AutoBackend a;
  for (std::size_t i = 0; i < detail::AutoBackend::kMostKinds; ++i) a.next("crop " + std::to_string(i), G);
  EXPECT_EQ(a.choices().size(), detail::AutoBackend::kMostKinds);
  a.next("crop 0", G);  // a kind it knows: nothing forgotten
  EXPECT_EQ(a.choices().size(), detail::AutoBackend::kMostKinds);
  a.next("one more", G);
  ASSERT_EQ(a.choices().size(), 1u);
  EXPECT_EQ(a.choices()[0].call, "one more");
}

TEST(AutoBackend, AFilterWithoutAGpuOrWithABackendNamedLearnsNothing) {
  reset_auto_choices();
  const auto src = test::random_typed<float>(64, 48, 1, 3);
  Image<float> out(64, 48, 1), expected(64, 48, 1);
  const Kernel k = parse_kernel("gaussian:sigma=1");
  ConvolveParams cpu;
  cpu.backend = Backend::cpu;
  convolve<float>(src.view(), expected.view(), k, cpu);
  EXPECT_TRUE(auto_choices().empty());  // a backend named is what runs
  const bool gpu = cuda::device_count() > 0 || opencl::gpu_present();
  for (int i = 0; i < 6; ++i) {
    convolve<float>(src.view(), out.view(), k, {});
    for (int y = 0; y < 48; ++y)
      for (int x = 0; x < 64; ++x) ASSERT_NEAR(out.row(y)[x], expected.row(y)[x], 0.1f) << "call " << i << " at " << x << "," << y;
  }
  const auto choices = auto_choices();
  if (!gpu) {
    EXPECT_TRUE(choices.empty());
    return;
  }
  // With a GPU: one kind, six calls, both backends timed, the sixth on the faster.
  ASSERT_EQ(choices.size(), 1u);
  EXPECT_EQ(choices[0].calls, 6);
  EXPECT_GT(choices[0].gpu_us, 0);
  EXPECT_GT(choices[0].cpu_us, 0);
  EXPECT_NE(choices[0].call.find("f32x1 64x48 pageable"), std::string::npos) << choices[0].call;
  reset_auto_choices();
}

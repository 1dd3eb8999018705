// Backend::automatic for host-image filters (gpuvis/filters/auto_backend.hpp): the GPU for the
// first two calls of a kind, the CPU for the third, then the faster; never for a backend asked for
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

// Plays `calls` calls of one kind through the bookkeeping, the GPU's timed call taking `gpu_us`
// and the CPU's `cpu_us`; returns the backend each call ran on.
std::vector<Backend> play(detail::AutoBackend& a, const std::string& kind, Backend gpu, double gpu_us, double cpu_us, int calls) {
  std::vector<Backend> ran;
  for (int i = 0; i < calls; ++i) {
    const auto turn = a.next(kind, gpu);
    ran.push_back(turn.backend);
    if (turn.timed) a.measured(kind, turn.backend, turn.backend == Backend::cpu ? cpu_us : gpu_us);
  }
  return ran;
}

}  // namespace

TEST(AutoBackend, TimesTheGpuThenTheCpuAndKeepsTheFaster) {
  detail::AutoBackend a;
  const auto cpu_faster = play(a, "separable f32x1 1920x1080 pageable", Backend::cuda, 460, 380, 6);
  EXPECT_EQ(cpu_faster, (std::vector<Backend>{Backend::cuda, Backend::cuda, Backend::cpu, Backend::cpu, Backend::cpu, Backend::cpu}));
  const auto gpu_faster = play(a, "bilateral u8x3 1920x1080 pageable", Backend::opencl, 400, 5700, 5);
  EXPECT_EQ(gpu_faster, (std::vector<Backend>{Backend::opencl, Backend::opencl, Backend::cpu, Backend::opencl, Backend::opencl}));
  // Each kind learns for itself; choices() reports both, with their times.
  const auto choices = a.choices();
  ASSERT_EQ(choices.size(), 2u);
  for (const auto& c : choices) {
    if (c.call.starts_with("separable")) {
      EXPECT_EQ(c.chosen, Backend::cpu);
      EXPECT_DOUBLE_EQ(c.cpu_us, 380);
      EXPECT_DOUBLE_EQ(c.gpu_us, 460);
      EXPECT_EQ(c.calls, 6);
    } else {
      EXPECT_EQ(c.chosen, Backend::opencl);
      EXPECT_EQ(c.gpu, Backend::opencl);
    }
  }
  a.reset();
  EXPECT_TRUE(a.choices().empty());
}

TEST(AutoBackend, StaysOnTheGpuUntilBothTimedCallsReported) {
  // Calls of one kind from several threads (Dask's workers): the fourth may start before the third's
  // time is in, and then runs on the GPU.
  detail::AutoBackend a;
  const std::string kind = "convolve 7x7 f32x1 3840x2160 pageable";
  EXPECT_EQ(a.next(kind, Backend::cuda).backend, Backend::cuda);
  const auto timed_gpu = a.next(kind, Backend::cuda);
  const auto timed_cpu = a.next(kind, Backend::cuda);
  EXPECT_TRUE(timed_gpu.timed);
  EXPECT_TRUE(timed_cpu.timed);
  EXPECT_EQ(timed_cpu.backend, Backend::cpu);
  a.measured(kind, Backend::cpu, 100);
  EXPECT_EQ(a.next(kind, Backend::cuda).backend, Backend::cuda);  // the GPU's time is not in yet
  a.measured(kind, Backend::cuda, 200);
  const auto after = a.next(kind, Backend::cuda);
  EXPECT_EQ(after.backend, Backend::cpu);
  EXPECT_FALSE(after.timed);
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
  for (int i = 0; i < 4; ++i) {
    convolve<float>(src.view(), out.view(), k, {});
    for (int y = 0; y < 48; ++y)
      for (int x = 0; x < 64; ++x) ASSERT_NEAR(out.row(y)[x], expected.row(y)[x], 0.1f) << "call " << i << " at " << x << "," << y;
  }
  const auto choices = auto_choices();
  if (!gpu) {
    EXPECT_TRUE(choices.empty());
    return;
  }
  // With a GPU: one kind, four calls, both timed, the fourth on the faster.
  ASSERT_EQ(choices.size(), 1u);
  EXPECT_EQ(choices[0].calls, 4);
  EXPECT_GT(choices[0].gpu_us, 0);
  EXPECT_GT(choices[0].cpu_us, 0);
  EXPECT_NE(choices[0].call.find("f32x1 64x48 pageable"), std::string::npos) << choices[0].call;
  reset_auto_choices();
}

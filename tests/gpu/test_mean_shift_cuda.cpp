// Mean shift on CUDA equals the CPU bit for bit, with both kernels: the same arithmetic in the same
// order, no FMA contraction, and the Gaussian weight from one polynomial instead of two expf.
#include <gtest/gtest.h>

#include <random>

#include "gpuvis/filters/mean_shift.hpp"
#include "gpuvis/filters/mean_shift_segment.hpp"
#include "gpuvis/io/image_file.hpp"
#include "filters/filter_backends.hpp"
#include "test_support.hpp"

namespace gpuvis::filters {
namespace {

Image<std::uint8_t> scene(int w, int h, int channels, std::uint32_t seed) {
  Image<std::uint8_t> img(w, h, channels);
  std::mt19937 rng(seed);
  std::normal_distribution<float> noise(0.0f, 7.0f);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < channels; ++c) {
        float v = 40.0f + 150.0f * static_cast<float>(x) / static_cast<float>(w) + 30.0f * static_cast<float>(c);
        if ((x / 23 + y / 17) % 3 == 0) v = 220.0f - 50.0f * static_cast<float>(c);
        img(x, y, c) = static_cast<std::uint8_t>(std::clamp(std::lround(v + noise(rng)), 0L, 255L));
      }
  return img;
}

TEST(MeanShiftCuda, EqualsTheCpu) {
  GPUVIS_REQUIRE_GPU();
  for (int channels : {1, 3})
    for (auto kernel : {MeanShiftKernel::epanechnikov, MeanShiftKernel::gaussian})
      for (auto colour : {MeanShiftColour::luv, MeanShiftColour::rgb})
        for (auto [w, h] : {std::pair{1, 1}, std::pair{37, 23}, std::pair{160, 120}}) {
          if (channels == 1 && colour == MeanShiftColour::rgb) continue;
          const auto img = scene(w, h, channels, static_cast<std::uint32_t>(w * 7 + channels));
          MeanShiftParams p;
          p.spatial = 5;
          p.range = colour == MeanShiftColour::luv && channels == 3 ? 8.0f : 16.0f;
          p.kernel = kernel;
          p.colour = colour;
          Image<std::uint8_t> cpu(w, h, channels), gpu(w, h, channels);
          mean_shift_filter_cpu(img.view(), cpu.view(), p);
          mean_shift_filter_cuda(img.view(), gpu.view(), p);
          EXPECT_EQ(count_differences<std::uint8_t>(cpu.view(), gpu.view()), 0u)
              << channels << " channels " << w << "x" << h << " kernel " << int(kernel) << " colour " << int(colour);
        }
}

TEST(MeanShiftCuda, VolumeEqualsTheCpu) {
  GPUVIS_REQUIRE_GPU();
  for (int channels : {1, 3})
    for (auto kernel : {MeanShiftKernel::epanechnikov, MeanShiftKernel::gaussian})
      for (float axial : {0.0f, 1.5f}) {
        const int w = 40, h = 30, depth = 9;
        const auto vol = scene(w, h * depth, channels, static_cast<std::uint32_t>(depth + channels));
        MeanShiftParams p;
        p.spatial = 4;
        p.axial = axial;
        p.range = channels == 3 ? 8.0f : 16.0f;
        p.kernel = kernel;
        Image<std::uint8_t> cpu(w, h * depth, channels), gpu(w, h * depth, channels);
        mean_shift_filter_cpu(vol.view(), cpu.view(), p, depth);
        mean_shift_filter_cuda(vol.view(), gpu.view(), p, depth);
        EXPECT_EQ(count_differences<std::uint8_t>(cpu.view(), gpu.view()), 0u)
            << channels << " channels, kernel " << int(kernel) << ", axial " << axial;
      }
}

}  // namespace

// Segmentation links the filter's modes on the host: with modes equal bit for bit, the labels and
// the region table are the CPU's.
TEST(MeanShiftCuda, SegmentationEqualsTheCpu) {
  GPUVIS_REQUIRE_GPU();
  const auto img = read_grey8(test::source_path("data/samples/table.pgm"));
  filters::MeanShiftSegmentParams p;
  p.filter.spatial = 6;
  p.filter.range = 20;
  p.filter.backend = Backend::cpu;
  const auto cpu = filters::mean_shift_segment(img.view(), p);
  p.filter.backend = Backend::cuda;
  const auto gpu = filters::mean_shift_segment(img.view(), p);
  ASSERT_EQ(cpu.regions.size(), gpu.regions.size());
  EXPECT_GT(cpu.regions.size(), 10u);
  EXPECT_EQ(count_differences<std::int32_t>(cpu.labels.view(), gpu.labels.view()), 0u);
  for (std::size_t i = 0; i < cpu.regions.size(); ++i) {
    EXPECT_EQ(cpu.regions[i].size, gpu.regions[i].size) << i;
    EXPECT_EQ(cpu.regions[i].mean[0], gpu.regions[i].mean[0]) << i;
  }
}

}  // namespace gpuvis::filters

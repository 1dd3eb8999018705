// Mean shift on CUDA equals the CPU bit for bit, with both kernels: the same arithmetic in the same
// order, no FMA contraction, and the Gaussian weight from one polynomial instead of two expf.
#include <gtest/gtest.h>

#include <random>

#include "gpuvis/filters/mean_shift.hpp"
#include "gpuvis/filters/mean_shift_segment.hpp"
#include "gpuvis/io/image_file.hpp"
#include "cuda/memory.hpp"
#include "filters/filter_backends.hpp"
#include "gpuvis/filters/device.hpp"
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
          mean_shift_filter_cpu<std::uint8_t>(img.view(), cpu.view(), {}, p);
          mean_shift_filter_cuda<std::uint8_t>(img.view(), gpu.view(), {}, p);
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
        mean_shift_filter_cpu<std::uint8_t>(vol.view(), cpu.view(), VolumeShape{depth}, p);
        mean_shift_filter_cuda<std::uint8_t>(vol.view(), gpu.view(), VolumeShape{depth}, p);
        EXPECT_EQ(count_differences<std::uint8_t>(cpu.view(), gpu.view()), 0u)
            << channels << " channels, kernel " << int(kernel) << ", axial " << axial;
      }
}

template <class T>
Image<T> scaled(const Image<std::uint8_t>& img, float scale) {
  Image<T> out(img.width(), img.height(), img.channels());
  for (int y = 0; y < img.height(); ++y)
    for (int i = 0; i < img.width() * img.channels(); ++i) out.row(y)[i] = static_cast<T>(img.row(y)[i] * scale);
  return out;
}

// 16-bit and float samples, four channels, per-channel bandwidths, sequences of volumes, with and
// without the queue, in either order: the CPU's results bit for bit.
TEST(MeanShiftCuda, TypesChannelsSequencesAndSpeedUpsEqualTheCpu) {
  GPUVIS_REQUIRE_GPU();
  using mean_shift_detail::Tuning;
  const auto rgb = scene(45, 36, 3, 5);
  const auto grey = scene(45, 36, 1, 6);
  MeanShiftParams p;
  p.spatial = 4;
  p.range = 9;
  for (const Tuning& tuning : {Tuning{8, true}, Tuning{0, true}, Tuning{1, true}, Tuning{8, false}}) {
    const std::string what = "round " + std::to_string(tuning.round_steps) + " ordered " + std::to_string(tuning.ordered);
    {
      Image<std::uint8_t> cpu(45, 36, 3), gpu(45, 36, 3);
      mean_shift_filter_cpu<std::uint8_t>(rgb.view(), cpu.view(), {}, p, nullptr, tuning);
      mean_shift_filter_cuda<std::uint8_t>(rgb.view(), gpu.view(), {}, p, nullptr, tuning);
      EXPECT_EQ(count_differences<std::uint8_t>(cpu.view(), gpu.view()), 0u) << "rgb " << what;
    }
    {
      const auto img = scaled<std::uint16_t>(grey, 257.0f);
      MeanShiftParams q = p;
      q.range = 16 * 257.0f;
      q.kernel = MeanShiftKernel::gaussian;
      Image<std::uint16_t> cpu(45, 36), gpu(45, 36);
      mean_shift_filter_cpu<std::uint16_t>(img.view(), cpu.view(), {}, q, nullptr, tuning);
      mean_shift_filter_cuda<std::uint16_t>(img.view(), gpu.view(), {}, q, nullptr, tuning);
      EXPECT_EQ(count_differences<std::uint16_t>(cpu.view(), gpu.view()), 0u) << "u16 " << what;
    }
    {
      const auto img = scaled<float>(rgb, 1.0f / 255.0f);
      MeanShiftParams q = p;
      q.range = 7;
      q.channel_range = {6, 9, 8, 0};
      Image<float> cpu(45, 36, 3), gpu(45, 36, 3);
      mean_shift_filter_cpu<float>(img.view(), cpu.view(), {}, q, nullptr, tuning);
      mean_shift_filter_cuda<float>(img.view(), gpu.view(), {}, q, nullptr, tuning);
      EXPECT_EQ(count_differences<float>(cpu.view(), gpu.view()), 0u) << "float luv " << what;
    }
    {
      Image<std::uint8_t> four(45, 36, 4), cpu(45, 36, 4), gpu(45, 36, 4);
      for (int y = 0; y < 36; ++y)
        for (int x = 0; x < 45; ++x) {
          for (int c = 0; c < 3; ++c) four(x, y, c) = rgb(x, y, c);
          four(x, y, 3) = grey(x, y);
        }
      MeanShiftParams q = p;
      q.colour = MeanShiftColour::rgb;
      q.range = 20;
      mean_shift_filter_cpu<std::uint8_t>(four.view(), cpu.view(), {}, q, nullptr, tuning);
      mean_shift_filter_cuda<std::uint8_t>(four.view(), gpu.view(), {}, q, nullptr, tuning);
      EXPECT_EQ(count_differences<std::uint8_t>(cpu.view(), gpu.view()), 0u) << "rgba " << what;
    }
    {
      const int w = 20, h = 15, depth = 4, frames = 3;
      const auto seq = scene(w, h * depth * frames, 1, 8);
      MeanShiftParams q = p;
      q.axial = 1.5f;
      q.time = 1.2f;
      q.range = 16;
      Image<std::uint8_t> cpu(w, h * depth * frames), gpu(w, h * depth * frames);
      mean_shift_filter_cpu<std::uint8_t>(seq.view(), cpu.view(), VolumeShape{depth, frames}, q, nullptr, tuning);
      mean_shift_filter_cuda<std::uint8_t>(seq.view(), gpu.view(), VolumeShape{depth, frames}, q, nullptr, tuning);
      EXPECT_EQ(count_differences<std::uint8_t>(cpu.view(), gpu.view()), 0u) << "sequence " << what;
    }
  }
}

// The device-view entry point equals the host one, and reports progress up to 1.
TEST(MeanShiftCuda, DeviceViewsEqualTheHostPath) {
  GPUVIS_REQUIRE_GPU();
  const auto rgb = scene(64, 48, 3, 11);
  MeanShiftParams p;
  p.spatial = 5;
  p.range = 8;
  Image<std::uint8_t> host(64, 48, 3), back(64, 48, 3);
  mean_shift_filter_cuda<std::uint8_t>(rgb.view(), host.view(), {}, p);
  cuda::DeviceImage<std::uint8_t> src(64, 48, 3), dst(64, 48, 3);
  cuda::Stream stream;
  cuda::upload<std::uint8_t>(rgb.view(), src.view(), stream);
  double last = 0;
  p.progress = [&](double f) { last = f; };
  mean_shift_filter<std::uint8_t>(DeviceView<const std::uint8_t>(src.view()), dst.view(), VolumeShape{}, p, stream.get());
  cuda::download<std::uint8_t>(dst.view(), back.view(), stream);
  stream.synchronize();
  EXPECT_EQ(count_differences<std::uint8_t>(host.view(), back.view()), 0u);
  EXPECT_EQ(last, 1.0);
}

}  // namespace

// Volume segmentation: the modes are equal, so are the labels (26-connected) and the table.
TEST(MeanShiftCuda, VolumeSegmentationEqualsTheCpu) {
  GPUVIS_REQUIRE_GPU();
  const int w = 32, h = 24, depth = 10;
  const auto vol = scene(w, h * depth, 1, 13);
  filters::MeanShiftSegmentParams p;
  p.filter.spatial = 3;
  p.filter.range = 12;
  p.min_size = 5;
  p.filter.backend = Backend::cpu;
  const auto cpu = filters::mean_shift_segment<std::uint8_t>(vol.view(), p, VolumeShape{depth});
  p.filter.backend = Backend::cuda;
  const auto gpu = filters::mean_shift_segment<std::uint8_t>(vol.view(), p, VolumeShape{depth});
  ASSERT_EQ(cpu.regions.size(), gpu.regions.size());
  EXPECT_GE(cpu.regions.size(), 2u);
  EXPECT_EQ(count_differences<std::int32_t>(cpu.labels.view(), gpu.labels.view()), 0u);
}

// Segmentation links the filter's modes on the host: with modes equal bit for bit, the labels and
// the region table are the CPU's.
TEST(MeanShiftCuda, SegmentationEqualsTheCpu) {
  GPUVIS_REQUIRE_GPU();
  const auto img = read_grey8(test::source_path("data/samples/table.pgm"));
  filters::MeanShiftSegmentParams p;
  p.filter.spatial = 6;
  p.filter.range = 20;
  p.filter.backend = Backend::cpu;
  const auto cpu = filters::mean_shift_segment<std::uint8_t>(img.view(), p);
  p.filter.backend = Backend::cuda;
  const auto gpu = filters::mean_shift_segment<std::uint8_t>(img.view(), p);
  ASSERT_EQ(cpu.regions.size(), gpu.regions.size());
  EXPECT_GT(cpu.regions.size(), 10u);
  EXPECT_EQ(count_differences<std::int32_t>(cpu.labels.view(), gpu.labels.view()), 0u);
  for (std::size_t i = 0; i < cpu.regions.size(); ++i) {
    EXPECT_EQ(cpu.regions[i].size, gpu.regions[i].size) << i;
    EXPECT_EQ(cpu.regions[i].mean[0], gpu.regions[i].mean[0]) << i;
  }
}

}  // namespace gpuvis::filters

#pragma once
// A mean shift backend against the CPU's, bit for bit: the comparisons the CUDA and OpenCL tests
// share. `filter` is called as filter(src, dst, shape, params) for every sample type (a generic
// lambda over HostView<const T>, HostView<T>), `backend` names the backend for segmentation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "filters/filter_backends.hpp"
#include "gpuvis/filters/mean_shift.hpp"
#include "gpuvis/filters/mean_shift_segment.hpp"
#include "gpuvis/io/image_file.hpp"
#include "test_support.hpp"

namespace gpuvis::test {

// A scene of flat blocks over a ramp, with noise: every channel different.
inline Image<std::uint8_t> mean_shift_scene(int w, int h, int channels, std::uint32_t seed) {
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

template <class T>
Image<T> scaled_samples(const Image<std::uint8_t>& img, float scale) {
  Image<T> out(img.width(), img.height(), img.channels());
  for (int y = 0; y < img.height(); ++y)
    for (int i = 0; i < img.width() * img.channels(); ++i) out.row(y)[i] = static_cast<T>(img.row(y)[i] * scale);
  return out;
}

// `filter` against mean_shift_filter_cpu on one image: every sample equal.
template <class T, class Filter>
void expect_mean_shift_equal(Filter&& filter, const Image<T>& img, VolumeShape shape, const filters::MeanShiftParams& p,
                             const std::string& what) {
  Image<T> cpu(img.width(), img.height(), img.channels()), other(img.width(), img.height(), img.channels());
  filters::mean_shift_filter_cpu<T>(img.view(), cpu.view(), shape, p);
  filter(HostView<const T>(img.view()), other.view(), shape, p);
  EXPECT_EQ(count_differences<T>(cpu.view(), other.view()), 0u) << what;
}

// Grey and colour images of several sizes (1x1 too), both kernels, L*u*v* and RGB.
template <class Filter>
void expect_images_like_the_cpu(Filter&& filter) {
  using namespace filters;
  for (int channels : {1, 3})
    for (auto kernel : {MeanShiftKernel::epanechnikov, MeanShiftKernel::gaussian})
      for (auto colour : {MeanShiftColour::luv, MeanShiftColour::rgb})
        for (auto [w, h] : {std::pair{1, 1}, std::pair{37, 23}, std::pair{160, 120}}) {
          if (channels == 1 && colour == MeanShiftColour::rgb) continue;
          MeanShiftParams p;
          p.spatial = 5;
          p.range = colour == MeanShiftColour::luv && channels == 3 ? 8.0f : 16.0f;
          p.kernel = kernel;
          p.colour = colour;
          expect_mean_shift_equal(filter, mean_shift_scene(w, h, channels, static_cast<std::uint32_t>(w * 7 + channels)), {}, p,
                                  std::to_string(channels) + " channels " + std::to_string(w) + "x" + std::to_string(h) +
                                      " kernel " + std::to_string(int(kernel)) + " colour " + std::to_string(int(colour)));
        }
}

// Volumes (an axial bandwidth or not), 16-bit and float samples, four channels, per-channel
// bandwidths and a sequence of volumes.
template <class Filter>
void expect_volumes_types_and_sequences_like_the_cpu(Filter&& filter) {
  using namespace filters;
  for (int channels : {1, 3})
    for (auto kernel : {MeanShiftKernel::epanechnikov, MeanShiftKernel::gaussian})
      for (float axial : {0.0f, 1.5f}) {
        const int w = 40, h = 30, depth = 9;
        MeanShiftParams p;
        p.spatial = 4;
        p.axial = axial;
        p.range = channels == 3 ? 8.0f : 16.0f;
        p.kernel = kernel;
        expect_mean_shift_equal(filter, mean_shift_scene(w, h * depth, channels, static_cast<std::uint32_t>(depth + channels)),
                                VolumeShape{depth}, p,
                                "volume, " + std::to_string(channels) + " channels, kernel " + std::to_string(int(kernel)) +
                                    ", axial " + std::to_string(axial));
      }
  const auto rgb = mean_shift_scene(45, 36, 3, 5);
  const auto grey = mean_shift_scene(45, 36, 1, 6);
  MeanShiftParams p;
  p.spatial = 4;
  p.range = 9;
  expect_mean_shift_equal(filter, rgb, {}, p, "rgb");
  {
    MeanShiftParams q = p;
    q.range = 16 * 257.0f;
    q.kernel = MeanShiftKernel::gaussian;
    expect_mean_shift_equal(filter, scaled_samples<std::uint16_t>(grey, 257.0f), {}, q, "u16");
  }
  {
    MeanShiftParams q = p;
    q.range = 7;
    q.channel_range = {6, 9, 8, 0};
    expect_mean_shift_equal(filter, scaled_samples<float>(rgb, 1.0f / 255.0f), {}, q, "float luv");
  }
  {
    Image<std::uint8_t> four(45, 36, 4);
    for (int y = 0; y < 36; ++y)
      for (int x = 0; x < 45; ++x) {
        for (int c = 0; c < 3; ++c) four(x, y, c) = rgb(x, y, c);
        four(x, y, 3) = grey(x, y);
      }
    MeanShiftParams q = p;
    q.colour = MeanShiftColour::rgb;
    q.range = 20;
    expect_mean_shift_equal(filter, four, {}, q, "rgba");
  }
  {
    const int w = 20, h = 15, depth = 4, frames = 3;
    MeanShiftParams q = p;
    q.axial = 1.5f;
    q.time = 1.2f;
    q.range = 16;
    expect_mean_shift_equal(filter, mean_shift_scene(w, h * depth * frames, 1, 8), VolumeShape{depth, frames}, q, "sequence");
  }
}

// Segmentation links the filter's modes on the host: with modes equal bit for bit, the labels and
// the region table are the CPU's, for a volume (26-connected) and the sample table frame.
inline void expect_segmentation_like_the_cpu(Backend backend) {
  {
    const int w = 32, h = 24, depth = 10;
    const auto vol = mean_shift_scene(w, h * depth, 1, 13);
    filters::MeanShiftSegmentParams p;
    p.filter.spatial = 3;
    p.filter.range = 12;
    p.min_size = 5;
    p.filter.backend = Backend::cpu;
    const auto cpu = filters::mean_shift_segment<std::uint8_t>(vol.view(), p, VolumeShape{depth});
    p.filter.backend = backend;
    const auto other = filters::mean_shift_segment<std::uint8_t>(vol.view(), p, VolumeShape{depth});
    ASSERT_EQ(cpu.regions.size(), other.regions.size());
    EXPECT_GE(cpu.regions.size(), 2u);
    EXPECT_EQ(count_differences<std::int32_t>(cpu.labels.view(), other.labels.view()), 0u);
  }
  const auto img = read_grey8(source_path("data/samples/table.pgm"));
  filters::MeanShiftSegmentParams p;
  p.filter.spatial = 6;
  p.filter.range = 20;
  p.filter.backend = Backend::cpu;
  const auto cpu = filters::mean_shift_segment<std::uint8_t>(img.view(), p);
  p.filter.backend = backend;
  const auto other = filters::mean_shift_segment<std::uint8_t>(img.view(), p);
  ASSERT_EQ(cpu.regions.size(), other.regions.size());
  EXPECT_GT(cpu.regions.size(), 10u);
  EXPECT_EQ(count_differences<std::int32_t>(cpu.labels.view(), other.labels.view()), 0u);
  for (std::size_t i = 0; i < cpu.regions.size(); ++i) {
    EXPECT_EQ(cpu.regions[i].size, other.regions[i].size) << i;
    EXPECT_EQ(cpu.regions[i].mean[0], other.regions[i].mean[0]) << i;
  }
  // Smoothed first (on the host whatever the backend): the same regions again.
  p.smooth = 0.7f;
  p.filter.backend = Backend::cpu;
  const auto smoothed_cpu = filters::mean_shift_segment<std::uint8_t>(img.view(), p);
  p.filter.backend = backend;
  const auto smoothed = filters::mean_shift_segment<std::uint8_t>(img.view(), p);
  ASSERT_EQ(smoothed_cpu.regions.size(), smoothed.regions.size());
  EXPECT_EQ(count_differences<std::int32_t>(smoothed_cpu.labels.view(), smoothed.labels.view()), 0u) << "smooth 0.7";
  EXPECT_EQ(count_differences<std::uint8_t>(smoothed_cpu.filtered.view(), smoothed.filtered.view()), 0u) << "smooth 0.7";
}

}  // namespace gpuvis::test

// Mean shift on CUDA equals the CPU bit for bit, with both kernels: the same arithmetic in the same
// order, no FMA contraction, and the Gaussian weight from one polynomial instead of two expf
// (tests/support/mean_shift_compare.hpp, shared with the OpenCL tests).
#include <gtest/gtest.h>

#include "cuda/memory.hpp"
#include "filters/filter_backends.hpp"
#include "gpuvis/filters/device.hpp"
#include "gpuvis/filters/mean_shift_segment.hpp"
#include "mean_shift_compare.hpp"
#include "test_support.hpp"

namespace gpuvis::filters {
namespace {

TEST(MeanShiftCuda, EqualsTheCpu) {
  GPUVIS_REQUIRE_GPU();
  test::expect_images_like_the_cpu([](auto src, auto dst, VolumeShape shape, const MeanShiftParams& p) {
    mean_shift_filter_cuda(src, dst, shape, p);
  });
}

// Volumes, 16-bit and float samples, four channels, per-channel bandwidths, sequences of volumes,
// with and without the queue, in either order: the CPU's results bit for bit.
TEST(MeanShiftCuda, VolumesTypesChannelsSequencesAndSpeedUpsEqualTheCpu) {
  GPUVIS_REQUIRE_GPU();
  using mean_shift_detail::Tuning;
  for (const Tuning& tuning : {Tuning{8, true}, Tuning{0, true}, Tuning{1, true}, Tuning{8, false}}) {
    SCOPED_TRACE("round " + std::to_string(tuning.round_steps) + " ordered " + std::to_string(tuning.ordered));
    test::expect_volumes_types_and_sequences_like_the_cpu([&](auto src, auto dst, VolumeShape shape, const MeanShiftParams& p) {
      mean_shift_filter_cuda(src, dst, shape, p, nullptr, tuning);
    });
  }
}

// The device-view entry point equals the host one, and reports progress up to 1.
TEST(MeanShiftCuda, DeviceViewsEqualTheHostPath) {
  GPUVIS_REQUIRE_GPU();
  const auto rgb = test::mean_shift_scene(64, 48, 3, 11);
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

// The segmentation's first half on device memory (what the Python module's device path runs):
// the filtered samples and every voxel's mode equal the host's, for an image and a stacked volume,
// and so the segmentation made from them is the host's.
TEST(MeanShiftCuda, ModesOfDeviceViewsEqualTheHostPath) {
  GPUVIS_REQUIRE_GPU();
  for (const VolumeShape shape : {VolumeShape{}, VolumeShape{4, 1}}) {
    const auto rgb = test::mean_shift_scene(40, 48, 3, 12);  // 4 slices of 12 rows when stacked
    MeanShiftParams p;
    p.spatial = 4;
    p.range = 10;
    Image<std::uint8_t> host(40, 48, 3), back(40, 48, 3);
    std::vector<float> host_modes, device_modes;
    p.backend = Backend::cpu;
    mean_shift_modes<std::uint8_t>(rgb.view(), host.view(), host_modes, p, shape);
    cuda::DeviceImage<std::uint8_t> src(40, 48, 3), dst(40, 48, 3);
    cuda::Stream stream;
    cuda::upload<std::uint8_t>(rgb.view(), src.view(), stream);
    mean_shift_modes<std::uint8_t>(DeviceView<const std::uint8_t>(src.view()), dst.view(), device_modes, shape, p, stream.get());
    cuda::download<std::uint8_t>(dst.view(), back.view(), stream);
    stream.synchronize();
    EXPECT_EQ(count_differences<std::uint8_t>(host.view(), back.view()), 0u) << "depth " << shape.depth;
    ASSERT_EQ(host_modes.size(), device_modes.size());
    EXPECT_TRUE(host_modes == device_modes) << "depth " << shape.depth;
    MeanShiftSegmentParams sp;
    sp.filter = p;
    const auto a = mean_shift_segment_from_modes<std::uint8_t>(std::move(host), host_modes, rgb.view(), sp, shape);
    const auto b = mean_shift_segment_from_modes<std::uint8_t>(std::move(back), device_modes, rgb.view(), sp, shape);
    EXPECT_EQ(a.regions.size(), b.regions.size());
    EXPECT_EQ(count_differences<std::int32_t>(a.labels.view(), b.labels.view()), 0u);
    EXPECT_GT(a.regions.size(), 1u) << "the scene has more than one region";
  }
}

}  // namespace

// Volume and image segmentation: the modes are equal, so are the labels and the table.
TEST(MeanShiftCuda, SegmentationEqualsTheCpu) {
  GPUVIS_REQUIRE_GPU();
  test::expect_segmentation_like_the_cpu(Backend::cuda);
}

}  // namespace gpuvis::filters

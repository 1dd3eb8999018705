// Mean shift on OpenCL equals the CPU bit for bit (tests/support/mean_shift_compare.hpp, shared with
// the CUDA tests): images, volumes, sequences, every sample type and channel count, both kernels,
// and segmentation's labels.
#include <gtest/gtest.h>

#include "filters/opencl/filters_opencl.hpp"
#include "mean_shift_compare.hpp"
#include "opencl_skip.hpp"

namespace gpuvis::filters {
namespace {

TEST(MeanShiftOpencl, EqualsTheCpu) {
  GPUVIS_REQUIRE_OPENCL();
  test::expect_images_like_the_cpu([](auto src, auto dst, VolumeShape shape, const MeanShiftParams& p) {
    mean_shift_filter_opencl(src, dst, shape, p);
  });
}

TEST(MeanShiftOpencl, VolumesTypesChannelsAndSequencesEqualTheCpu) {
  GPUVIS_REQUIRE_OPENCL();
  test::expect_volumes_types_and_sequences_like_the_cpu([](auto src, auto dst, VolumeShape shape, const MeanShiftParams& p) {
    mean_shift_filter_opencl(src, dst, shape, p);
  });
}

TEST(MeanShiftOpencl, SegmentationEqualsTheCpu) {
  GPUVIS_REQUIRE_OPENCL();
  test::expect_segmentation_like_the_cpu(Backend::opencl);
}

// The public entry point takes backend opencl and reports progress up to 1.
TEST(MeanShiftOpencl, ThePublicEntryPointRunsOnOpenclWithProgress) {
  GPUVIS_REQUIRE_OPENCL();
  const auto rgb = test::mean_shift_scene(64, 48, 3, 11);
  MeanShiftParams p;
  p.spatial = 5;
  p.range = 8;
  Image<std::uint8_t> cpu(64, 48, 3), other(64, 48, 3);
  mean_shift_filter_cpu<std::uint8_t>(rgb.view(), cpu.view(), {}, p);
  double last = 0;
  p.progress = [&](double f) { last = f; };
  p.backend = Backend::opencl;
  mean_shift_filter<std::uint8_t>(rgb.view(), other.view(), p);
  EXPECT_EQ(count_differences<std::uint8_t>(cpu.view(), other.view()), 0u);
  EXPECT_EQ(last, 1.0);
}

}  // namespace
}  // namespace gpuvis::filters

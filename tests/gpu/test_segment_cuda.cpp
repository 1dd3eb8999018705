// The CUDA segmentation must produce the CPU's region tree exactly (same region numbers, every
// field): on noise of every density and grain up to 3840x2160, generated symbol scenes under every
// threshold method, adversarial frames at the largest size (all-black, all-white, checkerboards,
// one-pixel stripes) and deeply nested rings; and the small frames also against the pixel-by-pixel
// reference of docs/segmentation.md.
#include <gtest/gtest.h>

#include "cuda/memory.hpp"
#include "gpuvis/segment/region_tree.hpp"
#include "segment/cpu/segment.hpp"
#include "segment/cuda/segment_cuda.hpp"
#include "gpuvis/synth/scene.hpp"
#include "gpuvis/threshold/threshold.hpp"
#include "threshold/cpu/threshold_cpu.hpp"
#include "segment_reference.hpp"
#include "test_support.hpp"

using namespace gpuvis;
using namespace gpuvis::segment;

namespace {

struct GpuSegmentation {
  cuda::Stream stream;
  cuda::DeviceImage<std::uint8_t> frame;
  cuda_impl::Segmenter segmenter;

  RegionTree run(const Image<std::uint8_t>& bin, int cap) {
    frame.ensure(bin.width(), bin.height());
    cuda::upload<std::uint8_t>(bin.view(), frame.view(), stream);
    segmenter.segment(frame.view(), cap, stream);
    RegionTree t;
    segmenter.download(t, stream);
    return t;
  }
};

::testing::AssertionResult equals_cpu(GpuSegmentation& gpu, const Image<std::uint8_t>& bin, int cap = 19) {
  RegionTree cpu;
  segment_cpu(bin.view(), cap, cpu);
  return test::same_region_tree(cpu, gpu.run(bin, cap));
}


}  // namespace

TEST(SegmentCuda, EqualsTheReferenceOnSmallFrames) {
  GPUVIS_REQUIRE_GPU();
  GpuSegmentation gpu;
  struct Case {
    int w, h;
    double white;
    int block, cap;
  };
  const Case cases[] = {{1, 1, 0.5, 1, 19},    {1, 57, 0.5, 1, 19},  {57, 1, 0.5, 1, 19},   {33, 31, 0.5, 1, 19},
                        {97, 61, 0.1, 1, 19},  {97, 61, 0.9, 1, 19}, {97, 61, 0.5, 1, 3},   {97, 61, 0.5, 3, 4},
                        {320, 240, 0.5, 1, 19}, {200, 150, 0.5, 5, 6}, {64, 64, 0.0, 1, 19}, {64, 64, 1.0, 1, 19}};
  std::uint32_t seed = 100;
  for (const Case& c : cases) {
    const auto bin = test::binary_noise(c.w, c.h, c.white, c.block, seed++);
    EXPECT_TRUE(test::same_region_tree(test::segment_reference(bin.view(), c.cap), gpu.run(bin, c.cap)))
        << c.w << "x" << c.h << " white " << c.white << " block " << c.block << " cap " << c.cap;
  }
}

TEST(SegmentCuda, EqualsTheCpuOnNoiseUpTo4K) {
  GPUVIS_REQUIRE_GPU();
  GpuSegmentation gpu;
  std::uint32_t seed = 1;
  for (auto [w, h] : {std::pair{640, 480}, {1280, 720}, {1920, 1080}, {3840, 2160}, {641, 479}, {4000, 3}})
    for (double white : {0.5, 0.2})
      for (int block : {1, 2, 7}) {
        const auto bin = test::binary_noise(w, h, white, block, seed++);
        EXPECT_TRUE(equals_cpu(gpu, bin)) << w << "x" << h << " white " << white << " block " << block;
      }
}

TEST(SegmentCuda, EqualsTheCpuOnSymbolScenesUnderEveryThreshold) {
  GPUVIS_REQUIRE_GPU();
  GpuSegmentation gpu;
  synth::Generator gen(test::source_path("data/amoeba/symbols"));
  threshold::Params methods[3];
  methods[0].method = threshold::Method::bernsen;
  methods[1].method = threshold::Method::tiled;
  methods[2].method = threshold::Method::bradley_roth;
  for (int i = 0; i < 24; ++i) {
    synth::SceneParams p;
    p.seed = 40 + static_cast<std::uint32_t>(i);
    p.symbols = 8;
    p.fingers = 3;
    p.noise = i % 4 == 3 ? 20 : 3;  // every fourth frame drowned in noise
    if (i % 6 == 5) {
      p.width = 1920;
      p.height = 1080;
      p.symbols = 30;
    }
    const auto scene = gen.make(p);
    Image<std::uint8_t> bin(scene.image.width(), scene.image.height());
    threshold::threshold_cpu(scene.image.view(), bin.view(), methods[i % 3]);
    EXPECT_TRUE(equals_cpu(gpu, bin)) << "scene " << i;
  }
}

TEST(SegmentCuda, AdversarialFramesAtTheLargestSize) {
  GPUVIS_REQUIRE_GPU();
  GpuSegmentation gpu;
  for (int kind = 0; kind < test::kBinaryPatterns; ++kind) {
    const auto img = test::binary_pattern(3840, 2160, kind);
    EXPECT_TRUE(equals_cpu(gpu, img)) << "pattern " << kind;
  }
  // Deep nesting (about 250 levels) with every cap.
  const auto rings = test::binary_pattern(1000, 1000, 5);
  for (int cap : {1, 2, 19}) {
    EXPECT_TRUE(equals_cpu(gpu, rings, cap)) << "rings, cap " << cap;
  }
}

TEST(SegmentCuda, BuffersFollowTheFrameSize) {
  GPUVIS_REQUIRE_GPU();
  GpuSegmentation gpu;
  for (auto [w, h] : {std::pair{1920, 1080}, {17, 9}, {640, 480}, {1920, 1080}, {1, 1}}) {
    const auto bin = test::binary_noise(w, h, 0.5, 1, static_cast<std::uint32_t>(w + h));
    EXPECT_TRUE(equals_cpu(gpu, bin)) << w << "x" << h;
  }
}

// The labelling that thresholds its own tiles (BernsenInput, the detector's path for camera
// frames) writes the CPU's full Bernsen binary frame bit for bit and segments it into the CPU's
// tree: every half-window it takes, gates at both ends, frames narrower and shorter than a tile
// (32 x 16) or of odd sizes, textured and white-noise content.
TEST(SegmentCuda, ThresholdingInTheLabellingEqualsTheCpu) {
  GPUVIS_REQUIRE_GPU();
  cuda::Stream stream;
  cuda_impl::Segmenter segmenter;
  struct Case {
    int w, h;
  };
  const Case sizes[] = {{1, 1}, {1, 57}, {57, 1}, {33, 17}, {31, 15}, {97, 61}, {640, 480}, {641, 479}, {1280, 720}};
  std::uint32_t seed = 700;
  int cases = 0;
  for (const Case& c : sizes)
    for (int h = 1; h <= cuda_impl::kThresholdInLabelsMaxRadius; ++h) {
      // Every window on the small frames; a few on the large ones (the kernels do not change with size).
      if (c.w * c.h > 100000 && h != 1 && h != 6 && h != 12 && h != cuda_impl::kThresholdInLabelsMaxRadius) continue;
      const int gate = (h % 3 == 0) ? 0 : (h % 3 == 1) ? 32 : 255;
      const auto grey = (h % 2) ? test::textured_image(c.w, c.h, seed++) : test::random_image(c.w, c.h, seed++);
      Image<std::uint8_t> expected(c.w, c.h);
      threshold::bernsen_cpu(grey.view(), expected.view(), {h, gate});
      cuda::DeviceImage<std::uint8_t> d_grey(c.w, c.h), d_bin(c.w, c.h);
      cuda::upload<std::uint8_t>(grey.view(), d_grey.view(), stream);
      segmenter.segment(cuda_impl::BernsenInput{d_grey.view(), d_bin.view(), h, gate}, 19, stream);
      RegionTree gpu_tree;
      segmenter.download(gpu_tree, stream);
      Image<std::uint8_t> binary(c.w, c.h);
      cuda::download<std::uint8_t>(d_bin.view(), binary.view(), stream);
      stream.synchronize();
      EXPECT_EQ(count_differences<std::uint8_t>(expected.view(), binary.view()), 0u) << c.w << "x" << c.h << " h " << h << " gate " << gate;
      RegionTree cpu_tree;
      segment_cpu(expected.view(), 19, cpu_tree);
      EXPECT_TRUE(test::same_region_tree(cpu_tree, gpu_tree)) << c.w << "x" << c.h << " h " << h << " gate " << gate;
      ++cases;
    }
  EXPECT_GT(cases, 80);
  // A window the labelling does not take is refused with a message, not run.
  cuda::DeviceImage<std::uint8_t> d_grey(64, 64), d_bin(64, 64);
  EXPECT_THROW(segmenter.segment(cuda_impl::BernsenInput{d_grey.view(), d_bin.view(), cuda_impl::kThresholdInLabelsMaxRadius + 1, 32},
                                 19, stream),
               Error);
}

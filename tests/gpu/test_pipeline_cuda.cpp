// `--backend cuda` detection (threshold and segmentation on the device) must report exactly what
// the CPU backend reports: same fiducial IDs, centres and angles, fingers and blobs.
#include <gtest/gtest.h>

#include "gpuvis/pipeline/detector.hpp"
#include "gpuvis/synth/scene.hpp"
#include "test_support.hpp"

using namespace gpuvis;

TEST(PipelineCuda, DetectionsEqualTheCpuBackend) {
  GPUVIS_REQUIRE_GPU();
  synth::Generator gen(test::source_path("data/amoeba/symbols"));
  pipeline::DetectorConfig config;
  config.fingers.size = 18;
  config.blobs.min_size = 4;
  config.blobs.max_size = 60;
  pipeline::DetectorConfig gpu_config = config;
  gpu_config.backend = Backend::cuda;
  pipeline::Detector cpu(config), gpu(gpu_config);
  int ids = 0;
  for (int i = 0; i < 20; ++i) {
    synth::SceneParams p;
    p.seed = 300 + static_cast<std::uint32_t>(i);
    p.symbols = 8;
    p.fingers = 3;
    p.min_size = 60;
    p.max_size = 110;
    if (i % 5 == 4) {
      p.width = 1920;
      p.height = 1080;
      p.symbols = 30;
    }
    const auto scene = gen.make(p);
    const auto a = cpu.detect(scene.image.view());  // copy: the next call reuses the buffers
    const auto& b = gpu.detect(scene.image.view());
    ASSERT_EQ(a.regions, b.regions) << "scene " << i;
    ASSERT_EQ(a.fiducials.size(), b.fiducials.size()) << "scene " << i;
    for (std::size_t k = 0; k < a.fiducials.size(); ++k) {
      EXPECT_EQ(a.fiducials[k].id, b.fiducials[k].id);
      EXPECT_EQ(a.fiducials[k].x, b.fiducials[k].x);
      EXPECT_EQ(a.fiducials[k].y, b.fiducials[k].y);
      EXPECT_EQ(a.fiducials[k].angle, b.fiducials[k].angle);
      ids += a.fiducials[k].id >= 0;
    }
    ASSERT_EQ(a.fingers.size(), b.fingers.size()) << "scene " << i;
    for (std::size_t k = 0; k < a.fingers.size(); ++k) {
      EXPECT_EQ(a.fingers[k].x, b.fingers[k].x);
      EXPECT_EQ(a.fingers[k].y, b.fingers[k].y);
    }
    ASSERT_EQ(a.blobs.size(), b.blobs.size()) << "scene " << i;
  }
  EXPECT_GT(ids, 150);  // the scenes really contain decodable symbols
}

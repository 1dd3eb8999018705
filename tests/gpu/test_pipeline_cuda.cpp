// `--backend cuda` detection (threshold, segmentation and decoding on the device) must report what
// the CPU backend reports on the same frames: fiducial IDs, centres within 1e-3 px, angles within
// 1e-4 rad, root candidates, fingers and blobs — for every threshold method, frame sizes up to
// 3840x2160 with a hundred symbols, and noise with more than 100 000 regions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "compare_detections.hpp"
#include "cuda/memory.hpp"
#include "gpuvis/pipeline/detector.hpp"
#include "gpuvis/synth/scene.hpp"
#include "test_support.hpp"

using namespace gpuvis;

namespace {

// Fingers of `finger_size`, blobs of blob_min..blob_max pixels and the object blobs (the tracker's
// full detection).
pipeline::DetectorParams with_fingers_and_blobs(int finger_size, int blob_min, int blob_max) {
  pipeline::DetectorParams config;
  config.fingers.size = finger_size;
  config.blobs.min_size = blob_min;
  config.blobs.max_size = blob_max;
  config.blobs.object_blobs = true;
  return config;
}

// The same configuration on the CUDA backend.
pipeline::DetectorParams on_gpu(pipeline::DetectorParams config) {
  config.backend = Backend::cuda;
  return config;
}

void add_noise(Image<std::uint8_t>& img, double sigma, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> n(0, sigma);
  for (int y = 0; y < img.height(); ++y)
    for (int x = 0; x < img.width(); ++x)
      img(x, y) = static_cast<std::uint8_t>(std::clamp(std::lround(img(x, y) + n(rng)), 0L, 255L));
}

}  // namespace

TEST(PipelineCuda, DetectionsEqualTheCpuBackend) {
  GPUVIS_REQUIRE_GPU();
  synth::Generator gen(test::symbols_dir());
  const auto config = with_fingers_and_blobs(18, 4, 60);
  pipeline::Detector cpu(config), gpu(on_gpu(config));
  int ids = 0, fingers = 0, roots = 0, root_blobs = 0;
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
    EXPECT_TRUE(test::same_detections(a, b)) << "scene " << i;
    for (const auto& f : a.fiducials) ids += f.id >= 0;
    fingers += static_cast<int>(a.fingers.size());
    roots += static_cast<int>(a.roots.size());
    for (const auto& r : a.root_blobs) root_blobs += r.ok();
  }
  EXPECT_GT(ids, 150);  // the scenes really contain decodable symbols, fingers and root candidates
  EXPECT_GT(fingers, 20);
  EXPECT_GT(roots, 0);
  EXPECT_GT(root_blobs, 0);
}

namespace {

// Bright shapes on a dark, slightly noisy background, shaded so that fingers have contrast: discs
// of finger size, rotated ellipses and rectangles, rings (a hole: two neighbours), lines one pixel
// wide and single pixels (degenerate boxes), and a few shapes taller than 128 rows.
Image<std::uint8_t> shapes_frame(std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  Image<std::uint8_t> img(1280, 720);
  for (int y = 0; y < img.height(); ++y)
    for (int x = 0; x < img.width(); ++x) img(x, y) = static_cast<std::uint8_t>(50 + 10 * u(rng));
  auto shade = [&](int x, int y, double t) {  // t: 0 at the centre, 1 at the edge
    if (x >= 0 && y >= 0 && x < img.width() && y < img.height())
      img(x, y) = static_cast<std::uint8_t>(245 - 40 * t);
  };
  auto ellipse = [&](double cx, double cy, double a, double b, double angle, double hole) {
    const double c = std::cos(angle), s = std::sin(angle), r = std::max(a, b) + 1;
    for (int y = static_cast<int>(cy - r); y <= cy + r; ++y)
      for (int x = static_cast<int>(cx - r); x <= cx + r; ++x) {
        const double dx = x - cx, dy = y - cy, p = (dx * c + dy * s) / a, q = (-dx * s + dy * c) / b;
        const double t = p * p + q * q;
        if (t <= 1 && t >= hole * hole) shade(x, y, t);
      }
  };
  auto box = [&](double cx, double cy, double a, double b, double angle) {
    const double c = std::cos(angle), s = std::sin(angle), r = std::hypot(a, b) + 1;
    for (int y = static_cast<int>(cy - r); y <= cy + r; ++y)
      for (int x = static_cast<int>(cx - r); x <= cx + r; ++x) {
        const double dx = x - cx, dy = y - cy, p = (dx * c + dy * s) / a, q = (-dx * s + dy * c) / b;
        if (std::abs(p) <= 1 && std::abs(q) <= 1) shade(x, y, std::max(std::abs(p), std::abs(q)));
      }
  };
  for (int row = 0; row < 6; ++row)  // small shapes on a grid, 48 px apart
    for (int col = 0; col < 20; ++col) {
      const double cx = 40 + 48 * col, cy = 40 + 48 * row, angle = u(rng) * 3.14159;
      switch ((row * 20 + col) % 6) {
        case 0: {  // a disc: a finger when its size is in the band
          const double r = 3 + 12 * u(rng);
          ellipse(cx, cy, r, r, 0, 0);
          break;
        }
        case 1: ellipse(cx, cy, 6 + 14 * u(rng), 4 + 8 * u(rng), angle, 0); break;
        case 2: box(cx, cy, 3 + 15 * u(rng), 3 + 10 * u(rng), angle); break;
        case 3: ellipse(cx, cy, 10 + 10 * u(rng), 10 + 8 * u(rng), angle, 0.45); break;
        case 4: for (int k = -12; k <= 12; ++k) shade(static_cast<int>(cx) + k, static_cast<int>(cy) + (row % 2 ? k : 0), 0); break;
        default:  // two pixels side by side (a blob candidate with no box) and a 2 x 2 square
          shade(static_cast<int>(cx), static_cast<int>(cy), 0);
          shade(static_cast<int>(cx) + 1, static_cast<int>(cy), 0);
          for (int k = 0; k < 4; ++k) shade(static_cast<int>(cx) + 10 + k % 2, static_cast<int>(cy) + k / 2, 0);
          break;
      }
    }
  ellipse(1050, 500, 150, 60, 1.2, 0);  // taller than 128 rows
  box(300, 560, 140, 70, 0.4);
  ellipse(700, 560, 60, 140, 0.1, 0.5);
  return img;
}

}  // namespace

// Fingers, plain blobs and object blobs of shapes of every kind and size, more of each than the
// results block holds inline, and regions with more runs than a warp keeps in shared memory.
TEST(PipelineCuda, FingersAndBlobsOfEveryShapeEqualTheCpu) {
  GPUVIS_REQUIRE_GPU();
  const auto config = with_fingers_and_blobs(16, 2, 400);
  pipeline::Detector cpu(config), gpu(on_gpu(config));
  int fingers = 0, blobs = 0, tall = 0;
  for (std::uint32_t seed = 1; seed <= 6; ++seed) {
    const auto img = shapes_frame(seed);
    const auto a = cpu.detect(img.view());
    const auto& b = gpu.detect(img.view());
    EXPECT_TRUE(test::same_detections(a, b)) << "seed " << seed;
    fingers += static_cast<int>(a.fingers.size());
    blobs += static_cast<int>(a.blobs.size());
    for (const auto& bl : a.blobs) tall += bl.width > 128;
    EXPECT_GT(a.blobs.size(), 64u) << "seed " << seed;  // past the inline records
  }
  EXPECT_GT(fingers, 30);
  EXPECT_GE(tall, 12);
  const auto& d = test::detection_deltas();
  std::printf("%d fingers, %d blobs; largest box differences over all GPU tests so far: %.3g px, %.3g rad (%lld "
              "fingers and blobs)\n",
              fingers, blobs, d.blob_px, d.blob_angle_rad, d.blobs);
}

// No finger, blob or object-blob stage: only the results come back (no region tree on the host).
TEST(PipelineCuda, ResultsOnlyEqualTheCpuForEveryMethodUpTo4K) {
  GPUVIS_REQUIRE_GPU();
  synth::Generator gen(test::symbols_dir());
  threshold::Params methods[3] = {pipeline::DetectorParams::default_threshold(), {}, {}};
  methods[1].method = threshold::Method::tiled;
  methods[2].method = threshold::Method::bradley_roth;
  struct Size {
    int w, h, symbols;
    double min_size, max_size;
  };
  const Size sizes[] = {{640, 480, 8, 60, 110}, {1280, 720, 20, 60, 110}, {1920, 1080, 40, 60, 120},
                        {3840, 2160, 100, 70, 140}};
  int frames = 0, ids = 0;
  for (int m = 0; m < 3; ++m) {
    pipeline::DetectorParams config;
    config.threshold = methods[m];
    pipeline::Detector cpu(config), gpu(on_gpu(config));
    for (const Size& s : sizes)
      for (int i = 0; i < (s.w > 2000 ? 3 : 8); ++i) {
        synth::SceneParams p;
        p.seed = 1000 + static_cast<std::uint32_t>(100 * m + 10 * s.symbols + i);
        p.width = s.w;
        p.height = s.h;
        p.symbols = s.symbols;
        p.fingers = 4;
        p.min_size = s.min_size;
        p.max_size = s.max_size;
        p.noise = i % 3 == 2 ? 10 : 3;
        const auto scene = gen.make(p);
        const auto a = cpu.detect(scene.image.view());
        const auto& b = gpu.detect(scene.image.view());
        EXPECT_EQ(b.tree, nullptr);
        EXPECT_TRUE(test::same_detections(a, b)) << "method " << m << " " << s.w << "x" << s.h << " scene " << i;
        ++frames;
        for (const auto& f : a.fiducials) ids += f.id >= 0;
      }
  }
  EXPECT_GT(ids, 1000);
  const auto& d = test::detection_deltas();
  std::printf("%d frames, %d IDs; largest differences over all GPU tests so far: centre %.3g px, angle %.3g rad (%lld "
              "fiducials)\n",
              frames, ids, d.centre_px, d.angle_rad, d.fiducials);
}

TEST(PipelineCuda, HeavyNoiseWithMoreThan100kRegions) {
  GPUVIS_REQUIRE_GPU();
  synth::Generator gen(test::symbols_dir());
  pipeline::DetectorParams config;
  pipeline::Detector cpu(config), gpu(on_gpu(config));
  int most = 0;
  for (int i = 0; i < 4; ++i) {
    synth::SceneParams p;
    p.seed = 77 + static_cast<std::uint32_t>(i);
    p.width = 3840;
    p.height = 2160;
    p.symbols = 60;
    p.min_size = 70;
    p.max_size = 140;
    auto scene = gen.make(p);
    add_noise(scene.image, 25 + 10 * i, static_cast<std::uint32_t>(i));
    const auto a = cpu.detect(scene.image.view());
    const auto& b = gpu.detect(scene.image.view());
    EXPECT_TRUE(test::same_detections(a, b)) << "noisy 4K scene " << i;
    most = std::max(most, a.regions);
  }
  EXPECT_GT(most, 100000);
  std::printf("most regions in one frame: %d\n", most);
}

// The device stages run as a CUDA graph after the first frame of each size; the graph must be
// captured again when the frame size changes or a noisy frame outgrows the segmenter's capacity,
// and must give what eager launches and the CPU give.
TEST(PipelineCuda, GraphReplaysFollowSizeCapacityAndRegionCountChanges) {
  GPUVIS_REQUIRE_GPU();
  synth::Generator gen(test::symbols_dir());
  std::vector<Image<std::uint8_t>> frames;
  for (int i = 0; i < 12; ++i) {
    synth::SceneParams p;
    p.seed = 500 + static_cast<std::uint32_t>(i);
    p.frame = i;
    p.speed = 3;
    p.symbols = 6;
    p.fingers = 2;
    if (i == 4 || i == 5) {  // a larger frame in the middle of the sequence
      p.width = 1280;
      p.height = 720;
    }
    auto scene = gen.make(p);
    if (i == 8) add_noise(scene.image, 30, 8);  // far more regions than the capacity learnt so far
    // Light noise: a few hundred to a few thousand regions, so the segmenter leaves its one-block
    // finishing for the per-step kernels and comes back to it at frame 6 (graphs re-captured).
    if (i == 2) add_noise(scene.image, 3.5, 2);
    if (i == 3) add_noise(scene.image, 3.0, 3);
    frames.push_back(std::move(scene.image));
  }
  pipeline::DetectorParams config;
  setenv("GPUVIS_CUDA_GRAPH", "0", 1);
  pipeline::Detector eager(on_gpu(config));
  setenv("GPUVIS_CUDA_GRAPH", "1", 1);
  pipeline::Detector graph(on_gpu(config)), cpu(config);
  graph.set_device_times(true);
  for (int round = 0; round < 2; ++round)
    for (std::size_t i = 0; i < frames.size(); ++i) {
      const auto a = cpu.detect(frames[i].view());
      const auto b = eager.detect(frames[i].view());
      const auto& c = graph.detect(frames[i].view());
      EXPECT_TRUE(test::same_detections(a, b)) << "eager, frame " << i;
      EXPECT_TRUE(test::same_detections(a, c)) << "graph, frame " << i;
      EXPECT_GT(c.times.device_us, 0);
    }
}

// Two frames in flight on the GPU (the next frame's upload and device work overlapping the
// current one's, pinned and pageable frames, size changes, frames large enough to queue instead
// of overlapping, and a frame that outgrows its slot's segmenter capacity, which runs again with
// the frame behind it) give what the CPU gives one frame at a time, root candidates included (the
// band passes from frame to frame on the device).
TEST(PipelineCuda, TwoFramesInFlightEqualTheCpuOneAtATime) {
  GPUVIS_REQUIRE_GPU();
  auto frames = test::symbols_and_wiped_frames(9, 640, 480, 31);
  auto large = test::symbols_and_wiped_frames(3, 1280, 720, 32);
  frames.insert(frames.begin() + 4, std::make_move_iterator(large.begin()), std::make_move_iterator(large.end()));
  // Frames above 1920x1080 do not overlap the previous frame's work: they queue behind it.
  auto larger = test::symbols_and_wiped_frames(2, 2560, 1600, 33);
  frames.insert(frames.begin() + 7, std::make_move_iterator(larger.begin()), std::make_move_iterator(larger.end()));
  add_noise(frames[9], 30, 9);  // far more regions than the capacity learnt so far
  std::vector<cuda::PinnedImage<std::uint8_t>> pinned;
  for (std::size_t i = 0; i < frames.size(); i += 2) {  // every other frame waits in pinned memory
    pinned.emplace_back(frames[i].width(), frames[i].height());
    copy<std::uint8_t>(frames[i].view(), pinned.back().view());
  }
  auto frame = [&](std::size_t i) -> HostView<const std::uint8_t> {
    return i % 2 == 0 ? HostView<const std::uint8_t>(pinned[i / 2].view()) : frames[i].view();
  };
  const auto config = with_fingers_and_blobs(18, 0, 60);
  pipeline::Detector cpu(config), gpu(on_gpu(config));
  std::vector<pipeline::Detections> expected;  // two rounds through the frames, one at a time
  std::size_t roots = 0;
  for (int round = 0; round < 2; ++round)
    for (const auto& f : frames) {
      expected.push_back(cpu.detect(f.view()));
      roots += expected.back().roots.size();
    }
  EXPECT_GT(roots, 0u) << "no root candidates: the band is not exercised";
  std::size_t next = 0;
  auto check = [&] {
    EXPECT_TRUE(test::same_detections(expected[next], gpu.receive()))
        << "round " << next / frames.size() << ", frame " << next % frames.size();
    ++next;
  };
  for (int round = 0; round < 2; ++round)  // the second round replays graphs
    for (std::size_t i = 0; i < frames.size(); ++i) {
      gpu.submit(frame(i));
      if (gpu.in_flight() == pipeline::Detector::kMaxInFlight) check();
    }
  while (gpu.in_flight() > 0) check();
  EXPECT_EQ(next, expected.size());
}

// A first frame with far more regions than the initial capacity, with fingers and blobs (tens of
// thousands of candidates), then the graph replays.
TEST(PipelineCuda, NoisyFirstFrameWithFingersAndBlobsThenReplays) {
  GPUVIS_REQUIRE_GPU();
  synth::Generator gen(test::symbols_dir());
  synth::SceneParams p;
  p.seed = 5;
  p.width = 3840;
  p.height = 2160;
  p.symbols = 100;
  p.min_size = 100;
  p.max_size = 180;
  auto scene = gen.make(p);
  add_noise(scene.image, 24, 3);
  const auto config = with_fingers_and_blobs(18, 2, 40);
  pipeline::Detector cpu(config), gpu(on_gpu(config));
  for (int i = 0; i < 3; ++i) {
    const auto a = cpu.detect(scene.image.view());
    const auto& b = gpu.detect(scene.image.view());
    EXPECT_TRUE(test::same_detections(a, b)) << "frame " << i;
    if (i == 0) std::printf("noisy 4K frame: %zu blobs, %zu fingers\n", a.blobs.size(), a.fingers.size());
  }
}

// reacTIVision's max_fid (spec §5.5): IDs above it become fuzzy candidates on both backends, with
// the root-candidate band of the next frames following only the symbols that stayed valid.
TEST(PipelineCuda, MaxFidEqualsTheCpu) {
  GPUVIS_REQUIRE_GPU();
  const auto frames = test::symbols_and_wiped_frames(8, 640, 480, 41);
  std::vector<int> ids;  // the IDs in the frames, to put the limit among them
  {
    pipeline::Detector all(pipeline::DetectorParams{});
    for (const auto& f : frames)
      for (const auto& s : all.detect(f.view()).fiducials)
        if (s.id >= 0) ids.push_back(s.id);
  }
  ASSERT_GE(ids.size(), 2u);
  std::sort(ids.begin(), ids.end());
  pipeline::DetectorParams config;
  config.max_fid = ids[ids.size() / 2];
  if (config.max_fid == ids.back()) config.max_fid = ids.back() - 1;
  pipeline::Detector cpu(config), gpu(on_gpu(config));
  int fuzzy = 0, valid = 0;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const pipeline::Detections expected = cpu.detect(frames[i].view());
    for (const auto& f : expected.fiducials) {
      EXPECT_LE(f.id, config.max_fid);
      (f.id >= 0 ? valid : fuzzy) += 1;
    }
    EXPECT_TRUE(test::same_detections(expected, gpu.detect(frames[i].view()))) << "frame " << i;
  }
  EXPECT_GT(valid, 0);
  EXPECT_GT(fuzzy, 0) << "no ID above max_fid in the frames: the limit is not exercised";
}

// Yamaarashi symbols (spec §6.10) on both backends: the same IDs, centres and angles, fuzzy
// candidates and root candidates, in scenes of drawn yamaarashi with noise and blur, mirrored
// (with `mirror`), large frames, noise frames, and frames submitted two at a time.
TEST(PipelineCuda, YamaarashiEqualsTheCpu) {
  GPUVIS_REQUIRE_GPU();
  synth::Generator gen("");
  std::vector<Image<std::uint8_t>> frames;
  synth::SceneParams q;
  q.set = "yamaarashi";
  q.symbols = 8;
  q.fingers = 3;
  for (int i = 0; i < 10; ++i) {
    q.seed = 500 + static_cast<std::uint32_t>(i);
    q.width = i < 8 ? 640 : 1920;
    q.height = i < 8 ? 480 : 1080;
    q.symbols = i < 8 ? 8 : 40;
    frames.push_back(gen.make(q).image.clone());
  }
  frames.push_back(test::random_image(640, 480, 77));
  int valid = 0;
  for (bool mirror : {false, true}) {
    pipeline::DetectorParams config = with_fingers_and_blobs(18, 20, 400);
    config.yamaarashi = true;
    config.mirror = mirror;
    config.max_fid = mirror ? 0 : 40000;  // some IDs above it: fuzzy on both
    pipeline::Detector cpu(config), gpu(on_gpu(config)), gpu_two(on_gpu(config));
    std::vector<pipeline::Detections> expected;
    for (std::size_t i = 0; i < frames.size(); ++i) {
      Image<std::uint8_t> f = frames[i].clone();
      if (mirror)
        for (int y = 0; y < f.height(); ++y) std::reverse(f.row(y), f.row(y) + f.width());
      expected.push_back(cpu.detect(f.view()));
      for (const auto& s : expected.back().fiducials) valid += s.id >= 0;
      EXPECT_TRUE(test::same_detections(expected.back(), gpu.detect(f.view()))) << "frame " << i << " mirror " << mirror;
    }
    // Two frames in flight on the GPU give the same, frame by frame.
    std::size_t next = 0;
    for (std::size_t i = 0; i < frames.size(); ++i) {
      Image<std::uint8_t> f = frames[i].clone();
      if (mirror)
        for (int y = 0; y < f.height(); ++y) std::reverse(f.row(y), f.row(y) + f.width());
      gpu_two.submit(f.view());
      if (gpu_two.in_flight() == pipeline::Detector::kMaxInFlight) {
        EXPECT_TRUE(test::same_detections(expected[next], gpu_two.receive())) << "in flight, frame " << next;
        ++next;
      }
    }
    while (gpu_two.in_flight() > 0) {
      EXPECT_TRUE(test::same_detections(expected[next], gpu_two.receive())) << "in flight, frame " << next;
      ++next;
    }
  }
  EXPECT_GT(valid, 100) << "too few yamaarashi decoded: the test exercises nothing";
}

// A calibration grid (spec §9.5) moves the results the same way on both backends: it is applied
// to the results on the host once they arrive, never to the frame.
TEST(PipelineCuda, CalibrationGridEqualsTheCpu) {
  GPUVIS_REQUIRE_GPU();
  const auto frames = test::symbols_and_wiped_frames(6, 640, 480, 43);
  pipeline::DetectorParams config = with_fingers_and_blobs(16, 60, 20000);
  pipeline::Detector plain(config);
  config.calibration = test::bent_grid(640, 480);
  pipeline::Detector cpu(config), gpu(on_gpu(config));
  int moved = 0;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const pipeline::Detections uncalibrated = plain.detect(frames[i].view());
    const pipeline::Detections expected = cpu.detect(frames[i].view());
    ASSERT_EQ(expected.fiducials.size(), uncalibrated.fiducials.size());
    for (std::size_t k = 0; k < expected.fiducials.size(); ++k)
      moved += std::hypot(expected.fiducials[k].x - uncalibrated.fiducials[k].x, expected.fiducials[k].y - uncalibrated.fiducials[k].y) > 0.5;
    EXPECT_TRUE(test::same_detections(expected, gpu.detect(frames[i].view()))) << "frame " << i;
  }
  EXPECT_GT(moved, 5) << "the grid should move the symbols";
}


// Sharpening before the threshold, on both of the CUDA front end's paths (the labelling's own
// Bernsen for h <= 16, the threshold stage's for wider windows) and a reacTIVision method.
TEST(PipelineCuda, SharpenedDetectionEqualsTheCpu) {
  GPUVIS_REQUIRE_GPU();
  const auto frames = test::symbols_and_wiped_frames(6, 640, 480, 47);
  for (int variant = 0; variant < 3; ++variant) {
    pipeline::DetectorParams config = with_fingers_and_blobs(16, 60, 20000);
    config.threshold.sharpen = 2;
    if (variant == 1) config.threshold.bernsen.half_window = 20;
    if (variant == 2) config.threshold.method = threshold::Method::tiled;
    pipeline::Detector cpu(config), gpu(on_gpu(config));
    for (std::size_t i = 0; i < frames.size(); ++i)
      EXPECT_TRUE(test::same_detections(cpu.detect(frames[i].view()), gpu.detect(frames[i].view())))
          << "variant " << variant << " frame " << i;
  }
}

// Symbols smeared by motion: the second look runs after either backend, its deconvolutions on the
// device for CUDA (restoring the CPU's bits), so CUDA reports what the CPU reports, the symbols it
// recovers included, one frame at a time and with two frames in flight (the second look reads the
// slot's staged frame).
TEST(PipelineCuda, SecondLookOnSmearedFramesEqualsTheCpu) {
  GPUVIS_REQUIRE_GPU();
  synth::Generator gen(test::symbols_dir());
  std::vector<synth::Scene> scenes;
  for (int i = 0; i < 12; ++i) {
    synth::SceneParams q;
    q.symbols = 8;
    q.min_size = 53;
    q.max_size = 89;
    q.motion_px = 4 + i % 4;
    q.seed = 900 + static_cast<std::uint32_t>(i);
    scenes.push_back(gen.make(q));
  }
  pipeline::DetectorParams config;
  pipeline::Detector cpu(config), gpu(on_gpu(config)), pipelined(on_gpu(config));
  std::vector<pipeline::Detections> expected;
  int recovered = 0;
  for (const auto& s : scenes) {
    expected.push_back(cpu.detect(s.image.view()));
    for (const auto& l : expected.back().second_looks) recovered += l.id >= 0;
    EXPECT_TRUE(test::same_detections(expected.back(), gpu.detect(s.image.view())));
  }
  EXPECT_GT(recovered, 0) << "no symbol came from the second look: the frames do not test it";
  std::size_t next = 0;
  for (const auto& s : scenes) {
    pipelined.submit(s.image.view());
    if (pipelined.in_flight() == pipeline::Detector::kMaxInFlight) {
      EXPECT_TRUE(test::same_detections(expected[next++], pipelined.receive()));
    }
  }
  while (pipelined.in_flight() > 0) EXPECT_TRUE(test::same_detections(expected[next++], pipelined.receive()));
}

// Dim prints on a table darker than their ink: their papers, saturated with specks, are root
// candidates on both backends (decode::qualifies_as_root), and the second look's dim look decodes
// them on the host: CUDA reports what the CPU reports, root candidates and root blobs included.
TEST(PipelineCuda, DimPrintsAndTheirSaturatedPapersEqualTheCpu) {
  GPUVIS_REQUIRE_GPU();
  synth::Generator gen(test::symbols_dir());
  pipeline::DetectorParams config;
  config.blobs.object_blobs = true;
  pipeline::Detector cpu(config), gpu(on_gpu(config));
  int recovered = 0, paper_roots = 0;
  for (int i = 0; i < 12; ++i) {
    synth::SceneParams q;
    q.symbols = 8;
    q.min_size = 53;
    q.max_size = 89;
    q.brightness = 130;
    q.illumination = 60.0 / 130;
    q.ink = 0.9 * (1 - (30 + 4 * i) / 130.0);
    q.noise = 2;
    q.seed = 700 + static_cast<std::uint32_t>(i);
    const auto s = gen.make(q);
    const auto& expected = cpu.detect(s.image.view());
    for (const auto& l : expected.second_looks) recovered += l.id >= 0;
    for (const auto& r : expected.roots) paper_roots += r.colour == 255 && r.size > 60;
    EXPECT_TRUE(test::same_detections(expected, gpu.detect(s.image.view()))) << "frame " << i;  // root candidates and their blobs too
  }
  EXPECT_GT(recovered, 0) << "no symbol came from the dim look: the frames do not test it";
  EXPECT_GT(paper_roots, 0) << "no paper became a root candidate: the frames do not test it";
}

// The equaliser runs on the device for CUDA and the stage taps copy the device's binary frame and
// region tree back: detections, the equalised frame, the binary frame and every field of the tree
// equal the CPU backend's, one frame at a time and two in flight, across a recapture.
TEST(PipelineCuda, EqualiserAndStageTapsEqualTheCpu) {
  GPUVIS_REQUIRE_GPU();
  const auto frames = test::under_uneven_light(test::symbols_and_wiped_frames(7, 640, 480, 44));
  pipeline::DetectorParams config = with_fingers_and_blobs(18, 0, 60);
  config.equalize = true;
  config.taps = {.threshold = true, .regions = true};
  pipeline::Detector cpu(config), gpu(on_gpu(config)), pipelined(on_gpu(config));
  auto same = [](const pipeline::Detections& a, const pipeline::Detections& b) -> ::testing::AssertionResult {
    if (auto r = test::same_detections(a, b); !r) return r;
    if (a.binary.empty() || b.binary.empty()) return ::testing::AssertionFailure() << "no binary frame tapped";
    if (count_differences<std::uint8_t>(a.binary, b.binary) != 0) return ::testing::AssertionFailure() << "binary frames differ";
    if (!a.tree || !b.tree) return ::testing::AssertionFailure() << "no region tree tapped";
    const std::string diff = test::tree_difference(*a.tree, *b.tree);
    if (!diff.empty()) return ::testing::AssertionFailure() << "region trees: " << diff;
    return ::testing::AssertionSuccess();
  };
  const std::size_t recapture_at = 4;  // this frame becomes the empty table again
  std::vector<pipeline::Detections> expected;
  std::vector<segment::RegionTree> trees(frames.size());
  std::vector<Image<std::uint8_t>> binaries;
  int symbols = 0;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    if (i == recapture_at) {
      cpu.recapture_background();
      gpu.recapture_background();
    }
    const auto& c = cpu.detect(frames[i].view());
    symbols += static_cast<int>(c.fiducials.size());
    const Image<std::uint8_t> seen = [&] {
      Image<std::uint8_t> copy_of(frames[i].width(), frames[i].height());
      copy<std::uint8_t>(cpu.received_frame(), copy_of.view());
      return copy_of;
    }();
    const auto& g = gpu.detect(frames[i].view());
    EXPECT_TRUE(same(c, g)) << "frame " << i;
    EXPECT_EQ(count_differences<std::uint8_t>(seen.view(), gpu.received_frame()), 0u) << "equalised frame " << i;
    // Kept for the pipelined detector: its own copies of the taps, which the next frame overwrites.
    expected.push_back(c);
    trees[i] = *c.tree;
    binaries.push_back(Image<std::uint8_t>(c.binary.width, c.binary.height));
    copy<std::uint8_t>(c.binary, binaries.back().view());
    expected.back().tree = &trees[i];
    expected.back().binary = binaries.back().view();
  }
  EXPECT_GT(symbols, 10);
  std::size_t next = 0;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    if (i == recapture_at) pipelined.recapture_background();  // with a frame in flight: it keeps its own
    pipelined.submit(frames[i].view());
    if (pipelined.in_flight() == pipeline::Detector::kMaxInFlight) {
      EXPECT_TRUE(same(expected[next], pipelined.receive())) << "pipelined frame " << next;
      ++next;
    }
  }
  while (pipelined.in_flight() > 0) {
    EXPECT_TRUE(same(expected[next], pipelined.receive())) << "pipelined frame " << next;
    ++next;
  }
}

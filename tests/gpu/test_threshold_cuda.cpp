// CUDA thresholds must equal the CPU ones bit for bit: every method, many windows and gates,
// random and structured images, real symbol scenes, odd sizes, 1xN / Nx1, pitched sub-views and
// 4K frames.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "cuda/graph.hpp"
#include "cuda/memory.hpp"
#include "gpuvis/io/image_file.hpp"
#include "gpuvis/threshold/threshold.hpp"
#include "threshold/cpu/threshold_cpu.hpp"
#include "threshold/cuda/threshold_cuda.hpp"
#include "test_support.hpp"

using namespace gpuvis;
using namespace gpuvis::threshold;

namespace {

Image<std::uint8_t> on_cpu(const Image<std::uint8_t>& src, const Params& p) {
  Image<std::uint8_t> out(src.width(), src.height());
  threshold_cpu(src.view(), out.view(), p);
  return out;
}

// Runs on the device with a poisoned destination, so unwritten pixels show up.
Image<std::uint8_t> on_gpu(const Image<std::uint8_t>& src, const Params& p, cuda_impl::Workspace& ws) {
  cuda::Stream s;
  cuda::DeviceImage<std::uint8_t> d_src(src.width(), src.height()), d_dst(src.width(), src.height());
  cuda::upload<std::uint8_t>(src.view(), d_src.view(), s);
  GPUVIS_CUDA_CHECK(cudaMemset2DAsync(d_dst.view().data, d_dst.view().stride, 77, src.width(), src.height(), s));
  cuda_impl::threshold(d_src.view(), d_dst.view(), p, ws, s);
  Image<std::uint8_t> out(src.width(), src.height());
  cuda::download<std::uint8_t>(d_dst.view(), out.view(), s);
  s.synchronize();
  return out;
}

std::vector<Params> all_params() {
  std::vector<Params> ps;
  for (int h : {1, 2, 6, 8, 9, 12, 32, 127, 255})
    for (int gate : {0, 32, 255}) {
      Params p;
      p.method = Method::bernsen;
      p.bernsen = {h, gate};
      ps.push_back(p);
    }
  for (int tile : {2, 3, 10, 16, 33})
    for (int g : {0, 16, 64}) {
      Params p;
      p.method = Method::tiled;
      p.tiled = {tile, g};
      ps.push_back(p);
    }
  for (int size : {1, 5, 16, 63})
    for (float bias : {0.0f, 0.16f, 0.5f})
      for (int contrast : {0, 32}) {
        Params p;
        p.method = Method::bradley_roth;
        p.bradley_roth = {size, bias, contrast};
        ps.push_back(p);
      }
  return ps;
}

std::string describe(const Params& p) {
  switch (p.method) {
    case Method::bernsen: return "bernsen h=" + std::to_string(p.bernsen.half_window) + " gate=" + std::to_string(p.bernsen.gate);
    case Method::tiled: return "tiled T=" + std::to_string(p.tiled.tile) + " G=" + std::to_string(p.tiled.gradient);
    default:
      return "bradley-roth r=" + std::to_string(p.bradley_roth.size) + " bias=" + std::to_string(p.bradley_roth.bias) +
             " m=" + std::to_string(p.bradley_roth.contrast);
  }
}

void expect_equal(const Image<std::uint8_t>& img, const Params& p, cuda_impl::Workspace& ws, const std::string& what) {
  const auto cpu = on_cpu(img, p);
  const auto gpu = on_gpu(img, p, ws);
  EXPECT_EQ(count_differences<std::uint8_t>(cpu.view(), gpu.view()), 0u) << what << " " << describe(p);
}

}  // namespace

TEST(ThresholdCuda, EqualsCpuOnRandomAndStructuredImages) {
  GPUVIS_REQUIRE_GPU();
  cuda_impl::Workspace ws;
  std::uint32_t seed = 1;
  const int sizes[][2] = {{1, 1}, {1, 300}, {300, 1}, {2, 2}, {17, 5}, {641, 479}, {640, 480}, {1283, 721}};
  for (const auto& s : sizes)
    for (const Params& p : all_params()) {
      const auto img = (seed % 2) ? test::random_image(s[0], s[1], seed) : test::textured_image(s[0], s[1], seed);
      ++seed;
      expect_equal(img, p, ws, std::to_string(s[0]) + "x" + std::to_string(s[1]));
    }
}

TEST(ThresholdCuda, EqualsCpuOn4KAndLargerFrames) {
  GPUVIS_REQUIRE_GPU();
  cuda_impl::Workspace ws;
  for (const auto& s : {std::pair{3840, 2160}, std::pair{4097, 2305}}) {
    const auto img = test::textured_image(s.first, s.second, 99);
    for (const Params& p : all_params())
      if ((p.method == Method::bernsen && p.bernsen.gate == 32) || (p.method != Method::bernsen && p.tiled.gradient != 64 &&
                                                                     p.bradley_roth.contrast == 32))
        expect_equal(img, p, ws, std::to_string(s.first) + "x" + std::to_string(s.second));
  }
}

TEST(ThresholdCuda, EqualsCpuOnRealSymbolScenes) {
  GPUVIS_REQUIRE_GPU();
  cuda_impl::Workspace ws;
  std::vector<Image<std::uint8_t>> scenes;
  scenes.push_back(read_grey8(test::source_path("data/samples/table.pgm")));
  // The printed symbols are PNGs; machines without libpng get PGM copies from scripts/gpu-check.sh.
  const char* pgm_dir = std::getenv("GPUVIS_SYMBOL_PGM_DIR");
  for (int id : {0, 57, 108, 215}) {
    char name[64];
    std::snprintf(name, sizeof name, "amoeba_default_%03d", id);
    if (codec::available())
      scenes.push_back(read_grey8(test::source_path(std::string("data/amoeba/symbols/") + name + ".png")));
    else if (pgm_dir)
      scenes.push_back(read_grey8(std::string(pgm_dir) + "/" + name + ".pgm"));
  }
  EXPECT_GE(scenes.size(), 5u) << "symbol images unreadable: build with libpng or set GPUVIS_SYMBOL_PGM_DIR";
  for (const auto& img : scenes)
    for (const Params& p : all_params()) expect_equal(img, p, ws, "symbol scene");
}

TEST(ThresholdCuda, HandlesSubViewsWithForeignPitch) {
  GPUVIS_REQUIRE_GPU();
  const auto big = test::textured_image(500, 300, 5);
  const auto view = big.view().crop(37, 11, 401, 203);
  Image<std::uint8_t> sub(401, 203);
  copy<std::uint8_t>(view, sub.view());
  cuda::Stream s;
  cuda::DeviceImage<std::uint8_t> d_big(500, 300), d_dst(401, 203);
  cuda::upload<std::uint8_t>(big.view(), d_big.view(), s);
  const auto d_view = DeviceView<const std::uint8_t>(d_big.view()).crop(37, 11, 401, 203);
  cuda_impl::Workspace ws;
  for (const Params& p : all_params()) {
    cuda_impl::threshold(d_view, d_dst.view(), p, ws, s);
    Image<std::uint8_t> out(401, 203);
    cuda::download<std::uint8_t>(d_dst.view(), out.view(), s);
    s.synchronize();
    EXPECT_EQ(count_differences<std::uint8_t>(on_cpu(sub, p).view(), out.view()), 0u) << describe(p);
  }
}

// threshold_pinned: full Bernsen reads and writes mapped pinned memory from its kernels; every
// method must still equal the CPU, on odd sizes, on sub-views whose rows are not word-aligned, and
// on pageable memory (which takes the copy path).
TEST(ThresholdCuda, PinnedHostFramesEqualCpu) {
  GPUVIS_REQUIRE_GPU();
  cuda_impl::Workspace ws;
  cuda::Stream s;
  std::uint32_t seed = 300;
  for (const auto& size : {std::pair{640, 480}, std::pair{1, 77}, std::pair{77, 1}, std::pair{1283, 721}, std::pair{3840, 2160}})
    for (const Params& p : all_params()) {
      if (size.first == 3840 && !(p.method == Method::bernsen && p.bernsen.gate == 32)) continue;
      const int w = size.first, h = size.second;
      const auto img = test::textured_image(w + 3, h + 2, seed++);
      cuda::PinnedImage<std::uint8_t> in(w + 3, h + 2), out(w + 3, h + 2);
      copy<std::uint8_t>(img.view(), in.view());
      // Offset by one column and one row: rows start off word boundaries.
      const auto src = HostView<const std::uint8_t>(in.view()).crop(1, 1, w, h);
      const auto dst = out.view().crop(3, 2, w, h);
      Image<std::uint8_t> sub(w, h);
      copy<std::uint8_t>(src, sub.view());
      const auto expected = on_cpu(sub, p);
      using cuda_impl::PinnedTransfer;
      for (auto transfer : {PinnedTransfer::automatic, PinnedTransfer::copies, PinnedTransfer::write_mapped, PinnedTransfer::mapped}) {
        std::memset(out.view().data, 77, static_cast<std::size_t>(out.view().stride) * (h + 2));
        cuda_impl::threshold_pinned(src, dst, p, ws, s, transfer);
        s.synchronize();
        EXPECT_EQ(count_differences<std::uint8_t>(expected.view(), HostView<const std::uint8_t>(dst)), 0u)
            << w << "x" << h << " " << describe(p) << " transfer " << static_cast<int>(transfer);
      }
    }
  const auto img = test::textured_image(333, 222, 7);
  Image<std::uint8_t> pageable_out(333, 222);
  Params p;
  cuda_impl::threshold_pinned(img.view(), pageable_out.view(), p, ws, s);
  s.synchronize();
  EXPECT_EQ(count_differences<std::uint8_t>(on_cpu(img, p).view(), pageable_out.view()), 0u) << "pageable memory";
}

// The one-launch mapped Bernsen keeps tickets and tile flags on the device between frames: frame
// after frame on one workspace, replayed from a CUDA graph, and after a change of frame size, every
// result must still equal the CPU (a stale flag would let a tile read its halo before it exists).
TEST(ThresholdCuda, MappedFramesInSequenceAndFromAGraphEqualCpu) {
  GPUVIS_REQUIRE_GPU();
  cuda_impl::Workspace ws;
  cuda::Stream s;
  std::uint32_t seed = 900;
  for (const auto& size : {std::pair{640, 480}, std::pair{1283, 721}, std::pair{97, 33}}) {
    const int w = size.first, h = size.second;
    cuda::PinnedImage<std::uint8_t> in(w, h), out(w, h);
    Params p;
    p.bernsen = {6, 32};
    auto run_and_check = [&](auto&& launch, const char* how) {
      for (int frame = 0; frame < 5; ++frame) {
        const auto img = (frame % 2) ? test::random_image(w, h, seed++) : test::textured_image(w, h, seed++);
        copy<std::uint8_t>(img.view(), in.view());
        std::memset(out.view().data, 77, static_cast<std::size_t>(out.view().stride) * h);
        launch();
        s.synchronize();
        EXPECT_EQ(count_differences<std::uint8_t>(on_cpu(img, p).view(), HostView<const std::uint8_t>(out.view())), 0u)
            << w << "x" << h << " " << how << " frame " << frame;
      }
    };
    auto once = [&] { cuda_impl::threshold_pinned(in.view(), out.view(), p, ws, s, cuda_impl::PinnedTransfer::mapped); };
    run_and_check(once, "launched");
    cuda::Graph graph;
    ASSERT_TRUE(graph.capture(s, once));
    run_and_check([&] { graph.launch(s); }, "graph");
  }
}

TEST(ThresholdCuda, ThresholderInterfaceMatchesCpu) {
  GPUVIS_REQUIRE_GPU();
  const auto img = read_grey8(test::source_path("data/samples/table.pgm"));
  for (Method m : {Method::bernsen, Method::tiled, Method::bradley_roth}) {
    Params p;
    p.method = m;
    p.backend = Backend::cuda;
    auto gpu = make_thresholder(p);
    p.backend = Backend::cpu;
    auto cpu = make_thresholder(p);
    Image<std::uint8_t> a(img.width(), img.height()), b(img.width(), img.height());
    gpu->apply(img.view(), a.view());
    cpu->apply(img.view(), b.view());
    EXPECT_EQ(count_differences<std::uint8_t>(a.view(), b.view()), 0u) << to_string(m);
  }
}

TEST(ThresholdCuda, EqualizerMatchesCpu) {
  GPUVIS_REQUIRE_GPU();
  const auto bg = test::textured_image(321, 203, 1);
  auto frame = test::textured_image(321, 203, 2);
  Equalizer eq;
  eq.capture(bg.view());
  cuda::Stream s;
  cuda::DeviceImage<std::uint8_t> d_bg(321, 203), d_frame(321, 203);
  cuda::upload<std::uint8_t>(bg.view(), d_bg.view(), s);
  cuda::upload<std::uint8_t>(frame.view(), d_frame.view(), s);
  cuda_impl::equalize(d_frame.view(), d_bg.view(), eq.background_level(), s);
  Image<std::uint8_t> gpu(321, 203);
  cuda::download<std::uint8_t>(d_frame.view(), gpu.view(), s);
  s.synchronize();
  eq.apply(frame.view());
  EXPECT_EQ(count_differences<std::uint8_t>(frame.view(), gpu.view()), 0u);
}

// The CUDA Thresholder with an equaliser: the CPU's bytes for every method, with and without
// sharpening, on odd sizes.
TEST(ThresholdCuda, EqualisedThresholdsEqualTheCpu) {
  GPUVIS_REQUIRE_GPU();
  std::uint32_t seed = 70;
  for (const auto& [w, h] : {std::pair{1, 1}, {37, 5}, {641, 479}})
    for (Method m : {Method::bernsen, Method::tiled, Method::bradley_roth})
      for (int k : {0, 2}) {
        const auto bg = test::textured_image(w, h, seed++), frame = test::textured_image(w, h, seed++);
        auto eq = std::make_shared<Equalizer>();
        eq->capture(bg.view());
        Params p;
        p.method = m;
        p.sharpen = k;
        p.backend = Backend::cuda;
        auto gpu = make_thresholder(p);
        gpu->set_equalizer(eq);
        p.backend = Backend::cpu;
        auto cpu = make_thresholder(p);
        cpu->set_equalizer(eq);
        Image<std::uint8_t> a(w, h), b(w, h);
        a.fill(77);
        gpu->apply(frame.view(), a.view());
        cpu->apply(frame.view(), b.view());
        EXPECT_EQ(count_differences<std::uint8_t>(a.view(), b.view()), 0u) << w << "x" << h << " " << to_string(m) << " sharpen " << k;
      }
}

// Params::sharpen on the device equals the CPU's for every method (the sharpening rule is shared,
// the kernels are not), on odd sizes and pitched views of real scenes and random images.
TEST(ThresholdCuda, SharpenedThresholdEqualsTheCpu) {
  GPUVIS_REQUIRE_GPU();
  cuda_impl::Workspace ws;
  std::uint32_t seed = 900;
  for (const auto& [w, h] : {std::pair{1, 1}, {3, 17}, {97, 61}, {640, 480}})
    for (Method m : {Method::bernsen, Method::tiled, Method::bradley_roth})
      for (int k : {1, 2, 4}) {
        const auto img = (seed % 2) ? test::random_image(w, h, seed) : test::textured_image(w, h, seed);
        ++seed;
        Params p;
        p.method = m;
        p.sharpen = k;
        EXPECT_EQ(count_differences<std::uint8_t>(on_gpu(img, p, ws).view(), on_cpu(img, p).view()), 0u)
            << to_string(m) << " k=" << k << " " << w << "x" << h;
      }
}

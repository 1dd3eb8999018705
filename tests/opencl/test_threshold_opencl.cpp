// The OpenCL backend's Bernsen threshold must equal the CPU's byte for byte (many windows and
// gates, random and structured images, odd sizes, 1xN / Nx1, sub-views with a foreign stride, a
// real symbol scene); what OpenCL does not run yet says so in one line; the device choice and the
// program cache behave as documented. On PoCL in CI (GPUVIS_REQUIRE_OPENCL=1 there, so a missing
// driver fails instead of skipping), on NVIDIA's OpenCL on the GPU machine.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <memory>
#include <utility>

#include <unistd.h>

#include "gpuvis/core/error.hpp"
#include "gpuvis/io/image_file.hpp"
#include "gpuvis/opencl/devices.hpp"
#include "gpuvis/pipeline/detector.hpp"
#include "gpuvis/threshold/threshold.hpp"
#include "opencl_skip.hpp"
#include "threshold/cpu/threshold_cpu.hpp"
#include "test_support.hpp"

using namespace gpuvis;

namespace {

threshold::Params bernsen(int h, int gate, Backend backend) {
  threshold::Params p;
  p.method = threshold::Method::bernsen;
  p.bernsen = {h, gate};
  p.backend = backend;
  return p;
}

// The OpenCL result, written over a poisoned destination so unwritten pixels show up.
Image<std::uint8_t> on_opencl(HostView<const std::uint8_t> src, const threshold::Params& p) {
  Image<std::uint8_t> out(src.width, src.height);
  out.fill(77);
  threshold::make_thresholder(p)->apply(src, out.view());
  return out;
}

Image<std::uint8_t> on_cpu(HostView<const std::uint8_t> src, threshold::Params p) {
  p.backend = Backend::cpu;
  Image<std::uint8_t> out(src.width, src.height);
  threshold::threshold_cpu(src, out.view(), p);
  return out;
}

}  // namespace

TEST(ThresholdOpencl, BernsenEqualsTheCpuOnRandomAndStructuredImages) {
  GPUVIS_REQUIRE_OPENCL();
  std::uint32_t seed = 1;
  const int sizes[][2] = {{1, 1}, {1, 300}, {300, 1}, {2, 2}, {17, 5}, {641, 479}};
  for (const auto& s : sizes)
    for (int h : {1, 2, 6, 12, 16, 32, 127})
      for (int gate : {0, 32, 255}) {
        const auto img = (seed % 2) ? test::random_image(s[0], s[1], seed) : test::textured_image(s[0], s[1], seed);
        ++seed;
        const auto p = bernsen(h, gate, Backend::opencl);
        EXPECT_EQ(count_differences<std::uint8_t>(on_cpu(img.view(), p).view(), on_opencl(img.view(), p).view()), 0u)
            << s[0] << "x" << s[1] << " h=" << h << " gate=" << gate;
      }
}

// reacTIVision's tiled Bernsen and Bradley-Roth: the same bytes as the CPU for tile sizes, gates,
// window sizes and biases across frame sizes (a frame smaller than a tile or a window included),
// on random, textured and table images; and each method after sharpening.
TEST(ThresholdOpencl, TiledBradleyRothAndSharpeningEqualTheCpu) {
  GPUVIS_REQUIRE_OPENCL();
  std::uint32_t seed = 100;
  const int sizes[][2] = {{1, 1}, {7, 3}, {300, 1}, {1, 300}, {33, 17}, {641, 479}};
  for (const auto& s : sizes) {
    for (const auto& [tile, gradient] : {std::pair{2, 0}, std::pair{16, 16}, std::pair{24, 32}, std::pair{64, 255}}) {
      const auto img = (seed % 2) ? test::random_image(s[0], s[1], seed) : test::textured_image(s[0], s[1], seed);
      ++seed;
      threshold::Params p;
      p.method = threshold::Method::tiled;
      p.tiled = {tile, gradient};
      p.backend = Backend::opencl;
      EXPECT_EQ(count_differences<std::uint8_t>(on_cpu(img.view(), p).view(), on_opencl(img.view(), p).view()), 0u)
          << "tiled " << s[0] << "x" << s[1] << " tile=" << tile << " gradient=" << gradient;
    }
    for (const auto& [size, bias, contrast] : {std::tuple{1, 0.0f, 0}, std::tuple{16, 0.16f, 32}, std::tuple{63, 0.5f, 200}}) {
      const auto img = (seed % 2) ? test::random_image(s[0], s[1], seed) : test::textured_image(s[0], s[1], seed);
      ++seed;
      threshold::Params p;
      p.method = threshold::Method::bradley_roth;
      p.bradley_roth = {size, bias, contrast};
      p.backend = Backend::opencl;
      EXPECT_EQ(count_differences<std::uint8_t>(on_cpu(img.view(), p).view(), on_opencl(img.view(), p).view()), 0u)
          << "bradley-roth " << s[0] << "x" << s[1] << " size=" << size << " bias=" << bias << " contrast=" << contrast;
    }
  }
  const auto scene = read_grey8(test::source_path("data/samples/table.pgm"));
  for (const threshold::Method m : {threshold::Method::tiled, threshold::Method::bradley_roth}) {
    threshold::Params p;
    p.method = m;
    p.backend = Backend::opencl;
    const auto cpu = on_cpu(scene.view(), p);
    EXPECT_EQ(count_differences<std::uint8_t>(cpu.view(), on_opencl(scene.view(), p).view()), 0u) << threshold::to_string(m);
    EXPECT_GT(std::count(cpu.data(), cpu.data() + cpu.view().pixel_count(), 255), 1000) << "the table is not all black";
  }
  for (const threshold::Method m : {threshold::Method::bernsen, threshold::Method::tiled, threshold::Method::bradley_roth})
    for (int k : {1, 2, 4}) {
      threshold::Params p;
      p.method = m;
      p.sharpen = k;
      p.backend = Backend::opencl;
      const auto img = test::textured_image(321, 203, seed++);
      const auto cpu = on_cpu(img.view(), p);
      p.sharpen = 0;
      EXPECT_NE(count_differences<std::uint8_t>(cpu.view(), on_cpu(img.view(), p).view()), 0u) << "sharpening changes nothing here";
      p.sharpen = k;
      EXPECT_EQ(count_differences<std::uint8_t>(cpu.view(), on_opencl(img.view(), p).view()), 0u)
          << threshold::to_string(m) << " sharpen=" << k;
    }
}

TEST(ThresholdOpencl, SubViewsWithAForeignStrideAndASymbolSceneEqualTheCpu) {
  GPUVIS_REQUIRE_OPENCL();
  const auto big = test::textured_image(500, 300, 5);
  const auto view = big.view().crop(37, 11, 401, 203);  // rows 500 bytes apart, 401 wide
  const auto p = bernsen(16, 32, Backend::opencl);
  // Into a sub-view too: the pixels beside it stay as they were.
  Image<std::uint8_t> canvas(450, 250);
  canvas.fill(9);
  threshold::make_thresholder(p)->apply(view, canvas.view().crop(20, 30, 401, 203));
  EXPECT_EQ(count_differences<std::uint8_t>(on_cpu(view, p).view(), canvas.view().crop(20, 30, 401, 203)), 0u);
  EXPECT_EQ(canvas(19, 30), 9);
  EXPECT_EQ(canvas(20, 29), 9);
  EXPECT_EQ(canvas(421, 100), 9);
  const auto scene = read_grey8(test::source_path("data/samples/table.pgm"));
  EXPECT_EQ(count_differences<std::uint8_t>(on_cpu(scene.view(), p).view(), on_opencl(scene.view(), p).view()), 0u);
}

// One Thresholder over frames of changing size, as a tracker's stream would use it.
TEST(ThresholdOpencl, AThresholderKeepsEqualingTheCpuAcrossFrameSizes) {
  GPUVIS_REQUIRE_OPENCL();
  const auto p = bernsen(12, 32, Backend::opencl);
  auto t = threshold::make_thresholder(p);
  EXPECT_EQ(t->backend(), Backend::opencl);
  std::uint32_t seed = 40;
  for (const auto& s : {std::pair{320, 240}, std::pair{640, 480}, std::pair{33, 700}, std::pair{320, 240}}) {
    const auto img = test::textured_image(s.first, s.second, seed++);
    Image<std::uint8_t> out(s.first, s.second);
    t->apply(img.view(), out.view());
    EXPECT_EQ(count_differences<std::uint8_t>(on_cpu(img.view(), p).view(), out.view()), 0u) << s.first << "x" << s.second;
  }
  Image<std::uint8_t> wrong(10, 10), src(11, 10);
  EXPECT_THROW(t->apply(src.view(), wrong.view()), Error);
}

// What is not on OpenCL yet is refused, naming what to use instead; nothing runs elsewhere quietly.
TEST(ThresholdOpencl, WhatOpenclDoesNotRunYetSaysSo) {
  GPUVIS_REQUIRE_OPENCL();
  auto message = [](auto&& f) {
    try {
      f();
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::unsupported);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  pipeline::DetectorParams d;
  d.backend = Backend::opencl;
  EXPECT_NE(message([&] { pipeline::Detector det(d); }).find("not on the OpenCL backend yet"), std::string::npos);
}

TEST(ThresholdOpencl, TheDeviceIsChosenByIndexOrNameAndABadChoiceListsTheDevices) {
  GPUVIS_REQUIRE_OPENCL();
  const auto all = opencl::devices();
  ASSERT_FALSE(all.empty());
  ::setenv("GPUVIS_OPENCL_DEVICE", std::to_string(all.back().index).c_str(), 1);
  EXPECT_EQ(opencl::chosen_device().index, all.back().index);
  ::setenv("GPUVIS_OPENCL_DEVICE", all.front().name.substr(0, 6).c_str(), 1);
  EXPECT_EQ(opencl::chosen_device().name.substr(0, 6), all.front().name.substr(0, 6));
  ::setenv("GPUVIS_OPENCL_DEVICE", "no such device anywhere", 1);
  try {
    opencl::chosen_device();
    ADD_FAILURE() << "a device that is not there was chosen";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(all.front().name), std::string::npos) << e.what();
  }
  ::unsetenv("GPUVIS_OPENCL_DEVICE");
  if (std::none_of(all.begin(), all.end(), [](const opencl::DeviceInfo& d) { return d.gpu; }))
    EXPECT_EQ(opencl::chosen_device().index, all.front().index);  // no GPU: the first device
  else
    EXPECT_TRUE(opencl::chosen_device().gpu);
}

// The drivers installed, from the environment alone: PoCL's alone is no GPU's; a library in
// OCL_ICD_FILENAMES (as NVIDIA's containers name theirs, without an ICD file) or an ICD file that
// names another library is.
TEST(ThresholdOpencl, DriversAreFoundInIcdFilesAndInOclIcdFilenames) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("gpuvis_icd_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "pocl.icd") << "libpocl.so.2\n";
  const char* saved_names = std::getenv("OCL_ICD_FILENAMES");
  const char* saved_vendors = std::getenv("OCL_ICD_VENDORS");
  const std::string names = saved_names ? saved_names : "", vendors = saved_vendors ? saved_vendors : "";
  ::setenv("OCL_ICD_VENDORS", dir.c_str(), 1);
  ::unsetenv("OCL_ICD_FILENAMES");
  EXPECT_FALSE(opencl::driver_other_than_pocl());
  // A path, not the bare name: where OpenCL was opened earlier in this process by a loader that
  // cut the variable at its first colon (NVIDIA's), a value equal to that cut is taken for it.
  ::setenv("OCL_ICD_FILENAMES", "/usr/lib/x86_64-linux-gnu/libpocl.so.2", 1);
  EXPECT_FALSE(opencl::driver_other_than_pocl());
  ::setenv("OCL_ICD_FILENAMES", "libpocl.so.2:libnvidia-opencl.so.1", 1);
  EXPECT_TRUE(opencl::driver_other_than_pocl());
  ::unsetenv("OCL_ICD_FILENAMES");
  std::ofstream(dir / "nvidia.icd") << "libnvidia-opencl.so.1\n";
  EXPECT_TRUE(opencl::driver_other_than_pocl());
  saved_names ? ::setenv("OCL_ICD_FILENAMES", names.c_str(), 1) : ::unsetenv("OCL_ICD_FILENAMES");
  saved_vendors ? ::setenv("OCL_ICD_VENDORS", vendors.c_str(), 1) : ::unsetenv("OCL_ICD_VENDORS");
  std::filesystem::remove_all(dir);
}

// `auto` for an operation that runs on OpenCL: CUDA, then an OpenCL GPU, then the CPU; never an
// OpenCL CPU device (PoCL) by itself, and never for parameters OpenCL does not run.
TEST(ThresholdOpencl, AutoTakesAnOpenclGpuOnlyAfterCudaAndNeverACpuDevice) {
  EXPECT_EQ(opencl::prefer_opencl_gpu(Backend::automatic, Backend::cuda), Backend::cuda);
  EXPECT_EQ(opencl::prefer_opencl_gpu(Backend::cpu, Backend::cpu), Backend::cpu);
  EXPECT_EQ(opencl::prefer_opencl_gpu(Backend::automatic, Backend::cpu, false), Backend::cpu);
  const auto all = opencl::devices();
  const bool gpu = std::any_of(all.begin(), all.end(), [](const opencl::DeviceInfo& d) { return d.gpu; });
  EXPECT_EQ(opencl::gpu_present(), gpu);
  EXPECT_EQ(opencl::prefer_opencl_gpu(Backend::automatic, Backend::cpu), gpu ? Backend::opencl : Backend::cpu);
}

// `--device` picks the device from the command line: an index works, a name that matches none is
// one error line listing the devices.
TEST(ThresholdOpencl, TheCommandLineChoosesTheDeviceWithDevice) {
  GPUVIS_REQUIRE_OPENCL();
  const std::string in = test::source_path("data/samples/table.pgm");
  const auto ok = test::run_cli("threshold " + in + " " + test::temp_path("a.pgm") + " --backend opencl --device 0");
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  const auto bad = test::run_cli("threshold " + in + " " + test::temp_path("b.pgm") + " --backend opencl --device no-such-gpu");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.output.find("'no-such-gpu' (--device or GPUVIS_OPENCL_DEVICE) matches none"), std::string::npos) << bad.output;
  EXPECT_NE(bad.output.find(opencl::devices().front().name), std::string::npos) << bad.output;
  EXPECT_EQ(std::count(bad.output.begin(), bad.output.end(), '\n'), 1) << bad.output;
}

// The first `gpuvis threshold --backend opencl` builds the program and keeps it in the cache; the
// next reads it from there; a damaged cache file is built again; all give the CPU's bytes.
TEST(ThresholdOpencl, ProgramsAreCachedOnDiskAndADamagedCacheIsRebuilt) {
  GPUVIS_REQUIRE_OPENCL();
  namespace fs = std::filesystem;
  const std::string dir = test::temp_path("opencl-cache");
  const std::string in = test::source_path("data/samples/table.pgm");
  ::setenv("GPUVIS_OPENCL_CACHE", dir.c_str(), 1);  // for the gpuvis processes this test starts
  const std::string cpu = test::temp_path("cpu.pgm");
  ASSERT_EQ(test::run_cli("threshold " + in + " " + cpu + " --backend cpu").exit_code, 0);
  for (int run = 0; run < 3; ++run) {
    const std::string out = test::temp_path("opencl" + std::to_string(run) + ".pgm");
    const auto r = test::run_cli("threshold " + in + " " + out + " --backend opencl");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(count_differences<std::uint8_t>(read_grey8(cpu).view(), read_grey8(out).view()), 0u) << run;
    std::vector<fs::path> cached;
    for (const auto& e : fs::directory_iterator(dir)) cached.push_back(e.path());
    ASSERT_EQ(cached.size(), 1u) << "one program, one cache file";
    if (run == 1) std::ofstream(cached[0], std::ios::binary | std::ios::trunc) << "not a program";
  }
  ::unsetenv("GPUVIS_OPENCL_CACHE");
}

// The equaliser on OpenCL before every method, with and without sharpening: byte for byte the
// CPU's Equalizer then threshold, on odd sizes; a second background captured into the same
// equaliser is the one used next; a frame of another size is one clear error.
TEST(ThresholdOpencl, EqualisedThresholdsEqualTheCpu) {
  GPUVIS_REQUIRE_OPENCL();
  std::uint32_t seed = 40;
  for (const auto& [w, h] : {std::pair{1, 1}, {37, 5}, {641, 479}})
    for (threshold::Method m : {threshold::Method::bernsen, threshold::Method::tiled, threshold::Method::bradley_roth})
      for (int k : {0, 2}) {
        const auto bg = test::textured_image(w, h, seed++), frame = test::textured_image(w, h, seed++);
        auto eq = std::make_shared<threshold::Equalizer>();
        eq->capture(bg.view());
        threshold::Params p;
        p.method = m;
        p.sharpen = k;
        p.backend = Backend::opencl;
        auto cl = threshold::make_thresholder(p);
        cl->set_equalizer(eq);
        p.backend = Backend::cpu;
        auto cpu = threshold::make_thresholder(p);
        cpu->set_equalizer(eq);
        for (int round = 0; round < 2; ++round) {
          Image<std::uint8_t> a(w, h), b(w, h);
          a.fill(77);
          cl->apply(frame.view(), a.view());
          cpu->apply(frame.view(), b.view());
          EXPECT_EQ(count_differences<std::uint8_t>(a.view(), b.view()), 0u) << w << "x" << h << " " << to_string(m) << " sharpen " << k;
          eq->capture(frame.view());  // the next round's background: the frame itself
        }
      }
  threshold::Params p;
  p.backend = Backend::opencl;
  auto cl = threshold::make_thresholder(p);
  auto eq = std::make_shared<threshold::Equalizer>();
  eq->capture(test::textured_image(20, 20, 1).view());
  cl->set_equalizer(eq);
  Image<std::uint8_t> other(21, 20), out(21, 20);
  EXPECT_THROW(cl->apply(other.view(), out.view()), Error);
}

// `gpuvis threshold --equalize BACKGROUND --backend opencl` equalises on the device: the same file
// as the CPU backend's, and not the file without the equaliser.
TEST(ThresholdOpencl, TheCommandLinesEqualiserRunsOnOpencl) {
  GPUVIS_REQUIRE_OPENCL();
  const std::string in = test::source_path("data/samples/table.pgm");
  const auto table = read_grey8(in);
  Image<std::uint8_t> light(table.width(), table.height());  // an uneven empty table
  for (int y = 0; y < light.height(); ++y)
    for (int x = 0; x < light.width(); ++x) light(x, y) = static_cast<std::uint8_t>(60 + 120 * x / std::max(1, light.width() - 1));
  const std::string bg = test::temp_path("light.pgm");
  write_image(bg, light.view());
  std::string outs[3];
  const char* backends[] = {"cpu", "opencl", "opencl"};
  for (int k = 0; k < 3; ++k) {
    outs[k] = test::temp_path(std::string("eq-") + std::to_string(k) + ".pgm");
    const auto r = test::run_cli("threshold " + in + " " + outs[k] + " --backend " + backends[k] + (k < 2 ? " --equalize " + bg : ""));
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  EXPECT_EQ(count_differences<std::uint8_t>(read_grey8(outs[0]).view(), read_grey8(outs[1]).view()), 0u);
  EXPECT_GT(count_differences<std::uint8_t>(read_grey8(outs[1]).view(), read_grey8(outs[2]).view()), 0u);
}

// Mean shift filtering: the clMeanShift study's cases (512x512 RGB in L*u*v*, Epanechnikov, full
// convergence, h = (h_s, h_r) = (8, 8), (16, 16), (32, 32)) and 640x480 RGB with sp = 8, sr = 16,
// on the CPU (all threads) and CUDA (end to end: colour conversion on the host, upload, climbs,
// download, conversion back). The input is a generated scene (smooth shading, flat patches, noise);
// --save-frames DIR writes it for the OpenCV peer (scripts/peers/meanshift_peers.py).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>

#include "gpuvis/core/parallel.hpp"
#include "gpuvis/filters/mean_shift.hpp"
#include "gpuvis/io/image_file.hpp"
#include "filters/filter_backends.hpp"
#include "harness.hpp"
#ifdef GPUVIS_BENCH_CUDA
#include "gpuvis/cuda/runtime.hpp"
#endif

using namespace gpuvis;

namespace {
Image<std::uint8_t> scene(int w, int h, std::uint32_t seed) {
  Image<std::uint8_t> img(w, h, 3);
  std::mt19937 rng(seed);
  std::normal_distribution<float> noise(0.0f, 6.0f);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const float fx = static_cast<float>(x) / static_cast<float>(w), fy = static_cast<float>(y) / static_cast<float>(h);
      float rgb[3] = {60 + 120 * fx, 80 + 100 * fy, 150 - 60 * fx};
      const int cell = (x / 64 + y / 48) % 4;
      if (cell == 1) rgb[0] = 220, rgb[1] = 200, rgb[2] = 40;
      if ((x - w / 2) * (x - w / 2) + (y - h / 2) * (y - h / 2) < (h / 6) * (h / 6)) rgb[0] = 30, rgb[1] = 60, rgb[2] = 200;
      for (int c = 0; c < 3; ++c) img(x, y, c) = static_cast<std::uint8_t>(std::clamp(std::lround(rgb[c] + noise(rng)), 0L, 255L));
    }
  return img;
}
}  // namespace

int main(int argc, char** argv) {
  const auto args = bench::Args::parse(argc, argv);
  bench::Report report(args.out);
  bench::Options o;
  o.warmup = 1;
  o.min_runs = args.quick ? 3 : 5;
  o.min_seconds = args.quick ? 0.2 : 1.0;
  struct Case {
    int w, h;
    float hs, hr;
    bool cpu;
  };
  const std::vector<Case> cases = {{512, 512, 8, 8, true}, {512, 512, 16, 16, false}, {512, 512, 32, 32, false}, {640, 480, 8, 16, true}};
  bool gpu = false;
#ifdef GPUVIS_BENCH_CUDA
  gpu = cuda::device_count() > 0;
  if (gpu) report.set_gpu_description(cuda::devices().front().name);
#endif
  for (const Case& c : cases) {
    const auto img = scene(c.w, c.h, 1);
    if (!args.save_frames.empty()) {
      std::filesystem::create_directories(args.save_frames);
      write_image(args.save_frames + "/scene_" + std::to_string(c.w) + "x" + std::to_string(c.h) + ".ppm", img.view());
    }
    Image<std::uint8_t> out(c.w, c.h, 3);
    filters::MeanShiftParams p;
    p.spatial = c.hs;
    p.range = c.hr;
    const std::map<std::string, std::string> params{{"hs", std::to_string(static_cast<int>(c.hs))},
                                                    {"hr", std::to_string(static_cast<int>(c.hr))}, {"colour", "luv"}};
    if (c.cpu && args.wants("cpu")) {
      bench::Record r{"meanshift", "filter", "cpu", "host", c.w, c.h, params, {}};
      r.stats = bench::measure([&] { return bench::time_us([&] { filters::mean_shift_filter_cpu(img.view(), out.view(), p); }); }, o);
      report.add(r);
    }
    if (gpu && args.wants("cuda")) {
      bench::Record r{"meanshift", "filter", "cuda", "end-to-end (host conversion + upload + climbs + download)", c.w, c.h, params, {}};
      r.stats = bench::measure([&] { return bench::time_us([&] { filters::mean_shift_filter_cuda(img.view(), out.view(), p); }); }, o);
      report.add(r);
    }
  }
  return 0;
}

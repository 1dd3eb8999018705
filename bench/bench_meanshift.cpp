// Mean shift filtering: the clMeanShift study's cases (512x512 RGB in L*u*v*, Epanechnikov, full
// convergence, h = (h_s, h_r) = (8, 8), (16, 16), (32, 32)), 640x480 RGB with sp = 8, sr = 16, and
// an MRI-sized grey volume (192x192x160, h = (4, 4) and (8, 8)), on the CPU (all threads and one,
// the climbs in vector lanes and one at a time), CUDA and
// OpenCL (the device GPUVIS_OPENCL_DEVICE picks, when there is one): end to end (host image in, host image out: upload, conversions, climbs, download) and on the
// device (the image already there: conversions and climbs, no transfers; on OpenCL the kernels'
// own time stamps, opencl::KernelTimer, without the host's round trips between rounds). The queue is also
// measured switched off and with other orders and round lengths, and the literal reference is
// timed on a small image, to show what the speed-ups buy. --save-frames DIR writes the inputs for the OpenCV peer
// (scripts/peers/meanshift_peers.py). The volume on the CPU takes minutes: --filter volume-cpu.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>

#include "filters/cpu/mean_shift_lanes.hpp"
#include "filters/filter_backends.hpp"
#include "gpuvis/core/parallel.hpp"
#include "gpuvis/filters/mean_shift.hpp"
#include "filters/opencl/filters_opencl.hpp"
#include "gpuvis/io/image_file.hpp"
#include "gpuvis/opencl/devices.hpp"
#include "harness.hpp"
#include "opencl/context.hpp"
#include "mean_shift_reference.hpp"
#ifdef GPUVIS_BENCH_CUDA
#include "cuda/memory.hpp"
#include "filters/cuda/mean_shift_cuda.hpp"
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

// A head-like phantom: an ellipsoid of "tissue" around a brighter one, a few bright blobs, a dark
// background, smooth shading and noise (sigma 8), in slices stacked as the volume filter takes them.
Image<std::uint8_t> phantom(int w, int h, int d, std::uint32_t seed) {
  Image<std::uint8_t> vol(w, h * d);
  std::mt19937 rng(seed);
  std::normal_distribution<float> noise(0.0f, 8.0f);
  auto inside = [](float x, float y, float z, float a, float b, float c) { return x * x / (a * a) + y * y / (b * b) + z * z / (c * c) < 1; };
  for (int z = 0; z < d; ++z)
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const float fw = static_cast<float>(w), fh = static_cast<float>(h), fd = static_cast<float>(d);
        const float px = static_cast<float>(x) - fw / 2, py = static_cast<float>(y) - fh / 2, pz = static_cast<float>(z) - fd / 2;
        float v = 20;
        if (inside(px, py, pz, 0.45f * fw, 0.45f * fh, 0.45f * fd)) v = 90 + 20 * static_cast<float>(y) / fh;
        if (inside(px, py, pz, 0.35f * fw, 0.37f * fh, 0.36f * fd)) v = 140 + 10 * static_cast<float>(x) / fw;
        if (inside(px - 20, py + 10, pz - 5, 12, 9, 10) || inside(px + 25, py - 15, pz + 12, 8, 8, 8)) v = 210;
        vol(x, z * h + y) = static_cast<std::uint8_t>(std::clamp(std::lround(v + noise(rng)), 0L, 255L));
      }
  return vol;
}

std::map<std::string, std::string> params_of(float hs, float hr, const std::string& colour, const std::string& variant = "") {
  std::map<std::string, std::string> m{{"hs", std::to_string(static_cast<int>(hs))}, {"hr", std::to_string(static_cast<int>(hr))}, {"colour", colour}};
  if (!variant.empty()) m["variant"] = variant;
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  const auto args = bench::Args::parse(argc, argv);
  bench::Report report(args.out);
  bench::Options o;
  o.warmup = 1;
  o.min_runs = args.quick ? 3 : 7;
  o.min_seconds = args.quick ? 0.2 : 1.0;
#ifdef GPUVIS_BENCH_CUDA
  const bool gpu = cuda::device_count() > 0;
  if (gpu) report.set_gpu_description(cuda::devices().front().name);
#endif
  const bool opencl_device = !opencl::devices().empty() && args.wants("opencl");
  const std::string opencl_name = opencl_device ? opencl::chosen_device().name : "";
  // OpenCL end to end (host image in and out) and its kernels' own time (device time stamps).
  auto run_opencl = [&](const std::string& name, const Image<std::uint8_t>& img, VolumeShape shape, const filters::MeanShiftParams& p,
                        std::map<std::string, std::string> params, const bench::Options& opts) {
    if (!opencl_device) return;
    const int w = img.width(), h = img.height() / (shape.depth * shape.frames);
    Image<std::uint8_t> out(img.width(), img.height(), img.channels());
    const auto run = [&] { filters::mean_shift_filter_opencl<std::uint8_t>(img.view(), out.view(), shape, p); };
    run();  // builds the program
    params["device"] = opencl_name;
    bench::Record r{name, "filter", "opencl", "end-to-end (upload, conversions, climbs, download)", w, h, params, {}};
    r.stats = bench::measure([&] { return bench::time_us(run); }, opts);
    report.add(r);
    r.scope = "kernels (device time stamps of the conversions and climbs, no transfers)";
    r.stats = bench::measure(
        [&] {
          opencl::KernelTimer timer;
          run();
          return timer.take_microseconds();
        },
        opts);
    report.add(r);
  };
  using filters::mean_shift_detail::Tuning;
  const Tuning standard, no_queue{0, true}, atomic_queue{8, false}, round4{4, true}, round16{16, true};

  // One case on the CPU and on CUDA (end to end, and on the device), with the given tuning.
  auto run_case = [&](const std::string& name, const Image<std::uint8_t>& img, VolumeShape shape, float hs, float hr, bool cpu,
                      const Tuning& tuning, const std::string& variant) {
    filters::MeanShiftParams p;
    p.spatial = hs;
    p.range = hr;
    const auto params = params_of(hs, hr, img.channels() == 3 ? "luv" : "grey", variant);
    const int w = img.width(), h = img.height() / (shape.depth * shape.frames);
    Image<std::uint8_t> out(img.width(), img.height(), img.channels());
    if (cpu && args.wants("cpu")) {
      // On all threads and on one (OpenCV's filter, the peer, runs on one core), the climbs in
      // vector lanes and one at a time (the same modes; filters/cpu/mean_shift_lanes.hpp).
      const int all = num_threads();
      for (int threads : {all, 1})
        for (bool lanes : {true, false}) {
          if (!lanes && std::string(filters::cpu_lanes::target()).empty()) continue;
          Tuning t = tuning;
          t.lanes = lanes;
          auto q = params;
          q["threads"] = std::to_string(threads);
          q["climbs"] = lanes && *filters::cpu_lanes::target() ? std::string("in ") + filters::cpu_lanes::target() + " lanes" : "one at a time";
          set_num_threads(threads);
          bench::Record r{name, "filter", "cpu", "host", w, h, q, {}};
          r.stats = bench::measure(
              [&] { return bench::time_us([&] { filters::mean_shift_filter_cpu<std::uint8_t>(img.view(), out.view(), shape, p, nullptr, t); }); }, o);
          report.add(r);
          if (threads == all && all == 1) break;
        }
      set_num_threads(0);
    }
    if (variant.empty()) run_opencl(name, img, shape, p, params, o);
#ifdef GPUVIS_BENCH_CUDA
    if (gpu && args.wants("cuda")) {
      bench::Record r{name, "filter", "cuda", "end-to-end (upload, conversions, climbs, download)", w, h, params, {}};
      r.stats = bench::measure(
          [&] { return bench::time_us([&] { filters::mean_shift_filter_cuda<std::uint8_t>(img.view(), out.view(), shape, p, nullptr, tuning); }); }, o);
      report.add(r);
      cuda::DeviceImage<std::uint8_t> d_src(img.width(), img.height(), img.channels()), d_dst(img.width(), img.height(), img.channels());
      cuda::Stream stream;
      cuda::upload<std::uint8_t>(img.view(), d_src.view(), stream);
      stream.synchronize();
      bench::Record k{name, "filter", "cuda", "on the device (conversions and climbs, no transfers)", w, h, params, {}};
      k.stats = bench::measure(
          [&] {
            return bench::time_us(
                [&] { filters::cuda_impl::mean_shift<std::uint8_t>(d_src.view(), d_dst.view(), shape, p, nullptr, tuning, stream); });
          },
          o);
      report.add(k);
    }
#endif
  };

  struct Case {
    int w, h;
    float hs, hr;
    bool cpu;
  };
  for (const Case& c : std::vector<Case>{{512, 512, 8, 8, true}, {512, 512, 16, 16, false}, {512, 512, 32, 32, false}, {640, 480, 8, 16, true}}) {
    const auto img = scene(c.w, c.h, 1);
    if (!args.save_frames.empty()) {
      std::filesystem::create_directories(args.save_frames);
      write_image(args.save_frames + "/scene_" + std::to_string(c.w) + "x" + std::to_string(c.h) + ".ppm", img.view());
    }
    run_case("meanshift", img, {}, c.hs, c.hr, c.cpu, standard, "");
    if (c.w == 512 && (c.hs == 8 || c.hs == 32)) {  // what the queue buys
      run_case("meanshift", img, {}, c.hs, c.hr, false, no_queue, "no queue");
      if (c.hs == 8) {
        run_case("meanshift", img, {}, c.hs, c.hr, false, atomic_queue, "queue in atomic order");
        run_case("meanshift", img, {}, c.hs, c.hr, false, round4, "rounds of 4 steps");
        run_case("meanshift", img, {}, c.hs, c.hr, false, round16, "rounds of 16 steps");
      }
    }
  }

  // The literal reference (every voxel, every step, in double) against the CPU backend, on an
  // image small enough for it.
  if (args.wants("reference")) {
    const auto small = scene(64, 64, 2);
    filters::MeanShiftParams p;
    p.spatial = 8;
    p.range = 8;
    bench::Options once = o;
    once.min_runs = 3;
    once.min_seconds = 0;
    bench::Record r{"meanshift", "filter", "reference", "literal reference (tests/support), one thread", 64, 64, params_of(8, 8, "luv"), {}};
    r.stats = bench::measure([&] { return bench::time_us([&] { (void)test::mean_shift_reference<std::uint8_t>(small.view(), p); }); }, once);
    report.add(r);
    Image<std::uint8_t> out(64, 64, 3);
    set_num_threads(1);
    bench::Record c{"meanshift", "filter", "cpu", "host, one thread", 64, 64, params_of(8, 8, "luv"), {}};
    c.stats = bench::measure([&] { return bench::time_us([&] { filters::mean_shift_filter_cpu<std::uint8_t>(small.view(), out.view(), {}, p); }); }, o);
    report.add(c);
    set_num_threads(0);
  }

  // The MRI-sized grey volume (the study's 192x192x160), h = (4, 4) and (8, 8).
  if (args.wants("volume") || args.filter == "volume-cpu") {
    const int w = 192, h = 192, d = args.quick ? 40 : 160;
    const auto vol = phantom(w, h, d, 3);
    for (float hs : {4.0f, 8.0f}) {
      filters::MeanShiftParams p;
      p.spatial = hs;
      p.range = hs;
      bench::Options few = o;
      few.warmup = 1;
      few.min_runs = 3;
      few.min_seconds = 0;
      Image<std::uint8_t> out(w, h * d);
      const auto params = params_of(hs, hs, "grey", "volume " + std::to_string(d) + " slices");
      if (args.filter == "volume-cpu") {  // minutes on a CPU: asked for by name only, and run once
        bench::Options once = few;
        once.warmup = 0;
        once.min_runs = 1;
        // In vector lanes, and at (4, 4) also one climb at a time (at (8, 8) that takes most of
        // half an hour on two cores).
        for (bool lanes : {true, false}) {
          if (!lanes && (hs > 4 || std::string(filters::cpu_lanes::target()).empty())) continue;
          Tuning t;
          t.lanes = lanes;
          auto q = params;
          q["climbs"] = lanes && *filters::cpu_lanes::target() ? std::string("in ") + filters::cpu_lanes::target() + " lanes" : "one at a time";
          bench::Record r{"meanshift-volume", "filter", "cpu", "host, one run", w, h, q, {}};
          r.stats = bench::measure(
              [&] { return bench::time_us([&] { filters::mean_shift_filter_cpu<std::uint8_t>(vol.view(), out.view(), VolumeShape{d}, p, nullptr, t); }); },
              once);
          report.add(r);
        }
      }
      run_opencl("meanshift-volume", vol, VolumeShape{d}, p, params, few);
#ifdef GPUVIS_BENCH_CUDA
      if (gpu && args.wants("cuda")) {
        for (const auto& [tuning, variant] : {std::pair{standard, std::string()}, std::pair{no_queue, std::string(", no queue")}}) {
          auto vp = params;
          vp["variant"] += variant;
          bench::Record r{"meanshift-volume", "filter", "cuda", "end-to-end (upload, conversions, climbs, download)", w, h, vp, {}};
          r.stats = bench::measure(
              [&] { return bench::time_us([&] { filters::mean_shift_filter_cuda<std::uint8_t>(vol.view(), out.view(), VolumeShape{d}, p, nullptr, tuning); }); },
              few);
          report.add(r);
        }
      }
#endif
    }
  }
  return 0;
}

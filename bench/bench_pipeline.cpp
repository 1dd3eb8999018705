// Detection end to end, frame in host memory -> fiducials (and fingers and blobs) in host memory, on
// the CUDA backend (threshold, segmentation and decoding on the device; the frame in pinned memory)
// and on the CPU backend, on the same generated frames; plus the device segmentation alone. With --save-frames DIR the frames are written as PGM for the CuPy peer
// (scripts/peers/cupy_pipeline.py).
//
//   bench_pipeline [--out FILE.jsonl] [--quick] [--filter TEXT] [--size WxH] [--save-frames DIR]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>

#include "gpuvis/core/parallel.hpp"
#include "gpuvis/cuda/runtime.hpp"
#include "gpuvis/io/image_file.hpp"
#include "gpuvis/pipeline/detector.hpp"
#include "gpuvis/synth/scene.hpp"
#include "harness.hpp"
#ifdef GPUVIS_BENCH_CUDA
#include "cuda/memory.hpp"
#include "segment/cuda/segment_cuda.hpp"
#include "threshold/cuda/threshold_cuda.hpp"
#endif

using namespace gpuvis;

namespace {

struct Frame {
  std::string name;
  Image<std::uint8_t> image;
  int placed = 0;  // symbols the generator placed (it skips those that would overlap)
};

std::vector<Frame> make_frames(const bench::Args& args) {
  const bool quick = args.quick;
  synth::Generator gen(std::string(GPUVIS_SOURCE_DIR) + "/data/amoeba/symbols");
  std::vector<Frame> frames;
  auto scene = [&](int w, int h, int symbols, double min_size, double max_size, double noise_sigma) {
    if (args.width > 0 && (w != args.width || h != args.height)) return;  // --size: this frame size only
    synth::SceneParams p;
    p.width = w;
    p.height = h;
    p.symbols = symbols;
    p.fingers = 3;
    p.min_size = min_size;
    p.max_size = max_size;
    p.seed = 5;
    auto s = gen.make(p);
    const int placed = static_cast<int>(s.symbols.size());
    std::string name = std::to_string(placed) + " symbols";
    if (noise_sigma > 0) {  // the same scene drowned in sensor noise (tens of thousands of regions)
      std::mt19937 rng(3);
      std::normal_distribution<double> n(0, noise_sigma);
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
          s.image(x, y) = static_cast<std::uint8_t>(std::clamp(std::lround(s.image(x, y) + n(rng)), 0L, 255L));
      char sigma[16];
      std::snprintf(sigma, sizeof sigma, "%g", noise_sigma);
      name += " + noise sigma " + std::string(sigma);
    }
    frames.push_back({name, std::move(s.image), placed});
  };
  scene(640, 480, 8, 60, 100, 0);
  scene(640, 480, 8, 60, 100, 24);
  // Light noise: 3 094 regions, the most a 640x480 frame has before its region count outgrows the
  // segmenter's starting capacity (4 800), so the slowest frame of the one-block finishing.
  scene(640, 480, 8, 60, 100, 3.5);
  if (!quick) scene(1920, 1080, 30, 90, 160, 0);
  scene(3840, 2160, 100, 100, 180, 0);
  if (!quick) scene(3840, 2160, 100, 100, 180, 24);
  return frames;
}

}  // namespace

int main(int argc, char** argv) {
  const auto args = bench::Args::parse(argc, argv);
  bench::Report report(args.out);
  const bool gpu = cuda::device_count() > 0;
  if (gpu) report.set_gpu_description(cuda::devices().front().name);
  else std::printf("bench_pipeline: %s; CPU backend only\n", cuda::unavailable_reason().c_str());

  const auto frames = make_frames(args);
  if (!args.save_frames.empty()) {
    std::filesystem::create_directories(args.save_frames);
    for (std::size_t i = 0; i < frames.size(); ++i)
      write_image(args.save_frames + "/frame_" + std::to_string(i) + "_" + std::to_string(frames[i].image.width()) + "x" +
                      std::to_string(frames[i].image.height()) + ".pgm",
                  frames[i].image.view());
  }

  bench::Options o;
  o.min_runs = args.quick ? 20 : 200;
  o.warmup = 5;
  // Two configurations: symbols and root candidates only, and with fingers, blobs and object blobs
  // as well. On the CUDA backend everything runs on the device and only the results come back.
  struct Variant {
    const char* name;
    int finger_size;
    bool graph;  // CUDA: device stages as one CUDA graph (the default), or launched one by one
    int half_window = 0;  // Bernsen window half-size h; 0 = the default
    bool second_look = true;  // the host's second look at candidates that did not decode
  };
  // The h = 16 row (640x480 only) measures what a larger Bernsen window costs end to end: it finds
  // more of the blurred symbols (docs/benchmarks/detect.md).
  const Variant variants[] = {{"detect end to end (symbols, results only)", 0, true},
                              {"detect end to end (symbols, results only, no graph)", 0, false},
                              {"detect end to end (symbols + fingers + blobs)", 18, true},
                              {"detect end to end (symbols, results only, Bernsen h=16)", 0, true, 16},
                              {"detect end to end (symbols, results only, no second look)", 0, true, 0, false}};
  for (const Frame& f : frames) {
#ifdef GPUVIS_BENCH_CUDA
    // The frame waits in pinned memory, as a camera driver's ring buffer would hold it (without a
    // GPU there is no pinned memory to allocate).
    cuda::PinnedImage<std::uint8_t> pinned;
    if (gpu) {
      pinned = cuda::PinnedImage<std::uint8_t>(f.image.width(), f.image.height());
      copy<std::uint8_t>(f.image.view(), pinned.view());
    }
#endif
    for (Backend backend : {Backend::cuda, Backend::cpu}) {
      if (backend == Backend::cuda && !gpu) continue;
      const std::string bname = backend == Backend::cuda ? "cuda" : "cpu";
      if (!args.wants(bname) && !args.wants(f.name)) continue;
      HostView<const std::uint8_t> frame = f.image.view();
#ifdef GPUVIS_BENCH_CUDA
      if (backend == Backend::cuda) frame = pinned.view();
#endif
      // The CPU backend takes up to a few hundred ms on a noisy 4K frame: fewer runs there.
      bench::Options runs = o;
      if (backend == Backend::cpu && f.image.width() > 1000) runs.min_runs = std::min(o.min_runs, 20);
      for (const Variant& v : variants) {
        if (backend == Backend::cpu && !v.graph) continue;
        if ((v.half_window || !v.second_look) && f.image.width() != 640) continue;
        setenv("GPUVIS_CUDA_GRAPH", v.graph ? "1" : "0", 1);  // read when the detector is made
        pipeline::DetectorParams config;
        config.backend = backend;
        config.fingers.size = v.finger_size;
        config.second_look.enabled = v.second_look;
        if (v.half_window) config.threshold.bernsen.half_window = v.half_window;
        if (v.finger_size) {  // blobs of 4..60 px, and the object blobs (every symbol's root as a blob)
          config.blobs.min_size = 4;
          config.blobs.max_size = 60;
          config.blobs.object_blobs = true;
        }
        pipeline::Detector det(config);
        std::vector<double> th, sg, dc, bl, dev;
        int regions = 0, ids = 0;
        const auto total = bench::measure([&] { return bench::time_us([&] { det.detect(frame); }); }, runs);
        if (backend == Backend::cuda && v.graph) {
          // A stream of frames with two in flight: each frame is submitted before the previous one
          // is received, so its upload and device work overlap the previous frame's. Time
          // per frame over batches of 32 (the pipeline fills and drains once per batch).
          constexpr int kBatch = 32;
          bench::Options batches = runs;
          batches.min_runs = std::max(10, runs.min_runs / 8);
          const auto piped = bench::measure(
              [&] {
                return bench::time_us([&] {
                         for (int i = 0; i < kBatch; ++i) {
                           det.submit(frame);
                           if (det.in_flight() == pipeline::Detector::kMaxInFlight) det.receive();
                         }
                         while (det.in_flight() > 0) det.receive();
                       }) /
                       kBatch;
              },
              batches);
          const auto& d = det.detect(frame);
          const std::map<std::string, std::string> pparams{{"frame", f.name}, {"regions", std::to_string(d.regions)}};
          report.add({"pipeline", std::string(v.name) + ", 2 frames in flight", "cuda",
                      "pinned host frame -> host results, transfers included; time per frame of a stream (throughput)",
                      f.image.width(), f.image.height(), pparams, piped});
        }
        // Per-stage medians from a separate series (the stages time themselves; on CUDA receive()
        // then also waits for each frame's last event, which the end-to-end series above does not).
        det.set_device_times(true);
        for (int i = 0; i < runs.min_runs; ++i) {
          const auto& d = det.detect(frame);
          th.push_back(d.times.threshold_us);
          sg.push_back(d.times.segment_us);
          dc.push_back(d.times.decode_us);
          bl.push_back(d.times.blobs_us);
          dev.push_back(d.times.device_us);
          regions = d.regions;
          ids = static_cast<int>(std::count_if(d.fiducials.begin(), d.fiducials.end(), [](auto& x) { return x.id >= 0; }));
        }
        const std::map<std::string, std::string> params{
            {"frame", f.name}, {"regions", std::to_string(regions)}, {"ids", std::to_string(ids)}};
        const std::string be =
            backend == Backend::cuda ? "cuda" : "cpu (" + std::to_string(num_threads()) + " threads)";
        const bool cuda_be = backend == Backend::cuda;
        report.add({"pipeline", v.name, be,
                    cuda_be ? "pinned host frame -> host results, transfers included" : "host frame -> host results",
                    f.image.width(), f.image.height(), params, total});
        if (v.half_window || !v.second_look) continue;  // its stage times are the default's
        // Stage times: the CPU backend's host stages; on CUDA the GPU time of the whole frame and,
        // without the graph, of each stage.
        const auto stage = [&](const std::string& name, const char* scope, const std::vector<double>& times) {
          report.add({"pipeline", name, be, scope, f.image.width(), f.image.height(), params, bench::summarize(times)});
        };
        if (!cuda_be && !v.finger_size) {
          stage("threshold", "host", th);
          stage("segment", "host", sg);
          stage("decode", "host", dc);
        } else if (cuda_be && !v.graph) {
          stage("no graph: device frame", "upload to results copied back (GPU events)", dev);
          stage("no graph: threshold", "upload + kernels (GPU events)", th);
          stage("no graph: segment", "device segmentation (GPU events)", sg);
          stage("no graph: decode", "device decoding + results download (GPU events)", dc);
        } else if (cuda_be && !v.finger_size) {
          stage("graph: device frame", "upload to results copied back (GPU events)", dev);
        }
        if (v.finger_size && !cuda_be)
          report.add({"pipeline", "with fingers: fingers+blobs", be, "host", f.image.width(), f.image.height(), params,
                      bench::summarize(bl)});
        if (v.finger_size && cuda_be) stage("fingers + blobs: device frame", "upload to results copied back (GPU events)", dev);
      }
    }
  }
#ifdef GPUVIS_BENCH_CUDA
  // The device segmentation alone, per stage (GPU events), on a binary frame already on the device.
  if (gpu && args.wants("segment")) {
    cuda::Stream stream;
    segment::cuda_impl::Segmenter segmenter;
    threshold::cuda_impl::Workspace ws;
    for (const Frame& f : frames) {
      cuda::DeviceImage<std::uint8_t> grey(f.image.width(), f.image.height()), bin(f.image.width(), f.image.height());
      cuda::upload<std::uint8_t>(f.image.view(), grey.view(), stream);
      threshold::cuda_impl::threshold(grey.view(), bin.view(), pipeline::DetectorParams::default_threshold(), ws, stream);
      std::vector<double> stages[4];
      cuda::Event start, stop;
      const auto total = bench::measure(
          [&] {
            start.record(stream);
            segmenter.segment(bin.view(), 19, stream);
            stop.record(stream);
            const auto st = segmenter.stage_times();
            stages[0].push_back(st.labels_us);
            stages[1].push_back(st.numbering_us);
            stages[2].push_back(st.regions_us);
            stages[3].push_back(st.finishing_us);
            return 1000.0 * cuda::Event::elapsed_ms(start, stop);
          },
          o);
      const std::map<std::string, std::string> params{{"frame", f.name},
                                                      {"regions", std::to_string(segmenter.tree().regions)}};
      report.add({"pipeline", "segment (device only)", "cuda", "GPU events, binary frame on the device, no download",
                  f.image.width(), f.image.height(), params, total});
      const char* names[4] = {"segment: labels", "segment: numbering", "segment: runs, stats, neighbour sets",
                              "segment: flags, forest, lists"};
      for (int k = 0; k < 4; ++k)
        report.add({"pipeline", names[k], "cuda", "GPU events", f.image.width(), f.image.height(), params,
                    bench::summarize(stages[k])});
    }
  }
#endif
  return 0;
}

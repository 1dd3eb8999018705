// Threshold benchmarks: CPU (all threads and one thread, plus the naive O(h^2) loop for scale, and
// OpenCV's dilate/erode Bernsen on the same frames and threads when OpenCV is found) and
// CUDA (kernel only, and end to end from pinned host memory through upload, kernels and download,
// launched directly and as a CUDA graph), and OpenCL's Bernsen end to end (the device --backend
// opencl chooses). Frames are the bundled table sample tiled up to size.
#include <cstdio>

#include "gpuvis/core/parallel.hpp"
#include "gpuvis/io/image_file.hpp"
#include "gpuvis/opencl/devices.hpp"
#include "opencl/context.hpp"
#include "gpuvis/threshold/threshold.hpp"
#include "threshold/cpu/threshold_cpu.hpp"
#include "harness.hpp"
#ifdef GPUVIS_BENCH_OPENCV
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#endif
#ifdef GPUVIS_BENCH_CUDA
#include "cuda/graph.hpp"
#include "cuda/memory.hpp"
#include "gpuvis/cuda/runtime.hpp"
#include "threshold/cuda/threshold_cuda.hpp"
#endif

using namespace gpuvis;
using namespace gpuvis::threshold;

namespace {

Image<std::uint8_t> frame(int w, int h) {
  static const Image<std::uint8_t> sample = read_grey8(std::string(GPUVIS_SOURCE_DIR) + "/data/samples/table.pgm");
  Image<std::uint8_t> out(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      // Mirror-tile so there are no seams.
      const int tx = (x / sample.width()) % 2 ? sample.width() - 1 - x % sample.width() : x % sample.width();
      const int ty = (y / sample.height()) % 2 ? sample.height() - 1 - y % sample.height() : y % sample.height();
      out(x, y) = sample(tx, ty);
    }
  return out;
}

struct Case {
  std::string name;
  Params params;
  std::map<std::string, std::string> labels;
};

std::vector<Case> cases() {
  std::vector<Case> c;
  for (int h : {6, 12, 32}) {
    Params p;
    p.bernsen.half_window = h;
    c.push_back({"bernsen", p, {{"h", std::to_string(h)}}});
  }
  Params t;
  t.method = Method::tiled;
  c.push_back({"tiled", t, {{"tile", "16"}, {"gradient", "16"}}});
  Params b;
  b.method = Method::bradley_roth;
  c.push_back({"bradley-roth", b, {{"r", "16"}, {"bias", "0.16"}}});
  return c;
}

#ifdef GPUVIS_BENCH_OPENCV
// Bernsen as OpenCV users build it: the window's max and min by dilate and erode with a square
// element (OpenCV's default border leaves pixels outside the image out, as gpuvis's truncated
// window does), then docs/thresholds.md's rule with whole-image operations. Gives gpuvis's output
// byte for byte (checked below).
struct OpenCvBernsen {
  cv::Mat mx, mn, range, half, t, low, low_white, out;
  cv::Mat halve = [] {
    cv::Mat lut(1, 256, CV_8U);
    for (int i = 0; i < 256; ++i) lut.at<std::uint8_t>(i) = static_cast<std::uint8_t>(i / 2);
    return lut;
  }();
  void operator()(const cv::Mat& src, int h, int gate) {
    const cv::Mat element = cv::getStructuringElement(cv::MORPH_RECT, cv::Size(2 * h + 1, 2 * h + 1));
    cv::dilate(src, mx, element);
    cv::erode(src, mn, element);
    cv::subtract(mx, mn, range);
    cv::LUT(range, halve, half);  // floor((max - min) / 2)
    cv::add(mn, half, t);         // floor((max + min) / 2)
    cv::compare(src, t, out, cv::CMP_GT);
    cv::compare(range, gate, low, cv::CMP_LT);
    cv::compare(t, 127, low_white, cv::CMP_GE);
    low_white.copyTo(out, low);
  }
};
#endif

#ifdef GPUVIS_BENCH_CUDA
// Runs `work` once, so workspaces grow and kernel attributes are set outside the capture, then
// captures it into `graph`.
template <class Work>
void capture_warm(cuda::Graph& graph, cuda::Stream& stream, const char* what, Work&& work) {
  work();
  stream.synchronize();
  require(graph.capture(stream, work), std::string("bench_threshold: could not capture ") + what + " as a CUDA graph");
}
#endif

}  // namespace

int main(int argc, char** argv) {
  const auto args = bench::Args::parse(argc, argv);
  bench::Report report(args.out);
  std::vector<std::pair<int, int>> sizes = {{640, 480}, {1280, 720}, {1920, 1080}, {3840, 2160}};
  if (args.quick) sizes = {{640, 480}, {1920, 1080}};
  if (args.width > 0) sizes = {{args.width, args.height}};
  bench::Options host_opts;
  host_opts.min_runs = args.quick ? 5 : 20;
  host_opts.min_seconds = args.quick ? 0.1 : 0.5;

  // CPU, all threads and one thread.
  for (auto [w, h] : sizes) {
    const auto src = frame(w, h);
    Image<std::uint8_t> dst(w, h);
    for (const auto& c : cases()) {
      if (!args.wants("cpu")) break;
      for (int threads : {0, 1}) {
        if (threads == 1 && w != 640) continue;
        set_num_threads(threads);
        bench::Record r{"threshold", c.name, threads == 1 ? "cpu-1thread" : "cpu", "host", w, h, c.labels, {}};
        r.stats = bench::measure([&] { return bench::time_us([&] { threshold_cpu(src.view(), dst.view(), c.params); }); }, host_opts);
        report.add(r);
      }
    }
#ifdef GPUVIS_BENCH_OPENCV
    if (args.wants("cpu")) {  // the same frames through OpenCV on the same threads
      cv::setNumThreads(num_threads());
      const cv::Mat in(h, w, CV_8U, const_cast<std::uint8_t*>(src.data()), static_cast<std::size_t>(src.stride()));
      OpenCvBernsen cv_bernsen;
      for (int half : {6, 12, 32}) {
        Params p;
        p.bernsen.half_window = half;
        threshold_cpu(src.view(), dst.view(), p);
        cv_bernsen(in, half, p.bernsen.gate);
        const HostView<const std::uint8_t> theirs{cv_bernsen.out.ptr<std::uint8_t>(), w, h, 1, static_cast<std::ptrdiff_t>(cv_bernsen.out.step)};
        const std::size_t differ = count_differences<std::uint8_t>(HostView<const std::uint8_t>(dst.view()), theirs);
        bench::Record r{"threshold", "bernsen", "opencv-cpu", "host (dilate, erode and whole-image ops)", w, h,
                        {{"h", std::to_string(half)}, {"pixels differing from gpuvis", std::to_string(differ)}}, {}};
        r.stats = bench::measure([&] { return bench::time_us([&] { cv_bernsen(in, half, p.bernsen.gate); }); }, host_opts);
        report.add(r);
      }
    }
#endif
    if (w == 640 && args.wants("cpu")) {
      Params p;
      p.bernsen.half_window = 12;
      bench::Options naive_opts;
      naive_opts.warmup = 1;
      naive_opts.min_runs = 3;
      naive_opts.min_seconds = 0;
      bench::Record r{"threshold", "bernsen-naive", "cpu-1thread", "host", w, h, {{"h", "12"}}, {}};
      r.stats = bench::measure([&] { return bench::time_us([&] { bernsen_naive(src.view(), dst.view(), p.bernsen); }); }, naive_opts);
      report.add(r);
    }
  }
  set_num_threads(0);

  // OpenCL: each method from host to host (upload, kernels, download; the program built and cached
  // by a call before the timing): Bernsen at h 6, 12 and 16 (the detector's), tiled and
  // Bradley-Roth as the other cases.
  if (args.wants("opencl") && !opencl::devices().empty()) {
    const std::string device = opencl::chosen_device().name;
    std::vector<Case> opencl_cases;
    for (int half : {6, 12, 16}) {
      Params p;
      p.bernsen.half_window = half;
      opencl_cases.push_back({"bernsen", p, {{"h", std::to_string(half)}}});
    }
    for (const Case& c : cases())
      if (c.params.method != Method::bernsen) opencl_cases.push_back(c);
    for (auto [w, h] : sizes) {
      const auto src = frame(w, h);
      Image<std::uint8_t> dst(w, h);
      for (Case c : opencl_cases) {
        c.params.backend = Backend::opencl;
        auto t = make_thresholder(c.params);
        t->apply(src.view(), dst.view());
        c.labels["device"] = device;
        bench::Record r{"threshold", c.name, "opencl", "end-to-end (upload+kernel+download)", w, h, c.labels, {}};
        r.stats = bench::measure([&] { return bench::time_us([&] { t->apply(src.view(), dst.view()); }); }, host_opts);
        report.add(r);
        r.scope = "kernel";  // the same calls' kernels alone, from the device's time stamps
        r.stats = bench::measure(
            [&] {
              opencl::KernelTimer timer;
              t->apply(src.view(), dst.view());
              return timer.take_microseconds();
            },
            host_opts);
        report.add(r);
      }
    }
  }

#ifdef GPUVIS_BENCH_CUDA
  if (cuda::device_count() == 0 || !args.wants("cuda")) {
    std::fprintf(stderr, "CUDA benchmarks skipped: %s\n", cuda::unavailable_reason().c_str());
    return 0;
  }
  report.set_gpu_description(cuda::devices()[0].name);
  bench::Options gpu_opts;
  gpu_opts.min_runs = args.quick ? 10 : 50;
  gpu_opts.min_seconds = args.quick ? 0.05 : 0.3;
  cuda::Stream stream;
  cuda::Event e0, e1;
  cuda_impl::Workspace ws;
  for (auto [w, h] : sizes) {
    const auto src = frame(w, h);
    cuda::PinnedImage<std::uint8_t> pin_in(w, h), pin_out(w, h);
    copy<std::uint8_t>(src.view(), pin_in.view());
    cuda::DeviceImage<std::uint8_t> d_src(w, h), d_dst(w, h);
    cuda::upload<std::uint8_t>(pin_in.view(), d_src.view(), stream);
    for (const auto& c : cases()) {
      // Kernel time: a batch of launches between two events, divided by the batch size. On small
      // frames the host's launch rate can be the limit; the graph row below is the GPU's own time.
      constexpr int kBatch = 20;
      bench::Record k{"threshold", c.name, "cuda", "kernel", w, h, c.labels, {}};
      k.stats = bench::measure(
          [&] {
            e0.record(stream);
            for (int i = 0; i < kBatch; ++i) cuda_impl::threshold(d_src.view(), d_dst.view(), c.params, ws, stream);
            e1.record(stream);
            return 1000.0 * cuda::Event::elapsed_ms(e0, e1) / kBatch;
          },
          gpu_opts);
      report.add(k);
      // The same batch captured as one CUDA graph: the GPU's own time, without the host's launch
      // rate (about 3 us per launch on the GPU machine, close to a small frame's kernel time).
      {
        cuda::Graph batch;
        capture_warm(batch, stream, "the kernel batch", [&] {
          for (int i = 0; i < kBatch; ++i) cuda_impl::threshold(d_src.view(), d_dst.view(), c.params, ws, stream);
        });
        bench::Record kg{"threshold", c.name, "cuda-graph", "kernel", w, h, c.labels, {}};
        kg.stats = bench::measure(
            [&] {
              e0.record(stream);
              batch.launch(stream);
              e1.record(stream);
              return 1000.0 * cuda::Event::elapsed_ms(e0, e1) / kBatch;
            },
            gpu_opts);
        report.add(kg);
      }
      // End to end: pinned host frame -> device -> threshold -> pinned host result, wall clock.
      auto round_trip = [&] {
        cuda::upload<std::uint8_t>(pin_in.view(), d_src.view(), stream);
        cuda_impl::threshold(d_src.view(), d_dst.view(), c.params, ws, stream);
        cuda::download<std::uint8_t>(d_dst.view(), pin_out.view(), stream);
      };
      bench::Record e{"threshold", c.name, "cuda", "end-to-end (upload+kernel+download)", w, h, c.labels, {}};
      e.stats = bench::measure([&] { return bench::time_us([&] { round_trip(); stream.synchronize(); }); }, gpu_opts);
      report.add(e);
      // The same round trip captured once as a CUDA graph and replayed.
      cuda::Graph trip;
      capture_warm(trip, stream, "the round trip", round_trip);
      bench::Record g{"threshold", c.name, "cuda-graph", "end-to-end (upload+kernel+download)", w, h, c.labels, {}};
      g.stats = bench::measure(
          [&] { return bench::time_us([&] { trip.launch(stream); stream.synchronize(); }); },
          gpu_opts);
      report.add(g);
      // threshold_pinned: what the Thresholder runs, and each way of moving the frame explicitly.
      using cuda_impl::PinnedTransfer;
      for (auto [transfer, backend] : {std::pair{PinnedTransfer::automatic, "cuda-pinned"}, std::pair{PinnedTransfer::write_mapped, "cuda-write-mapped"},
                                       std::pair{PinnedTransfer::mapped, "cuda-mapped"}}) {
        if (transfer != PinnedTransfer::automatic && c.name != "bernsen") continue;
        bench::Record m{"threshold", c.name, backend, "end-to-end (upload+kernel+download)", w, h, c.labels, {}};
        m.stats = bench::measure(
            [&] {
              return bench::time_us([&] {
                cuda_impl::threshold_pinned(pin_in.view(), pin_out.view(), c.params, ws, stream, transfer);
                stream.synchronize();
              });
            },
            gpu_opts);
        report.add(m);
      }
      // threshold_pinned (automatic choice) captured once as a CUDA graph and replayed: what a
      // caller with fixed pinned buffers can reach (one graph launch instead of the host's calls).
      {
        cuda::Graph replay;
        capture_warm(replay, stream, "threshold_pinned",
                     [&] { cuda_impl::threshold_pinned(pin_in.view(), pin_out.view(), c.params, ws, stream); });
        bench::Record m{"threshold", c.name, "cuda-pinned-graph", "end-to-end (upload+kernel+download)", w, h, c.labels, {}};
        m.stats = bench::measure([&] { return bench::time_us([&] { replay.launch(stream); stream.synchronize(); }); }, gpu_opts);
        report.add(m);
      }
    }
  }
#endif
  return 0;
}

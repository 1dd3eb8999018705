// Filter benchmarks at 3840x2160 (and 1920x1080). CPU (all threads), beside OpenCV's CPU versions
// when built with OpenCV: 7x7 2D convolution on u8 and f32 with 1 and 3 channels, the separable
// 13-tap Gaussian on f32 grey and u8 RGB, bilateral radius 3 on u8 grey and RGB. CUDA: 7x7 and the
// Gaussian on f32, bilateral on RGB u8, kernels (device-level entry, CUDA events, no transfers) and
// from host to host (and the Gaussian on u8 RGB from host to host); the same host calls with
// Backend::automatic, which runs each on the faster backend it timed. OpenCL (the chosen device, docs/opencl.md): the 7x7 and the Gaussian on f32
// grey and the 7x7 on u8 RGB, from host to host.
#include <functional>
#include <random>
#include <type_traits>

#include "gpuvis/core/parallel.hpp"
#include "gpuvis/filters/bilateral.hpp"
#include "gpuvis/filters/convolve.hpp"
#include "gpuvis/opencl/devices.hpp"
#include "opencl/context.hpp"
#include "filters/cpu/row_kernels.hpp"
#include "filters/auto_backend.hpp"
#include "filters/filter_backends.hpp"
#include "harness.hpp"
#ifdef GPUVIS_BENCH_CUDA
#include <cuda_runtime.h>

#include "core/streaming_copy.hpp"
#include "gpuvis/cuda/runtime.hpp"
#include "filters/cuda/filters_cuda.hpp"
#endif
#ifdef GPUVIS_BENCH_OPENCV
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#endif

using namespace gpuvis;
using namespace gpuvis::filters;

namespace {
template <class T>
Image<T> random_typed(int w, int h, int c, std::uint32_t seed) {
  Image<T> img(w, h, c);
  std::mt19937 rng(seed);
  for (int y = 0; y < h; ++y)
    for (int i = 0; i < w * c; ++i) img.row(y)[i] = static_cast<T>(static_cast<float>(rng() % (std::is_same_v<T, float> ? 1000 : 256)));
  return img;
}
Kernel random_7x7() {
  Kernel k{7, 7, {}};
  std::mt19937 rng(5);
  for (int i = 0; i < 49; ++i) k.weights.push_back(std::uniform_real_distribution<float>(-1, 1)(rng));
  return k;
}

std::string type_name(bool is_float, int channels) { return std::string(is_float ? "f32x" : "u8x") + std::to_string(channels); }

// One CPU case for gpuvis and, when built with it, for OpenCV on the same image and thread count.
template <class T>
void cpu_case(bench::Report& report, const std::string& name, int w, int h, int channels, std::map<std::string, std::string> params,
              const bench::Options& o, const std::function<void(const Image<T>&, Image<T>&)>& ours,
              [[maybe_unused]] const std::function<void(const Image<T>&, Image<T>&)>& opencv) {
  const auto src = random_typed<T>(w, h, channels, 1);
  Image<T> out(w, h, channels);
  params["type"] = type_name(std::is_same_v<T, float>, channels);
  bench::Record r{"filters", name, "cpu", "host", w, h, params, {}};
  r.stats = bench::measure([&] { return bench::time_us([&] { ours(src, out); }); }, o);
  report.add(r);
#ifdef GPUVIS_BENCH_OPENCV
  if (!opencv) return;
  r.backend = "opencv-cpu";
  r.params.erase("sums");  // gpuvis's choice of sums, not OpenCV's
  r.stats = bench::measure([&] { return bench::time_us([&] { opencv(src, out); }); }, o);
  report.add(r);
#endif
}

#ifdef GPUVIS_BENCH_OPENCV
// A cv::Mat over a gpuvis image's pixels (no copy).
template <class T>
cv::Mat as_mat(const Image<T>& img) {
  const int depth = std::is_same_v<T, float> ? CV_32F : CV_8U;
  return cv::Mat(img.height(), img.width(), CV_MAKETYPE(depth, img.channels()), const_cast<T*>(img.data()),
                 static_cast<std::size_t>(img.stride()));
}
#endif

// The CPU cases: 2D convolution u8/f32 with 1 and 3 channels, the separable Gaussian f32 and u8 RGB,
// bilateral grey and colour. OpenCV writes into its own Mat (as its users get it).
void cpu_cases(bench::Report& report, int w, int h, const Kernel& k7, const Kernel& gauss, const BilateralParams& bp, const bench::Options& o) {
#ifdef GPUVIS_BENCH_OPENCV
  cv::setNumThreads(num_threads());
  cv::Mat km(7, 7, CV_32F, const_cast<float*>(k7.weights.data())), dst;
  const auto sep = separate(gauss);
  auto cv_conv = [&](const auto& src, auto&) { cv::filter2D(as_mat(src), dst, -1, km); };
  auto cv_sep = [&](const auto& src, auto&) { cv::sepFilter2D(as_mat(src), dst, -1, cv::Mat(sep.row), cv::Mat(sep.column)); };
  auto cv_bilateral = [&](const auto& src, auto&) {
    cv::bilateralFilter(as_mat(src), dst, 2 * bp.radius + 1, bp.sigma_range, bp.sigma_space);
  };
#else
  auto cv_conv = [](const auto&, auto&) {};
  auto cv_sep = cv_conv, cv_bilateral = cv_conv;
#endif
  const std::map<std::string, std::string> p7{{"kernel", "7x7"}}, pg{{"kernel", "gaussian 13 taps"}},
      pb{{"radius", std::to_string(bp.radius)}};
  // 8-bit grey weights looked up or computed: whichever this CPU does faster (row_kernels_hwy.cpp).
  std::map<std::string, std::string> pb_grey = pb;
  pb_grey["weights"] = cpu_rows::bilateral_lookup_name();
  using U8 = Image<std::uint8_t>;
  using F32 = Image<float>;
  for (int c : {1, 3}) {
    cpu_case<float>(report, "conv2d", w, h, c, p7, o, [&](const F32& s, F32& d) { convolve_cpu<float>(s.view(), d.view(), k7); }, cv_conv);
    cpu_case<std::uint8_t>(report, "conv2d", w, h, c, p7, o,
                           [&](const U8& s, U8& d) { convolve_cpu<std::uint8_t>(s.view(), d.view(), k7); }, cv_conv);
  }
  cpu_case<float>(report, "separable", w, h, 1, pg, o, [&](const F32& s, F32& d) { convolve_cpu<float>(s.view(), d.view(), gauss); }, cv_sep);
  // 8-bit: in fixed point (the default, ConvolveParams::fixed_point), and with float sums beside it.
  std::map<std::string, std::string> pg_fixed = pg, pg_float = pg;
  pg_fixed["sums"] = "fixed point";
  pg_float["sums"] = "float";
  ConvolveParams float_sums;
  float_sums.fixed_point = false;
  cpu_case<std::uint8_t>(report, "separable", w, h, 3, pg_fixed, o,
                         [&](const U8& s, U8& d) { convolve_cpu<std::uint8_t>(s.view(), d.view(), gauss); }, cv_sep);
  cpu_case<std::uint8_t>(report, "separable", w, h, 3, pg_float, o,
                         [&](const U8& s, U8& d) { convolve_cpu<std::uint8_t>(s.view(), d.view(), gauss, float_sums); }, nullptr);
  for (int c : {1, 3})
    cpu_case<std::uint8_t>(report, "bilateral", w, h, c, c == 1 ? pb_grey : pb, o,
                           [&](const U8& s, U8& d) { bilateral_cpu<std::uint8_t>(s.view(), d.view(), bp); }, cv_bilateral);
}
// OpenCL from host to host (upload, kernels, download: transfers included; the program is built
// and cached by a call before the timing), on the device --backend opencl chooses; and the same
// calls' kernels alone, from the device's time stamps.
void opencl_cases(bench::Report& report, int w, int h, const Kernel& k7, const Kernel& gauss, BilateralParams bp, const bench::Options& o) {
  if (opencl::devices().empty()) return;
  const std::string device = opencl::chosen_device().name;
  ConvolveParams co;
  co.backend = Backend::opencl;
  const auto f1 = random_typed<float>(w, h, 1, 1);
  const auto rgb = random_typed<std::uint8_t>(w, h, 3, 2);
  Image<float> fo(w, h, 1);
  Image<std::uint8_t> ro(w, h, 3);
  const char* scope = "end-to-end (host to host, incl. transfers)";
  // `shape` names the filter's size as the CPU and CUDA rows do: {"kernel", "7x7"}, {"radius", "3"}.
  auto add = [&](const char* name, std::pair<const char*, const char*> shape, const char* type, auto&& run) {
    run();  // builds the program
    bench::Record r{"filters", name, "opencl", scope, w, h, {{shape.first, shape.second}, {"type", type}, {"device", device}}, {}};
    r.stats = bench::measure([&] { return bench::time_us(run); }, o);
    report.add(r);
    // The kernels alone: the device's time stamps of the call's kernels (opencl::KernelTimer).
    r.scope = "kernel";
    r.stats = bench::measure(
        [&] {
          opencl::KernelTimer timer;
          run();
          return timer.take_microseconds();
        },
        o);
    report.add(r);
  };
  add("conv2d", {"kernel", "7x7"}, "f32x1", [&] { convolve<float>(f1.view(), fo.view(), k7, co); });
  add("separable", {"kernel", "gaussian 13 taps"}, "f32x1", [&] { convolve<float>(f1.view(), fo.view(), gauss, co); });
  add("conv2d", {"kernel", "7x7"}, "u8x3", [&] { convolve<std::uint8_t>(rgb.view(), ro.view(), k7, co); });
  bp.backend = Backend::opencl;
  add("bilateral", {"radius", "3"}, "u8x3", [&] { bilateral<std::uint8_t>(rgb.view(), ro.view(), bp); });
}
}  // namespace

int main(int argc, char** argv) {
  const auto args = bench::Args::parse(argc, argv);
  bench::Report report(args.out);
  std::vector<std::pair<int, int>> sizes = {{1920, 1080}, {3840, 2160}};
  if (args.width > 0) sizes = {{args.width, args.height}};
  bench::Options o;
  o.min_runs = args.quick ? 5 : 20;
  o.min_seconds = args.quick ? 0.2 : 1.0;
  const Kernel k7 = random_7x7(), gauss = parse_kernel("gaussian:sigma=2");  // 13 taps
  BilateralParams bp;  // radius 3, sigma_space 3, sigma_range 30
  for (auto [w, h] : sizes) {
    if (args.wants("cpu")) cpu_cases(report, w, h, k7, gauss, bp, o);
    if (args.wants("opencl")) opencl_cases(report, w, h, k7, gauss, bp, o);
#ifdef GPUVIS_BENCH_CUDA
    if (!args.wants("cuda") || cuda::device_count() == 0) continue;
    report.set_gpu_description(cuda::devices()[0].name);
    const auto f1 = random_typed<float>(w, h, 1, 1);
    const auto rgb = random_typed<std::uint8_t>(w, h, 3, 2);
    Image<float> fo(w, h, 1);
    Image<std::uint8_t> ro(w, h, 3);
    const std::map<std::string, std::string> p7{{"kernel", "7x7"}, {"type", "f32x1"}}, pg{{"kernel", "gaussian 13 taps"}, {"type", "f32x1"}},
        pb{{"radius", "3"}, {"type", "u8x3"}};
    cuda::Stream s;
    cuda::Event e0, e1;
    cuda::DeviceImage<float> df(w, h, 1), dfo(w, h, 1);
    cuda::DeviceImage<std::uint8_t> dr(w, h, 3), dro(w, h, 3);
    cuda::DeviceBuffer ws;
    cuda::upload<float>(f1.view(), df.view(), s);
    cuda::upload<std::uint8_t>(rgb.view(), dr.view(), s);
    bench::Options g = o;
    g.min_runs = args.quick ? 10 : 50;
    g.min_seconds = args.quick ? 0.1 : 0.5;
    auto timed = [&](auto&& launch) {
      return bench::measure(
          [&] {
            constexpr int batch = 10;
            e0.record(s);
            for (int i = 0; i < batch; ++i) launch();
            e1.record(s);
            return 1000.0 * cuda::Event::elapsed_ms(e0, e1) / batch;
          },
          g);
    };
    ConvolveParams co;
    bench::Record r{"filters", "conv2d", "cuda", "kernel", w, h, p7, {}};
    r.stats = timed([&] { cuda_impl::convolve<float>(df.view(), dfo.view(), k7, co, ws, s); });
    report.add(r);
    r = {"filters", "separable", "cuda", "kernel", w, h, pg, {}};
    r.stats = timed([&] { cuda_impl::convolve<float>(df.view(), dfo.view(), gauss, co, ws, s); });
    report.add(r);
    r = {"filters", "bilateral", "cuda", "kernel", w, h, pb, {}};
    r.stats = timed([&] { cuda_impl::bilateral<std::uint8_t>(dr.view(), dro.view(), bp, s); });
    report.add(r);
    r = {"filters", "conv2d", "cuda", "end-to-end (host to host, incl. transfers)", w, h, p7, {}};
    r.stats = bench::measure([&] { return bench::time_us([&] { convolve_cuda<float>(f1.view(), fo.view(), k7); }); }, o);
    report.add(r);
    r = {"filters", "separable", "cuda", "end-to-end (host to host, incl. transfers)", w, h, pg, {}};
    r.stats = bench::measure([&] { return bench::time_us([&] { convolve_cuda<float>(f1.view(), fo.view(), gauss); }); }, o);
    report.add(r);
    r = {"filters", "bilateral", "cuda", "end-to-end (host to host, incl. transfers)", w, h, pb, {}};
    r.stats = bench::measure([&] { return bench::time_us([&] { bilateral_cuda<std::uint8_t>(rgb.view(), ro.view(), bp); }); }, o);
    report.add(r);
    const std::map<std::string, std::string> pg_rgb{{"kernel", "gaussian 13 taps"}, {"type", "u8x3"}, {"sums", "fixed point"}};
    r = {"filters", "separable", "cuda", "end-to-end (host to host, incl. transfers)", w, h, pg_rgb, {}};
    r.stats = bench::measure([&] { return bench::time_us([&] { convolve_cuda<std::uint8_t>(rgb.view(), ro.view(), gauss); }); }, o);
    report.add(r);
    // Backend::automatic on the same pageable images (gpuvis/filters/auto_backend.hpp): its first
    // calls of a kind warm the GPU up and time the GPU and the CPU, then it runs the faster; "ran
    // on" names it.
    auto add_auto = [&](const char* name, std::map<std::string, std::string> params, auto&& run) {
      reset_auto_choices();
      for (long i = 0; i < detail::AutoBackend::kExploringCalls; ++i) run();
      const auto choices = auto_choices();
      if (choices.size() == 1) params["ran on"] = std::string(to_string(choices[0].chosen));
      bench::Record rec{"filters", name, "auto", "end-to-end (host to host, incl. transfers)", w, h, params, {}};
      rec.stats = bench::measure([&] { return bench::time_us(run); }, o);
      report.add(rec);
    };
    add_auto("conv2d", p7, [&] { convolve<float>(f1.view(), fo.view(), k7); });
    add_auto("separable", pg, [&] { convolve<float>(f1.view(), fo.view(), gauss); });
    add_auto("separable", pg_rgb, [&] { convolve<std::uint8_t>(rgb.view(), ro.view(), gauss); });
    add_auto("bilateral", pb, [&] { bilateral<std::uint8_t>(rgb.view(), ro.view(), bp); });
    // The same from and into page-locked host images (cuda::PinnedImage, as a camera driver or a
    // decoder writing into pinned buffers hands them over): no staging copies on the host.
    cuda::PinnedImage<float> pf(w, h, 1), pfo(w, h, 1);
    cuda::PinnedImage<std::uint8_t> prgb(w, h, 3), pro(w, h, 3);
    copy<float>(f1.view(), pf.view());
    copy<std::uint8_t>(rgb.view(), prgb.view());
    const char* pinned_scope = "end-to-end (page-locked host to host, incl. transfers)";
    r = {"filters", "conv2d", "cuda", pinned_scope, w, h, p7, {}};
    r.stats = bench::measure([&] { return bench::time_us([&] { convolve_cuda<float>(pf.view(), pfo.view(), k7); }); }, o);
    report.add(r);
    r = {"filters", "separable", "cuda", pinned_scope, w, h, pg, {}};
    r.stats = bench::measure([&] { return bench::time_us([&] { convolve_cuda<float>(pf.view(), pfo.view(), gauss); }); }, o);
    report.add(r);
    r = {"filters", "bilateral", "cuda", pinned_scope, w, h, pb, {}};
    r.stats = bench::measure([&] { return bench::time_us([&] { bilateral_cuda<std::uint8_t>(prgb.view(), pro.view(), bp); }); }, o);
    report.add(r);
    // The bus floor: the image up and the result down between page-locked memory and the device,
    // one after the other, no kernel (what end-to-end times are measured against).
    auto floor = [&](auto& host_in, auto& dev_in, auto& host_out, auto& dev_out) {
      return bench::measure(
          [&] {
            return bench::time_us([&] {
              using T = std::remove_cv_t<std::remove_reference_t<decltype(*host_in.view().data)>>;
              cuda::upload<T>(host_in.view(), dev_in.view(), s);
              cuda::download<T>(DeviceView<const T>(dev_out.view()), host_out.view(), s);
              s.synchronize();
            });
          },
          o);
    };
    auto add_floor = [&](const char* scope, const char* type, auto& host_in, auto& dev_in, auto& host_out, auto& dev_out) {
      bench::Record rec{"filters", "transfer floor", "cuda", scope, w, h, {{"type", type}}, {}};
      rec.stats = floor(host_in, dev_in, host_out, dev_out);
      report.add(rec);
    };
    const char* page_locked = "page-locked upload + download, no kernel";
    add_floor(page_locked, "f32x1", pf, df, pfo, dfo);
    add_floor(page_locked, "u8x3", prgb, dr, pro, dro);
    // The same from and into pageable images, as the CUDA runtime copies them (through its own
    // staging buffers): what a pageable call would cost with no kernel and no overlap of our own.
    const char* pageable = "pageable upload + download (CUDA runtime's staging), no kernel";
    add_floor(pageable, "f32x1", f1, df, fo, dfo);
    add_floor(pageable, "u8x3", rgb, dr, ro, dro);
    // What any pageable call must do on the host besides the bus: the image copied into pinned
    // staging (streaming stores) and the result out of it (ordinary stores, the staging lines then
    // released from the cores' caches), by all CPU threads as the strip pipeline does (no
    // transfer, no kernel, nothing overlapped; the four images stay in the host's cache where it
    // holds them, so this is a lower bound); and the alternative, pinning the caller's two images
    // in place for the call (cudaHostRegister, then cudaHostUnregister).
    auto add_host_rows = [&](const char* type, auto in, auto staged_in, auto staged_out, auto out) {
      auto copy_rows = [&](auto to, auto from, bool streaming) {
        parallel_for(0, h, 16, [&](std::ptrdiff_t a, std::ptrdiff_t b) {
          for (std::ptrdiff_t y = a; y < b; ++y) {
            const int row = static_cast<int>(y);
            if (streaming) copy_streaming(to.row(row), from.row(row), from.row_bytes());
            else copy_and_release_source(to.row(row), from.row(row), from.row_bytes());
          }
        });
      };
      bench::Record rec{"filters", "host staging copies", "cpu", "pageable image into pinned staging + result out, all threads, no transfer",
                        w, h, {{"type", type}}, {}};
      rec.stats = bench::measure([&] { return bench::time_us([&] { copy_rows(staged_in, in, true), copy_rows(out, staged_out, false); }); }, o);
      report.add(rec);
      const std::size_t bytes = static_cast<std::size_t>(in.stride) * h;
      auto pin = [&](const void* p) {
        void* q = const_cast<void*>(p);
        if (cudaHostRegister(q, bytes, cudaHostRegisterDefault) != cudaSuccess || cudaHostUnregister(q) != cudaSuccess)
          throw std::runtime_error("cudaHostRegister failed");
      };
      rec = {"filters", "pinning the caller's images", "cuda", "cudaHostRegister + cudaHostUnregister of input and output, no transfer",
             w, h, {{"type", type}}, {}};
      rec.stats = bench::measure([&] { return bench::time_us([&] { pin(in.data), pin(out.data); }); }, o);
      report.add(rec);
    };
    add_host_rows("f32x1", f1.view(), pf.view(), HostView<const float>(pfo.view()), fo.view());
    add_host_rows("u8x3", rgb.view(), prgb.view(), HostView<const std::uint8_t>(pro.view()), ro.view());
#endif
  }
  return 0;
}

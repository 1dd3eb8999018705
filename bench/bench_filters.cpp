// Filter benchmarks: 7x7 2D convolution and separable Gaussian on f32, bilateral radius 3 on RGB
// u8, at 3840x2160 (and 1920x1080): CPU (all threads), OpenCV's CPU versions when built with
// OpenCV, CUDA kernels (device-level entry, CUDA events, no transfers) and CUDA from host to host.
#include <random>

#include "gpuvis/core/parallel.hpp"
#include "gpuvis/filters/bilateral.hpp"
#include "gpuvis/filters/convolve.hpp"
#include "filters/filter_backends.hpp"
#include "harness.hpp"
#ifdef GPUVIS_BENCH_CUDA
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
    const auto f1 = random_typed<float>(w, h, 1, 1);
    const auto rgb = random_typed<std::uint8_t>(w, h, 3, 2);
    Image<float> fo(w, h, 1);
    Image<std::uint8_t> ro(w, h, 3);
    const std::map<std::string, std::string> p7{{"kernel", "7x7"}, {"type", "f32x1"}}, pg{{"kernel", "gaussian 13 taps"}, {"type", "f32x1"}},
        pb{{"radius", "3"}, {"type", "u8x3"}};
    if (args.wants("cpu")) {
      bench::Record r{"filters", "conv2d", "cpu", "host", w, h, p7, {}};
      r.stats = bench::measure([&] { return bench::time_us([&] { convolve_cpu<float>(f1.view(), fo.view(), k7); }); }, o);
      report.add(r);
      r = {"filters", "separable", "cpu", "host", w, h, pg, {}};
      r.stats = bench::measure([&] { return bench::time_us([&] { convolve_cpu<float>(f1.view(), fo.view(), gauss); }); }, o);
      report.add(r);
      r = {"filters", "bilateral", "cpu", "host", w, h, pb, {}};
      r.stats = bench::measure([&] { return bench::time_us([&] { bilateral_cpu<std::uint8_t>(rgb.view(), ro.view(), bp); }); }, o);
      report.add(r);
#ifdef GPUVIS_BENCH_OPENCV
      cv::setNumThreads(num_threads());
      cv::Mat fm(h, w, CV_32F, const_cast<float*>(f1.data()), static_cast<std::size_t>(f1.stride())), fout;
      cv::Mat rm(h, w, CV_8UC3, const_cast<std::uint8_t*>(rgb.data()), static_cast<std::size_t>(rgb.stride())), rout;
      cv::Mat km(7, 7, CV_32F, const_cast<float*>(k7.weights.data()));
      const auto sep = separate(gauss);
      r = {"filters", "conv2d", "opencv-cpu", "host", w, h, p7, {}};
      r.stats = bench::measure([&] { return bench::time_us([&] { cv::filter2D(fm, fout, -1, km); }); }, o);
      report.add(r);
      r = {"filters", "separable", "opencv-cpu", "host", w, h, pg, {}};
      r.stats = bench::measure([&] { return bench::time_us([&] { cv::sepFilter2D(fm, fout, -1, cv::Mat(sep.row), cv::Mat(sep.column)); }); }, o);
      report.add(r);
      r = {"filters", "bilateral", "opencv-cpu", "host", w, h, pb, {}};
      r.stats = bench::measure([&] { return bench::time_us([&] { cv::bilateralFilter(rm, rout, 7, 30, 3); }); }, o);
      report.add(r);
#endif
    }
#ifdef GPUVIS_BENCH_CUDA
    if (!args.wants("cuda") || cuda::device_count() == 0) continue;
    report.set_gpu_description(cuda::devices()[0].name);
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
    ConvolveOptions co;
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
    r = {"filters", "bilateral", "cuda", "end-to-end (host to host, incl. transfers)", w, h, pb, {}};
    r.stats = bench::measure([&] { return bench::time_us([&] { bilateral_cuda<std::uint8_t>(rgb.view(), ro.view(), bp); }); }, o);
    report.add(r);
#endif
  }
  return 0;
}

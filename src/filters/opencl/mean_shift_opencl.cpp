// Mean shift filtering on the OpenCL backend, with the CPU's and CUDA's rules
// (filters/mean_shift_rule.h, filters/mean_shift_step.h): the samples become features on the
// device, the climbs run there in rounds with a queue of the unfinished ones (as on CUDA), and the
// modes come back as samples; built without contraction and with correctly rounded division and
// square root, so the modes are the CPU's bit for bit. One program per channel count, kernel,
// number of axes and sample type, cached by the context.
#include <algorithm>
#include <string>
#include <vector>

#include "filters/mean_shift_common.hpp"
#include "filters/opencl/filters_opencl.hpp"
#include "filters/opencl/sample_options.hpp"
#include "opencl/context.hpp"
#include "opencl/sources.hpp"

namespace gpuvis::filters {
namespace {

constexpr std::size_t kRowItems = 1024;  // mean_shift.cl's ROW_ITEMS

// Work items for n voxels or climbs: rows of kRowItems (Kernel::run's width x height).
void run_over(opencl::Kernel& k, long long n) {
  k.run(kRowItems, static_cast<std::size_t>((n + static_cast<long long>(kRowItems) - 1) / static_cast<long long>(kRowItems)));
}

std::string gib(double bytes) { return std::to_string(bytes / (1u << 30)).substr(0, 4) + " GiB"; }

}  // namespace

template <class T>
void mean_shift_filter_opencl(HostView<const T> src, HostView<T> dst, VolumeShape shape, const MeanShiftParams& params,
                              std::vector<float>* modes_out) {
  const auto job = mean_shift_detail::prepare(src, dst, shape, params);
  opencl::Context& context = opencl::Context::get();
  const int channels = src.channels, lanes = channels == 3 ? 4 : channels;
  const long long n = job.voxels();
  require(n < (1ll << 31), "mean shift on OpenCL takes at most 2^31 voxels");
  const std::size_t feature_bytes = static_cast<std::size_t>(n) * static_cast<std::size_t>(lanes) * sizeof(float);
  const std::size_t need = 3 * feature_bytes + static_cast<std::size_t>(n) * (4 * sizeof(float) + 3 * sizeof(int)) +
                           2 * src.pixel_count() * static_cast<std::size_t>(channels) * sizeof(T);
  const std::uint64_t have = context.device().memory;
  if (have != 0 && need > have)
    fail(ErrorCode::invalid_argument, "mean shift of " + std::to_string(n) + " voxels needs " + gib(static_cast<double>(need)) +
                                          " of OpenCL device memory and the device has " + gib(static_cast<double>(have)) +
                                          ": use --backend cpu or a smaller image");
  const int dims = job.space.frames > 1 ? 4 : job.space.depth > 1 ? 3 : 2;
  const std::string exact = context.device().exact_divide_sqrt ? " -cl-fp32-correctly-rounded-divide-sqrt" : "";
  const cl_program program =
      context.program(opencl::sources::mean_shift, opencl_sample_options<T>() + " -D GPUVIS_MS_C=" + std::to_string(channels) +
                                                       " -D GPUVIS_MS_GAUSSIAN=" + (job.gaussian ? "1" : "0") +
                                                       " -D GPUVIS_MS_DIMS=" + std::to_string(dims) + " -cl-std=CL1.2" + exact);
  opencl::Buffer d_src, d_dst, d_features(feature_bytes), d_modes(feature_bytes), d_range(feature_bytes);
  opencl::Buffer d_position(static_cast<std::size_t>(n) * 4 * sizeof(float)), d_steps(static_cast<std::size_t>(n) * sizeof(int));
  opencl::Buffer d_queue_a(static_cast<std::size_t>(n) * sizeof(int)), d_queue_b(static_cast<std::size_t>(n) * sizeof(int)), d_count;
  opencl::upload(src, d_src);

  const cl_long voxels = n;
  opencl::Kernel features(program, "ms_features");
  features.arg(0, d_src).arg(1, d_features).arg(2, job.conversion).arg(3, voxels);
  run_over(features, n);

  opencl::Kernel climb(program, "ms_climb");
  climb.arg(0, d_features).arg(1, job.space).arg(2, static_cast<cl_float>(job.eps)).arg(3, static_cast<cl_int>(job.max_iter));
  climb.arg(4, static_cast<cl_int>(mean_shift_detail::Tuning{}.round_steps));
  climb.arg(8, d_position).arg(9, d_range).arg(10, d_steps).arg(13, d_modes);
  opencl::Buffer* queue_in = &d_queue_b;  // not read in the first round
  opencl::Buffer* queue_out = &d_queue_a;
  long long active = n;
  bool first = true;
  while (active > 0) {
    const cl_int zero = 0;
    opencl::upload_rows(&zero, sizeof zero, 1, sizeof zero, d_count);
    climb.arg(5, *queue_in).arg(6, static_cast<cl_int>(first ? 0 : 1)).arg(7, static_cast<cl_int>(active)).arg(11, *queue_out).arg(12, d_count);
    run_over(climb, active);
    cl_int left = 0;
    opencl::download_rows(d_count, sizeof left, 1, sizeof left, &left);
    active = left;
    first = false;
    if (params.progress) params.progress(static_cast<double>(n - active) / static_cast<double>(n));
    std::swap(queue_in, queue_out);  // the queue just filled is read next
  }

  opencl::Kernel samples(program, "ms_samples");
  d_dst.reserve(src.pixel_count() * static_cast<std::size_t>(channels) * sizeof(T));
  samples.arg(0, d_modes).arg(1, d_dst).arg(2, job.conversion).arg(3, voxels);
  run_over(samples, n);
  opencl::download(d_dst, dst);
  if (modes_out) {
    modes_out->resize(static_cast<std::size_t>(n) * static_cast<std::size_t>(lanes));
    opencl::download_rows(d_modes, feature_bytes, 1, static_cast<std::ptrdiff_t>(feature_bytes), modes_out->data());
  }
}

#define GPUVIS_MEAN_SHIFT_OPENCL(T)                                                                                         \
  template void mean_shift_filter_opencl<T>(HostView<const T>, HostView<T>, VolumeShape, const MeanShiftParams&,           \
                                            std::vector<float>*);
GPUVIS_MEAN_SHIFT_OPENCL(std::uint8_t)
GPUVIS_MEAN_SHIFT_OPENCL(std::uint16_t)
GPUVIS_MEAN_SHIFT_OPENCL(float)
#undef GPUVIS_MEAN_SHIFT_OPENCL

}  // namespace gpuvis::filters

// Convolution on the OpenCL backend: a 2D kernel in one pass, a separable one in one pass (up to
// 31 taps a side) or as a row pass into a float buffer and a column pass, as on the CPU. An image
// goes to the device in one piece, or in strips of rows through opencl::StripPipeline when it is
// large or over the memory budget (ConvolveParams::max_gpu_memory, else half the device's memory;
// filters/opencl/strip_choice.hpp), one strip's copies beside another's kernels. Equal to the CPU
// within the CUDA backend's tolerance (1 LSB, 1e-5 relative for floats); strips give the whole
// image's bytes. 8-bit images under a smoothing kernel are summed in fixed point (smooth_fixed), the
// CPU's bytes exactly.
#include "filters/opencl/filters_opencl.hpp"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "filters/convolve_common.hpp"
#include "filters/opencl/sample_options.hpp"
#include "filters/opencl/strip_choice.hpp"
#include "filters/smooth_fixed.hpp"
#include "opencl/context.hpp"
#include "opencl/sources.hpp"

namespace gpuvis::filters {
namespace {

// The device buffers of a thread's calls, kept from call to call: a 1080p call on NVIDIA's OpenCL
// took a fixed 1.36 ms whatever its bytes when it allocated them each time (docs/benchmarks/opencl.md).
struct Buffers {
  opencl::Buffer src, dst, mid, row, column;
};
Buffers& buffers() {
  thread_local Buffers b;
  return b;
}

// Output rows per work item of the vertical passes (convolve.cl's ROWS, adjacent rows; a group's
// tile holds 4 x ROWS output rows and the kernel's halo). On the H200 with NVIDIA's driver, 1080p
// f32 (bench_filters, kernels alone): the 7x7 24.4-28.1 us at 4 rows, 26.4 at 3, 25.0 at 6, 31.6-34.2
// at 8-16, 31.7 at 2 (39.0 with 4 rows a group's height apart, before 2026-12-02); the 13-tap
// column pass of the separable Gaussian 32.4-37.5 us at 8 rows, 36.5-39.5 at 4, 48.2 at 16.
constexpr int kRowsPerItem2D = 4, kRowsPerItemColumns = 8;
// The largest separable kernel run in one pass (convolve.cl's FUSED_MAX_TAPS).
constexpr std::size_t kFusedMaxTaps = 31;
int rows_per_item(bool separable) { return separable ? kRowsPerItemColumns : kRowsPerItem2D; }
std::size_t items_for_rows(int rows, bool separable) {
  return static_cast<std::size_t>((rows + rows_per_item(separable) - 1) / rows_per_item(separable));
}

template <class W>
void upload_weights(const std::vector<W>& weights, opencl::Buffer& b) {
  opencl::upload_rows(weights.data(), weights.size() * sizeof(W), 1, 0, b);
}

}  // namespace

template <class T>
void convolve_opencl(HostView<const T> src, HostView<T> dst, const Kernel& kernel, const ConvolveParams& options) {
  detail::check_images(src, dst);
  const detail::PreparedKernel p = detail::prepare(kernel, options);
  opencl::Context& context = opencl::Context::get();
  // One program per kernel size (convolve.cl): KW x KH for a 2D kernel, the row and column taps of
  // a separable one.
  const bool separable = p.separable.separable;
  const std::size_t kw = separable ? p.separable.row.size() : static_cast<std::size_t>(p.kernel.width);
  const std::size_t kh = separable ? p.separable.column.size() : static_cast<std::size_t>(p.kernel.height);
  // 8-bit images under a smoothing kernel: fixed point (filters/smooth_fixed.hpp), the CPU's bytes.
  std::optional<detail::FixedSmoothing> fixed;
  if constexpr (std::is_same_v<T, std::uint8_t>) {
    if (options.fixed_point) fixed = detail::fixed_smoothing(p.separable, options.border);
  }
  const cl_program program = context.program(
      opencl::sources::convolve, opencl_sample_options<T>() + " -D KW=" + std::to_string(kw) + " -D KH=" + std::to_string(kh) +
                                                " -D ROWS=" + std::to_string(rows_per_item(separable)) + " -D FIXED=" +
                                                (fixed ? "1" : "0") + " -cl-std=CL1.2");
  const cl_int width = src.width, height = src.height, channels = src.channels, mode = static_cast<cl_int>(options.border.mode);
  const cl_float value = options.border.value;
  const int halo = static_cast<int>(kh / 2);
  const auto w = static_cast<std::size_t>(width);
  const bool fused = fixed || (separable && kw <= kFusedMaxTaps && kh <= kFusedMaxTaps);
  const std::size_t row_bytes = src.row_bytes(), mid_bytes = w * static_cast<std::size_t>(channels) * sizeof(float);
  const std::size_t budget = options.max_gpu_memory ? options.max_gpu_memory : static_cast<std::size_t>(context.device().memory / 2);
  const std::size_t scratch_per_row = separable && !fused ? mid_bytes : 0;
  Buffers& b = buffers();
  // The kernels this shape uses: a separable kernel of up to kFusedMaxTaps taps a side in one pass
  // (convolve_separable), a larger one as a row and a column pass, or one 2D pass.
  std::optional<opencl::Kernel> rows, columns, two_d, one_pass;
  if (fused) one_pass.emplace(program, fixed ? "smooth_fixed" : "convolve_separable");
  else if (separable) rows.emplace(program, "convolve_rows"), columns.emplace(program, "convolve_columns");
  else two_d.emplace(program, "convolve_2d");
  float outside = 0.0f;  // a row outside the image under the constant border, after the row pass (summed in its order)
  if (fixed) {
    upload_weights(fixed->row, b.row);
    upload_weights(fixed->column, b.column);
  } else if (separable) {
    upload_weights(p.separable.row, b.row);
    upload_weights(p.separable.column, b.column);
    for (const float weight : p.separable.row)
      if (weight != 0.0f) outside += weight * value;
  } else {
    upload_weights(p.kernel.weights, b.row);
  }
  // One strip's kernels: output rows [out_first, out_first + out_rows) from input rows
  // [in_first, in_first + in_rows) in `in` (the whole image: in_first 0 and in_rows height).
  auto enqueue = [&](const opencl::Buffer& in, opencl::Buffer& out, opencl::Buffer& mid, cl_int in_first, cl_int in_rows, cl_int out_first,
                     cl_int out_rows, cl_command_queue queue) {
    if (fused) {
      one_pass->arg(0, in).arg(1, out).arg(2, width).arg(3, height).arg(4, channels).arg(5, b.row).arg(6, b.column).arg(7, mode);
      one_pass->arg(8, value).arg(9, in_first).arg(10, in_rows).arg(11, out_first).arg(12, out_rows);
      one_pass->run(w, items_for_rows(out_rows, true), queue);
    } else if (separable) {
      mid.reserve(mid_bytes * static_cast<std::size_t>(in_rows));
      rows->arg(0, in).arg(1, mid).arg(2, width).arg(3, in_rows).arg(4, channels).arg(5, b.row).arg(6, mode).arg(7, value).run(w, static_cast<std::size_t>(in_rows), queue);
      columns->arg(0, mid).arg(1, out).arg(2, width).arg(3, height).arg(4, channels).arg(5, b.column).arg(6, mode).arg(7, static_cast<cl_float>(outside));
      columns->arg(8, in_first).arg(9, in_rows).arg(10, out_first).arg(11, out_rows).run(w, items_for_rows(out_rows, true), queue);
    } else {
      two_d->arg(0, in).arg(1, out).arg(2, width).arg(3, height).arg(4, channels).arg(5, b.row).arg(6, mode).arg(7, value);
      two_d->arg(8, in_first).arg(9, in_rows).arg(10, out_first).arg(11, out_rows).run(w, items_for_rows(out_rows, false), queue);
    }
  };
  const cuda::StripPlan plan = opencl_strip_plan(row_bytes, height, halo, scratch_per_row, budget);
  if (plan.strip_rows == 0)
    fail(ErrorCode::invalid_argument, "--max-gpu-memory " + std::to_string(budget >> 10) + " KiB cannot hold one strip of this image on the "
                                      "OpenCL device: give at least " + std::to_string((plan.min_budget + 1023) >> 10) + " KiB");
  run_planned(src, dst, plan, halo, options.border.mode, b.src, b.dst, b.mid, enqueue);
}

template void convolve_opencl<std::uint8_t>(HostView<const std::uint8_t>, HostView<std::uint8_t>, const Kernel&, const ConvolveParams&);
template void convolve_opencl<std::uint16_t>(HostView<const std::uint16_t>, HostView<std::uint16_t>, const Kernel&, const ConvolveParams&);
template void convolve_opencl<float>(HostView<const float>, HostView<float>, const Kernel&, const ConvolveParams&);

}  // namespace gpuvis::filters

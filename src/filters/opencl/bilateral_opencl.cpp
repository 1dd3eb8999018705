// The bilateral filter on the OpenCL backend: one work item per pixel over a tile in local memory
// with the border applied on load, as the CUDA backend does; the per-pixel rule is the CPU's
// (filters/bilateral_rule.h), built without contraction and with correctly rounded division and
// square root, so the bytes are the CPU's. Large images go in strips through opencl::StripPipeline
// (filters/opencl/strip_choice.hpp), one strip's copies beside another's kernel.
#include <string>

#include "filters/convolve_common.hpp"
#include "filters/opencl/filters_opencl.hpp"
#include "filters/opencl/sample_options.hpp"
#include "filters/opencl/strip_choice.hpp"
#include "opencl/context.hpp"
#include "opencl/sources.hpp"

namespace gpuvis::filters {
namespace {

constexpr int kGroupW = 32, kGroupH = 4;  // Kernel::run's work groups, bilateral.cl's GROUP_W x GROUP_H

// The device buffers of a thread's calls, kept from call to call (convolve_opencl.cpp says why).
struct Buffers {
  opencl::Buffer src, dst, scratch;  // scratch: unused (the filter needs none), for run_planned
};
Buffers& buffers() {
  thread_local Buffers b;
  return b;
}

}  // namespace

template <class T>
void bilateral_opencl(HostView<const T> src, HostView<T> dst, const BilateralParams& p) {
  validate(p);
  detail::check_images(src, dst);
  opencl::Context& context = opencl::Context::get();
  const int r = p.radius, channels = src.channels;
  // Local memory: the spatial weights by dx² + dy², then the tile when it fits (3 or 4 channels
  // at radii above about 30 on a 48 KiB device read the image through the cache instead).
  const std::size_t table = sizeof(float) * (static_cast<std::size_t>(r) * r + 1);
  const std::size_t tiled = table + sizeof(float) * channels * (kGroupW + 2 * r) * (kGroupH + 2 * r);
  const bool tile = tiled <= context.device().local_memory;
  // Correctly rounded division and square root, as on the CPU, where the device can (OpenCL's
  // default allows 2.5 and 3 ulp: a device without it may differ from the CPU in the last bit).
  const std::string exact = context.device().exact_divide_sqrt ? " -cl-fp32-correctly-rounded-divide-sqrt" : "";
  const cl_program program = context.program(opencl::sources::bilateral, opencl_sample_options<T>() + " -D C=" + std::to_string(channels) +
                                                                              " -D TILED=" + (tile ? "1" : "0") + " -cl-std=CL1.2" + exact);
  const cl_int width = src.width, height = src.height, radius = r;
  const cl_int adaptive = p.adaptive, colour = p.mode == RangeMode::colour, l1 = p.distance == ColourDistance::l1;
  const cl_int mode = static_cast<cl_int>(p.border.mode);
  const cl_float space_coeff = -0.5f / (p.sigma_space * p.sigma_space), sigma_range = p.sigma_range, value = p.border.value;
  opencl::Kernel k(program, "bilateral");
  // Output rows [out_first, out_first + out_rows) from input rows [in_first, in_first + in_rows) in `in`.
  auto enqueue = [&](const opencl::Buffer& in, opencl::Buffer& out, opencl::Buffer& /*scratch: none needed*/, cl_int in_first, cl_int in_rows,
                     cl_int out_first, cl_int out_rows, cl_command_queue queue) {
    k.arg(0, in).arg(1, out).arg(2, width).arg(3, height).arg(4, radius).arg(5, space_coeff).arg(6, sigma_range);
    k.arg(7, adaptive).arg(8, colour).arg(9, l1).arg(10, mode).arg(11, value).arg(12, in_first).arg(13, in_rows).arg(14, out_first);
    k.arg(15, out_rows).local(16, tile ? tiled : table);
    k.run(static_cast<std::size_t>(width), static_cast<std::size_t>(out_rows), queue);
  };
  const std::size_t row_bytes = src.row_bytes();
  const cuda::StripPlan plan = opencl_strip_plan(row_bytes, height, r, 0, static_cast<std::size_t>(context.device().memory / 2));
  require(plan.strip_rows > 0, "the bilateral filter's strips do not fit the OpenCL device's memory");
  Buffers& b = buffers();
  run_planned(src, dst, plan, r, p.border.mode, b.src, b.dst, b.scratch, enqueue);
}

template void bilateral_opencl<std::uint8_t>(HostView<const std::uint8_t>, HostView<std::uint8_t>, const BilateralParams&);
template void bilateral_opencl<std::uint16_t>(HostView<const std::uint16_t>, HostView<std::uint16_t>, const BilateralParams&);
template void bilateral_opencl<float>(HostView<const float>, HostView<float>, const BilateralParams&);

}  // namespace gpuvis::filters

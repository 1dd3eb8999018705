// Convolution on the OpenCL backend: a 2D kernel in one pass, a separable one as a row pass into a
// float buffer and a column pass, as on the CPU; the whole image on the device at once (no strips
// yet). Equal to the CPU within the CUDA backend's tolerance (1 LSB, 1e-5 relative for floats).
#include "filters/opencl/filters_opencl.hpp"

#include <string>
#include <vector>

#include "filters/convolve_common.hpp"
#include "filters/opencl/sample_options.hpp"
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

void upload_weights(const std::vector<float>& weights, opencl::Buffer& b) {
  opencl::upload_rows(weights.data(), weights.size() * sizeof(float), 1, 0, b);
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
  const cl_program program = context.program(
      opencl::sources::convolve, opencl_sample_options<T>() + " -D KW=" + std::to_string(kw) + " -D KH=" + std::to_string(kh) + " -cl-std=CL1.2");
  const cl_int width = src.width, height = src.height, channels = src.channels, mode = static_cast<cl_int>(options.border.mode);
  const cl_float value = options.border.value;
  const auto w = static_cast<std::size_t>(width), h = static_cast<std::size_t>(height);
  Buffers& b = buffers();
  opencl::Buffer &d_src = b.src, &d_dst = b.dst;
  opencl::upload(src, d_src);
  d_dst.reserve(src.pixel_count() * static_cast<std::size_t>(channels) * sizeof(T));
  if (separable) {
    opencl::Buffer &row = b.row, &column = b.column, &mid = b.mid;
    upload_weights(p.separable.row, row);
    upload_weights(p.separable.column, column);
    // A row outside the image under the constant border: the row pass of a row of the value, summed
    // in the row pass's order.
    float outside = 0.0f;
    for (const float weight : p.separable.row)
      if (weight != 0.0f) outside += weight * value;
    mid.reserve(src.pixel_count() * static_cast<std::size_t>(channels) * sizeof(float));
    opencl::Kernel rows(program, "convolve_rows"), columns(program, "convolve_columns");
    rows.arg(0, d_src).arg(1, mid).arg(2, width).arg(3, height).arg(4, channels).arg(5, row).arg(6, mode).arg(7, value).run(w, h);
    columns.arg(0, mid).arg(1, d_dst).arg(2, width).arg(3, height).arg(4, channels).arg(5, column).arg(6, mode);
    columns.arg(7, static_cast<cl_float>(outside)).run(w, h);
  } else {
    opencl::Buffer& weights = b.row;
    upload_weights(p.kernel.weights, weights);
    opencl::Kernel two_d(program, "convolve_2d");
    two_d.arg(0, d_src).arg(1, d_dst).arg(2, width).arg(3, height).arg(4, channels).arg(5, weights).arg(6, mode).arg(7, value).run(w, h);
  }
  opencl::download(d_dst, dst);
}

template void convolve_opencl<std::uint8_t>(HostView<const std::uint8_t>, HostView<std::uint8_t>, const Kernel&, const ConvolveParams&);
template void convolve_opencl<std::uint16_t>(HostView<const std::uint16_t>, HostView<std::uint16_t>, const Kernel&, const ConvolveParams&);
template void convolve_opencl<float>(HostView<const float>, HostView<float>, const Kernel&, const ConvolveParams&);

}  // namespace gpuvis::filters

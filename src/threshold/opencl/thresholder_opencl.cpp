// The OpenCL Thresholder: full Bernsen (the other methods and sharpening are CPU and CUDA only for
// now, and say so). Its kernels compile the rule the CPU and CUDA use (threshold/bernsen_rule.h).
#include "threshold/opencl/threshold_opencl.hpp"

#include "gpuvis/core/error.hpp"
#include "opencl/context.hpp"
#include "opencl/sources.hpp"

namespace gpuvis::threshold {
namespace {

class OpenclThresholder final : public Thresholder {
 public:
  explicit OpenclThresholder(const Params& p)
      : params_(p),
        program_(opencl::Context::get().program(opencl::sources::bernsen)),
        rows_(program_, "bernsen_rows"),
        columns_(program_, "bernsen_columns") {}
  Backend backend() const override { return Backend::opencl; }
  const Params& params() const override { return params_; }
  void apply(HostView<const std::uint8_t> src, HostView<std::uint8_t> dst) override {
    require(!src.empty() && src.channels == 1 && dst.channels == 1 && src.width == dst.width && src.height == dst.height,
            "threshold: the source and destination must be one-channel images of the same size");
    const std::size_t bytes = src.pixel_count();
    opencl::upload(src, src_);
    row_max_.reserve(bytes);
    row_min_.reserve(bytes);
    dst_.reserve(bytes);
    const cl_int width = src.width, height = src.height, h = params_.bernsen.half_window, gate = params_.bernsen.gate;
    rows_.arg(0, src_).arg(1, row_max_).arg(2, row_min_).arg(3, width).arg(4, height).arg(5, h);
    rows_.run(static_cast<std::size_t>(width), static_cast<std::size_t>(height));
    columns_.arg(0, src_).arg(1, row_max_).arg(2, row_min_).arg(3, dst_).arg(4, width).arg(5, height).arg(6, h).arg(7, gate);
    columns_.run(static_cast<std::size_t>(width), static_cast<std::size_t>(height));
    opencl::download(dst_, dst);  // blocking: the queue is in order, so the kernels have finished
  }

 private:
  Params params_;
  cl_program program_;
  opencl::Kernel rows_, columns_;
  opencl::Buffer src_, row_max_, row_min_, dst_;  // kept between frames
};

}  // namespace

std::unique_ptr<Thresholder> make_opencl_thresholder(const Params& params) {
  if (params.method != Method::bernsen)
    fail(ErrorCode::unsupported, "the " + std::string(to_string(params.method)) +
                                     " threshold is not on the OpenCL backend yet: use --method bernsen, or --backend cpu or cuda");
  if (params.sharpen > 0) fail(ErrorCode::unsupported, "--sharpen is not on the OpenCL backend yet: use --backend cpu or cuda");
  return std::make_unique<OpenclThresholder>(params);
}

}  // namespace gpuvis::threshold

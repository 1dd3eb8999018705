// The OpenCL Thresholder: full Bernsen, reacTIVision's tiled Bernsen and Bradley-Roth, each after
// the optional equaliser and sharpening. Its kernels compile the rules the CPU and CUDA use
// (threshold/bernsen_rule.h, tiled_rule.h, bradley_roth_rule.h, sharpen_rule.h, equalize_rule.h),
// so all three give the same bytes.
#include "threshold/opencl/threshold_opencl.hpp"

#include <optional>

#include "gpuvis/core/error.hpp"
#include "opencl/context.hpp"
#include "opencl/sources.hpp"
#include "threshold/rules.hpp"

namespace gpuvis::threshold {
namespace {

// The largest half-window of the one-pass tiled Bernsen kernel (GPUVIS_TILE_MAX_R in bernsen.cl).
constexpr int kTileMaxRadius = 16;

const char* source_of(Method method) {
  switch (method) {
    case Method::tiled: return opencl::sources::tiled;
    case Method::bradley_roth: return opencl::sources::bradley_roth;
    default: return opencl::sources::bernsen;
  }
}

class OpenclThresholder final : public Thresholder {
 public:
  explicit OpenclThresholder(const Params& p) : params_(p), program_(opencl::Context::get().program(source_of(p.method))) {
    if (p.sharpen > 0) sharpen_.emplace(opencl::Context::get().program(opencl::sources::sharpen), "sharpen");
    switch (p.method) {
      case Method::tiled: first_.emplace(program_, "tiled_cells"), second_.emplace(program_, "tiled_apply"); break;
      case Method::bradley_roth: first_.emplace(program_, "bradley_roth_columns"), second_.emplace(program_, "bradley_roth_decide"); break;
      default:
        if (p.bernsen.half_window <= kTileMaxRadius) first_.emplace(program_, "bernsen_tile");
        else first_.emplace(program_, "bernsen_rows"), second_.emplace(program_, "bernsen_columns");
        break;
    }
  }
  Backend backend() const override { return Backend::opencl; }
  const Params& params() const override { return params_; }
  void apply(HostView<const std::uint8_t> src, HostView<std::uint8_t> dst) override {
    require(!src.empty() && src.channels == 1 && dst.channels == 1 && src.width == dst.width && src.height == dst.height,
            "threshold: the source and destination must be one-channel images of the same size");
    check_image_shape(src.width, src.height, 1);
    opencl::upload(src, src_);
    dst_.reserve(src.pixel_count());
    equalized_now_ = false;
    if (const Equalizer* e = active_equalizer()) {  // the sharpening and the methods then read the equalised frame
      e->require_frame_size(src.width, src.height);
      if (e != uploaded_from_ || e->captures() != uploaded_capture_) {  // only a new background crosses the bus
        opencl::upload(e->background().view(), background_);
        uploaded_from_ = e, uploaded_capture_ = e->captures();
      }
      equalized_.reserve(src.pixel_count());
      if (!equalize_) equalize_.emplace(opencl::Context::get().program(opencl::sources::equalize), "equalize");  // built at first use
      equalize_->arg(0, src_).arg(1, background_).arg(2, equalized_).arg(3, static_cast<cl_int>(src.width));
      equalize_->arg(4, static_cast<cl_int>(src.height)).arg(5, static_cast<cl_int>(e->background_level())).run(size(src.width), size(src.height));
      equalized_now_ = true;
    }
    if (sharpen_) {  // the methods then read the sharpened frame
      sharp_.reserve(src.pixel_count());
      sharpen_->arg(0, equalized_now_ ? equalized_ : src_).arg(1, sharp_).arg(2, static_cast<cl_int>(src.width)).arg(3, static_cast<cl_int>(src.height));
      sharpen_->arg(4, static_cast<cl_int>(params_.sharpen)).run(size(src.width), size(src.height));
    }
    switch (params_.method) {
      case Method::tiled: tiled(src.width, src.height); break;
      case Method::bradley_roth: bradley_roth(src.width, src.height); break;
      default: bernsen(src.width, src.height); break;
    }
    opencl::download(dst_, dst);  // blocking: the queue is in order, so the kernels have finished
  }

 private:
  // Half-windows up to kTileMaxRadius in one pass over tiles in local memory (bernsen_tile: groups
  // of 32 x 4 items, 32 x 16 pixels each); larger ones as a row pass and a column pass, then the
  // rule.
  void bernsen(cl_int width, cl_int height) {
    if (!second_) {
      const cl_int h = params_.bernsen.half_window, gate = params_.bernsen.gate;
      first_->arg(0, input()).arg(1, dst_).arg(2, width).arg(3, height).arg(4, h).arg(5, gate);
      first_->run(32 * size((width + 31) / 32), 4 * size((height + 15) / 16));
      return;
    }
    const std::size_t bytes = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
    a_.reserve(bytes);
    b_.reserve(bytes);
    const cl_int h = params_.bernsen.half_window, gate = params_.bernsen.gate;
    first_->arg(0, input()).arg(1, a_).arg(2, b_).arg(3, width).arg(4, height).arg(5, h).run(size(width), size(height));
    second_->arg(0, input()).arg(1, a_).arg(2, b_).arg(3, dst_).arg(4, width).arg(5, height).arg(6, h).arg(7, gate);
    second_->run(size(width), size(height));
  }
  // Each cell's statistics, then each pixel against its tile's threshold.
  void tiled(cl_int width, cl_int height) {
    const cl_int tile = params_.tiled.tile, cells_x = gpuvis_cell_count(width, tile), cells_y = gpuvis_cell_count(height, tile);
    const cl_int cells = cells_x * cells_y;
    a_.reserve(sizeof(cl_uint) * static_cast<std::size_t>(cells));
    first_->arg(0, input()).arg(1, a_).arg(2, width).arg(3, height).arg(4, tile).arg(5, cells_x).arg(6, cells_y).run(size(cells_x), size(cells_y));
    second_->arg(0, input()).arg(1, dst_).arg(2, a_).arg(3, width).arg(4, height).arg(5, tile).arg(6, cells_x).arg(7, cells);
    second_->arg(8, static_cast<cl_int>(params_.tiled.gradient)).run(size(width), size(height));
  }
  // Column sums over each pixel's rows, then the window sums and the rule.
  void bradley_roth(cl_int width, cl_int height) {
    const rules::BradleyRothConst c = rules::bradley_roth_const(height, params_.bradley_roth.size, params_.bradley_roth.bias,
                                                                params_.bradley_roth.contrast);
    a_.reserve(sizeof(cl_uint) * static_cast<std::size_t>(width) * static_cast<std::size_t>(height));
    const cl_int r = c.r;
    first_->arg(0, input()).arg(1, a_).arg(2, width).arg(3, height).arg(4, r).run(size(width), size(height));
    second_->arg(0, input()).arg(1, a_).arg(2, dst_).arg(3, width).arg(4, height).arg(5, r);
    second_->arg(6, static_cast<cl_uint>(c.k)).arg(7, static_cast<cl_uint>(c.m)).run(size(width), size(height));
  }
  static std::size_t size(cl_int n) { return static_cast<std::size_t>(n); }
  const opencl::Buffer& input() const { return sharpen_ ? sharp_ : equalized_now_ ? equalized_ : src_; }

  Params params_;
  cl_program program_;
  std::optional<opencl::Kernel> first_, second_;  // the method's two kernels
  std::optional<opencl::Kernel> sharpen_;         // with Params::sharpen
  std::optional<opencl::Kernel> equalize_;        // with set_equalizer
  bool equalized_now_ = false;                    // this frame went through the equaliser
  const Equalizer* uploaded_from_ = nullptr;      // whose background background_ holds, and which capture
  long uploaded_capture_ = 0;
  opencl::Buffer src_, sharp_, a_, b_, dst_, background_, equalized_;  // kept between frames
};

}  // namespace

std::unique_ptr<Thresholder> make_opencl_thresholder(const Params& params) {
  return std::make_unique<OpenclThresholder>(params);
}

}  // namespace gpuvis::threshold

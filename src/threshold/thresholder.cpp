// The Thresholder factory: one interface, a CPU, a CUDA and an OpenCL implementation.
#include "gpuvis/cuda/runtime.hpp"
#include "gpuvis/opencl/devices.hpp"
#include "gpuvis/threshold/threshold.hpp"
#include "gpuvis/core/parallel.hpp"
#include "threshold/cpu/threshold_cpu.hpp"
#include "threshold/opencl/threshold_opencl.hpp"
#include "threshold/sharpen_rules.hpp"
#include "cuda/built.hpp"
#include "threshold/cuda_entry.hpp"
#include "gpuvis/threshold/device.hpp"

namespace gpuvis::threshold {

void sharpen_cpu(HostView<const std::uint8_t> src, HostView<std::uint8_t> dst, int k) {
  parallel_for(0, src.height, 16, [&](std::ptrdiff_t y0, std::ptrdiff_t y1) {
    for (int y = static_cast<int>(y0); y < y1; ++y) {
      std::uint8_t* out = dst.row(y);
      for (int x = 0; x < src.width; ++x) out[x] = detail::sharpened_at(src, x, y, k);
    }
  });
}

void threshold_cpu(HostView<const std::uint8_t> src, HostView<std::uint8_t> dst, const Params& p, Image<std::uint8_t>* workspace) {
  validate(p);
  Image<std::uint8_t> local;
  if (p.sharpen > 0) {
    Image<std::uint8_t>& sharp = workspace ? *workspace : local;
    if (sharp.width() != src.width || sharp.height() != src.height) sharp = Image<std::uint8_t>(src.width, src.height);
    sharpen_cpu(src, sharp.view(), p.sharpen);
    src = sharp.view();
  }
  switch (p.method) {
    case Method::bernsen: return bernsen_cpu(src, dst, p.bernsen);
    case Method::tiled: return tiled_bernsen_cpu(src, dst, p.tiled);
    case Method::bradley_roth: return bradley_roth_cpu(src, dst, p.bradley_roth);
  }
}

namespace {
class CpuThresholder final : public Thresholder {
 public:
  explicit CpuThresholder(const Params& p) : params_(p) {}
  Backend backend() const override { return Backend::cpu; }
  const Params& params() const override { return params_; }
  void apply(HostView<const std::uint8_t> src, HostView<std::uint8_t> dst) override {
    if (const Equalizer* e = active_equalizer()) {
      if (equalized_.width() != src.width || equalized_.height() != src.height) equalized_ = Image<std::uint8_t>(src.width, src.height);
      e->apply(src, equalized_.view());
      src = equalized_.view();
    }
    threshold_cpu(src, dst, params_, &sharpened_);
  }

 private:
  Params params_;
  Image<std::uint8_t> sharpened_, equalized_;  // kept between frames
};
}  // namespace

std::unique_ptr<Thresholder> make_thresholder(const Params& params) {
  validate(params);
  const Backend backend = opencl::prefer_opencl_gpu(params.backend, resolve_backend(params.backend));
  if (backend == Backend::cuda) {
    if constexpr (cuda::kBuilt) return make_cuda_thresholder(params);
    else cuda::not_built("CUDA thresholding");
  }
  if (backend == Backend::opencl) return make_opencl_thresholder(params);
  return std::make_unique<CpuThresholder>(params);
}

void threshold(HostView<const std::uint8_t> src, HostView<std::uint8_t> dst, const Params& params) {
  if (opencl::prefer_opencl_gpu(params.backend, resolve_backend(params.backend)) == Backend::cpu)
    return threshold_cpu(src, dst, params);
  make_thresholder(params)->apply(src, dst);
}

void threshold(DeviceView<const std::uint8_t> src, DeviceView<std::uint8_t> dst, const Params& params, cuda::StreamHandle stream) {
  if constexpr (cuda::kBuilt) threshold_on_device(src, dst, params, stream);
  else cuda::not_built("thresholding device memory");
}

}  // namespace gpuvis::threshold

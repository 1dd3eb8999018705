// The Thresholder factory: one interface, a CPU and a CUDA implementation.
#include "gpuvis/cuda/runtime.hpp"
#include "gpuvis/threshold/threshold.hpp"
#include "threshold/cpu/threshold_cpu.hpp"

namespace gpuvis::threshold {

void threshold_cpu(HostView<const std::uint8_t> src, HostView<std::uint8_t> dst, const Params& p) {
  validate(p);
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
  void apply(HostView<const std::uint8_t> src, HostView<std::uint8_t> dst) override { threshold_cpu(src, dst, params_); }

 private:
  Params params_;
};
}  // namespace

// Defined in cuda/thresholder_cuda.cu, or in thresholder_no_cuda.cpp without CUDA.
std::unique_ptr<Thresholder> make_cuda_thresholder(const Params& params);

std::unique_ptr<Thresholder> make_thresholder(const Params& params) {
  validate(params);
  if (resolve_backend(params.backend) == Backend::cuda) return make_cuda_thresholder(params);
  return std::make_unique<CpuThresholder>(params);
}

void threshold(HostView<const std::uint8_t> src, HostView<std::uint8_t> dst, const Params& params) {
  if (resolve_backend(params.backend) == Backend::cpu) return threshold_cpu(src, dst, params);
  make_thresholder(params)->apply(src, dst);
}

}  // namespace gpuvis::threshold

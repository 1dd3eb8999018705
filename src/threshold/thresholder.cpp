// The Thresholder factory: one interface, a CPU and a CUDA implementation.
#include "gpuvis/threshold/threshold.hpp"

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

std::unique_ptr<Thresholder> make_thresholder(const Params& params, Backend backend) {
  validate(params);
  switch (backend) {
    case Backend::cpu: return std::make_unique<CpuThresholder>(params);
    case Backend::cuda: return make_cuda_thresholder(params);
    case Backend::automatic: break;
  }
  fail(ErrorCode::invalid_argument, "make_thresholder: resolve Backend::automatic with resolve_backend() first");
}

}  // namespace gpuvis::threshold

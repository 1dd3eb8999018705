// The CUDA detector: the CUDA front end's device tree goes straight into the CUDA decoder, and
// only the decoded symbols and root candidates come back (plus the tree when the host runs the
// finger and blob stages).
#include "front_end_cuda.hpp"
#include "gpuvis/decode/decode_cuda.hpp"

namespace gpuvis::pipeline {
namespace {

class CudaDetector final : public DeviceDetector {
 public:
  CudaDetector(const threshold::Params& params, const decode::TreeSet& set)
      : front_end_(params), decoder_(set), cap_(set.cap()) {}

  void detect(HostView<const std::uint8_t> grey, int root_min, int root_max, DeviceDetections& out,
              segment::RegionTree* tree) override {
    const auto& device_tree = front_end_.segment_on_device(grey, cap_);
    decoder_.decode(device_tree, {root_min, root_max}, front_end_.stream());
    decoded_.record(front_end_.stream());
    decoder_.collect(out.fiducials, out.roots, out.stats, front_end_.stream());
    out.regions = device_tree.regions;
    out.times.threshold_us = front_end_.threshold_us();
    out.times.segment_us = front_end_.segment_us();
    out.times.decode_us = 1000.0 * cuda::Event::elapsed_ms(front_end_.segmented(), decoded_);
    if (tree) front_end_.download(*tree);
  }

 private:
  CudaFrontEnd front_end_;
  decode::cuda_impl::Decoder decoder_;
  int cap_;
  cuda::Event decoded_;
};

}  // namespace

std::unique_ptr<DeviceDetector> make_cuda_detector(const threshold::Params& params, const decode::TreeSet& set) {
  threshold::validate(params);
  return std::make_unique<CudaDetector>(params, set);
}

}  // namespace gpuvis::pipeline

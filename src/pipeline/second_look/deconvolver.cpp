#include "pipeline/second_look/deconvolver.hpp"

#include <cmath>
#include <utility>

namespace gpuvis::pipeline::second_look {

Image<float> Deconvolver::run_one(HostView<const float> blurred, const Blur& kernel,
                                  const DeconvolveSettings& settings) {
  std::vector<Image<float>> restored, at_early;
  run(blurred, std::span(&kernel, 1), settings, restored, at_early);
  return std::move(restored[0]);
}

namespace {
class CpuDeconvolver final : public Deconvolver {
 public:
  bool batches() const override { return false; }
  void run(HostView<const float> blurred, std::span<const Blur> kernels, const DeconvolveSettings& settings,
           std::vector<Image<float>>& restored, std::vector<Image<float>>& at_early) override {
    restored.resize(kernels.size());
    at_early.resize(kernels.size());
    for (std::size_t k = 0; k < kernels.size(); ++k)
      restored[k] = deconvolve(blurred, kernels[k], settings.iterations, settings.smoothness, settings.bounds,
                               settings.early, at_early[k]);
  }
};
}  // namespace

std::unique_ptr<Deconvolver> make_cpu_deconvolver() { return std::make_unique<CpuDeconvolver>(); }

Restorations::Restorations(Deconvolver& deconvolver, HostView<const float> blurred,
                           std::vector<Blur> kernels, DeconvolveSettings settings, std::size_t group)
    : deconvolver_(deconvolver),
      blurred_(blurred),
      kernels_(std::move(kernels)),
      settings_(settings),
      group_(std::max<std::size_t>(group, 1)),
      restored_(kernels_.size()),
      early_(kernels_.size()),
      made_(kernels_.size(), false) {}

void Restorations::make(std::size_t k) {
  if (made_[k]) return;
  // The group of k (all of it where the deconvolver batches, else k alone).
  const std::size_t first = deconvolver_.batches() ? k / group_ * group_ : k;
  const std::size_t end = deconvolver_.batches() ? std::min(first + group_, kernels_.size()) : k + 1;
  std::vector<Image<float>> restored, at_early;
  deconvolver_.run(blurred_, std::span(kernels_).subspan(first, end - first), settings_, restored, at_early);
  for (std::size_t j = first; j < end; ++j) {
    restored_[j] = std::move(restored[j - first]);
    early_[j] = std::move(at_early[j - first]);
    made_[j] = true;
  }
}

const Image<float>& Restorations::restored(std::size_t k) {
  make(k);
  return restored_[k];
}

const Image<float>& Restorations::early(std::size_t k) {
  make(k);
  return early_[k];
}

MotionEstimate refine_direction(Deconvolver& deconvolver, HostView<const float> patch, const MotionEstimate& m,
                                int max_length, GreyBounds bounds, double smoothness, int iterations, double reach,
                                double step) {
  MotionEstimate best = m;
  if (!lengths_measurable(patch.width, patch.height, max_length) || !(bounds.hi > bounds.lo)) return best;
  const float lo = bounds.lo + 0.3f * (bounds.hi - bounds.lo), hi = bounds.lo + 0.7f * (bounds.hi - bounds.lo);
  const int steps = static_cast<int>(reach / step + 1e-9);
  std::vector<double> angles, lengths;
  std::vector<Blur> kernels;
  for (int k = -steps; k <= steps; ++k) {
    angles.push_back(m.angle + k * step);
    lengths.push_back(length_along(patch, angles.back(), max_length));
    kernels.push_back(line_kernel(angles.back(), lengths.back()));
  }
  std::vector<Image<float>> restored, unused;
  deconvolver.run(patch, kernels, {iterations, smoothness, bounds, 0}, restored, unused);
  long fewest = -1;
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    long middle = 0;
    for (int y = 0; y < restored[k].height(); ++y)
      for (const float v : std::span(restored[k].row(y), static_cast<std::size_t>(restored[k].width())))
        middle += (v > lo) & (v < hi);
    if (fewest < 0 || middle < fewest) {
      fewest = middle;
      best.angle = std::fmod(angles[k] + 2 * std::numbers::pi, std::numbers::pi);
      best.length = lengths[k];
    }
  }
  return best;
}

}  // namespace gpuvis::pipeline::second_look

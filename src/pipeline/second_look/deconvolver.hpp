#pragma once
// Where the second look's deconvolutions run. A look deblurs one patch by several kernels (the
// directions refine_direction compares, the trials deblur_and_vote votes with); nine tenths of its
// time is those deconvolutions. On the CPU each is made when the look needs it; the CUDA
// deconvolver makes a group of them at once, one thread block per kernel, with the CPU's
// arithmetic operation for operation, so that both backends restore the same bits and report the
// same symbols.
#include <memory>
#include <numbers>
#include <span>
#include <vector>

#include "gpuvis/core/image.hpp"
#include "pipeline/second_look/motion_blur.hpp"

namespace gpuvis::pipeline::second_look {

// What deconvolve takes besides the patch and the kernel.
struct DeconvolveSettings {
  int iterations = 60;
  double smoothness = 0;
  GreyBounds bounds;
  int early = 0;  // also keep the estimate after this many iterations (0: none)
};

class Deconvolver {
 public:
  virtual ~Deconvolver() = default;
  // Whether a group of deconvolutions costs about what one does (the GPU): a look then asks for a
  // group's all at once rather than one at a time, as it needs them.
  virtual bool batches() const = 0;
  // restored[k] (and at_early[k] with settings.early) = deconvolve(blurred, kernels[k], ...), for
  // every k; both vectors are resized to kernels.size().
  virtual void run(HostView<const float> blurred, std::span<const Blur> kernels,
                   const DeconvolveSettings& settings, std::vector<Image<float>>& restored,
                   std::vector<Image<float>>& at_early) = 0;
  // One deconvolution.
  Image<float> run_one(HostView<const float> blurred, const Blur& kernel,
                       const DeconvolveSettings& settings);
};

// motion_blur.hpp's deconvolve, one kernel after another.
std::unique_ptr<Deconvolver> make_cpu_deconvolver();
// On the current CUDA device, with a stream and buffers of its own (one per thread that uses it).
// Only in builds with CUDA (reach it inside `if constexpr (cuda::kBuilt)`).
std::unique_ptr<Deconvolver> make_cuda_deconvolver();

// The patch's restorations by a list of kernels, made when first asked for: one at a time where the
// deconvolver does not batch, else all of kernels [first, first + group) for the first of them
// asked for.
class Restorations {
 public:
  Restorations(Deconvolver& deconvolver, HostView<const float> blurred, std::vector<Blur> kernels,
               DeconvolveSettings settings, std::size_t group);
  const Blur& kernel(std::size_t k) const { return kernels_[k]; }
  const Image<float>& restored(std::size_t k);
  const Image<float>& early(std::size_t k);  // with settings.early

 private:
  void make(std::size_t k);
  Deconvolver& deconvolver_;
  HostView<const float> blurred_;
  std::vector<Blur> kernels_;
  DeconvolveSettings settings_;
  std::size_t group_;
  std::vector<Image<float>> restored_, early_;
  std::vector<bool> made_;
};

// The direction of `m` made more exact by the deconvolution itself (its deconvolutions made by
// `deconvolver`, as one group): the patch is deblurred at
// directions `step` radians apart within `reach` either side of m.angle, each with the length the
// autocorrelation gives along it, `iterations` steps each, and the direction whose restoration is
// the most two-level (the fewest pixels in the middle 40 % of `bounds`) is taken, with its length.
// A print is paper and ink: along a wrong direction the smear is taken out only in part, and the
// restoration keeps grey edges. On the camera table's 240 prints smeared over 7 px this took the
// prints decoded in one try from 197 to 220 (225 with the true smear; bench/probe_deblur). The
// least residual of the fit as the criterion took the direction's median error from 4.2 to 3.2
// degrees but decoded fewer (190), and a scan over lengths too decoded far fewer (longer kernels
// restore more two-level patches). At 12 px it decoded fewer in one try (121 against 145), yet
// with the look's trials around it the tracked prints smeared over 12 px from their first frame
// were reported in 143 of 164 frames against 106 (docs/benchmarks/detect.md).
MotionEstimate refine_direction(Deconvolver& deconvolver, HostView<const float> patch, const MotionEstimate& m,
                                int max_length, GreyBounds bounds, double smoothness, int iterations = 20,
                                double reach = 12 * std::numbers::pi / 180, double step = 3 * std::numbers::pi / 180);

}  // namespace gpuvis::pipeline::second_look

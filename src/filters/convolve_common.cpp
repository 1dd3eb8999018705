#include "convolve_common.hpp"

#include <string>

namespace gpuvis::filters::detail {

PreparedKernel prepare(const Kernel& kernel, const ConvolveOptions& options) {
  require(kernel.width > 0 && kernel.height > 0 && !kernel.weights.empty(), "convolve: empty kernel");
  require(kernel.width % 2 == 1 && kernel.height % 2 == 1, "convolve: kernel sides must be odd, got " +
                                                               std::to_string(kernel.width) + "x" + std::to_string(kernel.height));
  PreparedKernel p{options.flip ? flipped(kernel) : kernel, {}};
  if (options.allow_separable) p.separable = separate(p.kernel);
  const std::string size = std::to_string(kernel.width) + "x" + std::to_string(kernel.height);
  if (p.separable.separable) {
    require(kernel.width <= kMaxKernel1D && kernel.height <= kMaxKernel1D,
            "convolve: separable kernel " + size + " exceeds " + std::to_string(kMaxKernel1D) + " taps");
  } else {
    require(kernel.width <= kMaxKernel2D && kernel.height <= kMaxKernel2D,
            "convolve: kernel " + size + " is not separable and exceeds " + std::to_string(kMaxKernel2D) + "x" +
                std::to_string(kMaxKernel2D));
  }
  return p;
}

}  // namespace gpuvis::filters::detail

#pragma once
// The tolerance between two backends' convolutions: within 1 LSB for integer samples and 1e-5
// relative to the terms' magnitude (`scale`: the kernel's L1 norm times the largest sample) for
// floats (docs/filters.md). Used by the CUDA and OpenCL tests against the CPU.
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "gpuvis/core/image.hpp"

namespace gpuvis::test {

// The samples of `got` outside the tolerance around `want`.
template <class T>
int convolve_differences(const Image<T>& got, const Image<T>& want, double scale) {
  int bad = 0;
  for (int y = 0; y < got.height(); ++y)
    for (int i = 0; i < got.width() * got.channels(); ++i) {
      const double x = got.row(y)[i], z = want.row(y)[i];
      bad += std::is_same_v<T, float> ? std::abs(x - z) > 1e-5 * std::max({1.0, std::abs(z), scale}) : std::abs(x - z) > 1;
    }
  return bad;
}

}  // namespace gpuvis::test

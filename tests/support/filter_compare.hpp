#pragma once
// The tolerance between two backends' convolutions: within 1 LSB for integer samples and 1e-5
// relative to the terms' magnitude (`scale`: the kernel's L1 norm times the largest sample) for
// floats (docs/filters.md). Used by the CUDA and OpenCL tests against the CPU.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <type_traits>

#include <gtest/gtest.h>

#include "filters/filter_backends.hpp"
#include "gpuvis/core/image.hpp"
#include "test_support.hpp"

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

// A backend's convolution against the CPU's on random w x h images of 1, 3 and 4 channels, for every
// kernel of `kernels` and every border: `run(src, dst, kernel, options)` runs the backend. With
// `flip_some`, every third case convolves with the kernel flipped.
template <class T, class Run>
void expect_convolution_like_the_cpu(int w, int h, std::uint32_t seed, std::initializer_list<const char*> kernels, Run&& run,
                                     bool flip_some = false) {
  for (int c : {1, 3, 4})
    for (const char* ks : kernels)
      for (const char* bs : {"constant:3", "replicate", "reflect", "reflect101", "wrap"}) {
        const auto src = random_typed<T>(w, h, c, seed++, -100.f, 1000.f);
        const filters::Kernel k = filters::parse_kernel(ks);
        filters::ConvolveParams o;
        o.border = filters::parse_border(bs);
        o.flip = flip_some && seed % 3 == 0;
        Image<T> cpu(w, h, c), other(w, h, c);
        filters::convolve_cpu<T>(src.view(), cpu.view(), k, o);
        run(src.view(), other.view(), k, o);
        double l1 = 0;
        for (float v : k.weights) l1 += std::abs(v);
        EXPECT_EQ(convolve_differences(other, cpu, l1 * 1000), 0) << ks << " " << bs << " c=" << c << " " << w << "x" << h;
      }
}

// A backend's 8-bit smoothing in fixed point (filters/smooth_fixed.hpp) against the CPU's, byte for
// byte: kernels of 3 to 33 taps, every border, 1, 3 and 4 channels, whole images and strips of a few
// rows (`strip_budget` bytes of device memory). `run(src, dst, kernel, options)` runs the backend.
template <class Run>
void expect_fixed_smoothing_like_the_cpu(std::uint32_t seed, std::size_t strip_budget, Run&& run) {
  for (const char* ks : {"gaussian:sigma=2", "box:3", "box:33x5", "gaussian:sigma=5.3", "1,2,1;2,4,2;1,2,1/16"})
    for (const char* bs : {"reflect101", "reflect", "replicate", "wrap", "constant:9"})
      for (int c : {1, 3, 4}) {
        const auto src = random_typed<std::uint8_t>(203, 77, c, seed++);
        const filters::Kernel k = filters::parse_kernel(ks);
        filters::ConvolveParams o;
        o.border = filters::parse_border(bs);
        ASSERT_TRUE(filters::detail::fixed_smoothing(filters::separate(k), o.border)) << ks;
        Image<std::uint8_t> cpu(203, 77, c), whole(203, 77, c), strips(203, 77, c);
        filters::convolve_cpu<std::uint8_t>(src.view(), cpu.view(), k, o);
        run(src.view(), whole.view(), k, o);
        EXPECT_EQ(count_differences<std::uint8_t>(cpu.view(), whole.view()), 0u) << ks << " " << bs << " c=" << c;
        o.max_gpu_memory = strip_budget;
        run(src.view(), strips.view(), k, o);
        EXPECT_EQ(count_differences<std::uint8_t>(cpu.view(), strips.view()), 0u) << ks << " " << bs << " c=" << c << " strips";
      }
}

}  // namespace gpuvis::test

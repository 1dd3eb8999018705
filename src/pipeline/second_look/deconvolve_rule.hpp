#pragma once
// One pixel of one step of the deconvolution (motion_blur.hpp's deconvolve) as the CUDA deconvolver
// (cuda/deconvolve.cu) computes it: every operation of the CPU's, in its order, each rounded on its
// own (no fused multiply-add: the device's _rn intrinsics; on the host, plain operations compiled
// without contraction), so that the device restores the CPU's bits. The CPU's own loops are
// vectorised over padded rows instead; the test SecondLook.TheDeviceDeconvolutionRuleRestoresTheCpusBits runs
// these on the host against them.
//
// Images are w x h floats, rows packed; i = y * w + x.
#include "gpuvis/core/image.hpp"
#include "pipeline/second_look/motion_blur.hpp"

namespace gpuvis::pipeline::second_look::rule {

GPUVIS_HD inline float add(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
GPUVIS_HD inline float sub(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fsub_rn(a, b);
#else
  return a - b;
#endif
}
GPUVIS_HD inline float mul(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
// 1 / sqrt(a), both correctly rounded.
GPUVIS_HD inline float inverse_root(float a) {
#ifdef __CUDA_ARCH__
  return __fdiv_rn(1.0f, __fsqrt_rn(a));
#else
  return 1.0f / __builtin_sqrtf(a);
#endif
}
// std::clamp's result: lo where v < lo, hi where hi < v, else v.
GPUVIS_HD inline float clamp(float v, float lo, float hi) { return v < lo ? lo : hi < v ? hi : v; }
GPUVIS_HD inline int clamp_index(int i, int n) { return i < 0 ? 0 : i >= n ? n - 1 : i; }

// Σ weight · in(x - s·dx, y - s·dy), edges replicated, summed from 0 in the taps' order
// (convolve_taps); s = -1: the mirrored kernel, the adjoint.
template <int kSign>
GPUVIS_HD inline float convolve_at(const float* in, int w, int h, int x, int y, const Tap* taps, int count) {
  float acc = 0.0f;
  for (int k = 0; k < count; ++k) {
    const Tap t = taps[k];
    acc = add(acc, mul(t.weight, in[clamp_index(y - kSign * t.dy, h) * w + clamp_index(x - kSign * t.dx, w)]));
  }
  return acc;
}

// Σ weight[j] · in[column[j]] over the entries j of row i of a blur matrix (BlurMatrix: its
// row_start, column and weight arrays), summed from 0 in their order (multiply).
GPUVIS_HD inline float row_sum_at(const float* in, const int* row_start, const int* column, const float* weight, int i) {
  float acc = 0.0f;
  for (int j = row_start[i]; j < row_start[i + 1]; ++j) acc = add(acc, mul(weight[j], in[column[j]]));
  return acc;
}

// The smoothed total variation's normalised gradient of v at (x, y): forward differences, zero past
// the last column and row. (The CPU's last column computes 0·0 + dy·dy, which is dy·dy: the same
// bits as dx = 0 here.)
GPUVIS_HD inline void tv_normal_at(const float* v, int w, int h, int x, int y, float& nx, float& ny) {
  constexpr float eps2 = kTvEpsilon * kTvEpsilon;
  const int i = y * w + x;
  const float dx = x + 1 < w ? sub(v[i + 1], v[i]) : 0.0f;
  const float dy = sub(v[(y + 1 < h ? y + 1 : y) * w + x], v[i]);
  const float inv = inverse_root(add(add(mul(dx, dx), mul(dy, dy)), eps2));
  nx = mul(dx, inv);
  ny = mul(dy, inv);
}

// The data term's gradient g at (x, y) with the smoothness term's, lambda · div(n), taken off.
GPUVIS_HD inline float with_smoothness(float g, const float* nx, const float* ny, int w, int x, int y, float lambda) {
  const int i = y * w + x;
  const float left = x > 0 ? nx[i - 1] : 0.0f, above = y > 0 ? ny[i - w] : 0.0f;
  return sub(g, mul(lambda, sub(add(sub(nx[i], left), ny[i]), above)));
}

// FISTA's projected step at one pixel: u the estimate, v the point the step starts from.
GPUVIS_HD inline void step_at(float& u, float& v, float g, float step, float momentum, float lo, float hi) {
  const float next = clamp(sub(v, mul(step, g)), lo, hi);
  v = clamp(add(next, mul(momentum, sub(next, u))), lo, hi);
  u = next;
}

}  // namespace gpuvis::pipeline::second_look::rule

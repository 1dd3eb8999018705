#pragma once
// Mean shift's per-voxel arithmetic for the CPU and CUDA backends (GPUVIS_HD): C++ names over the
// C rules every backend compiles (filters/mean_shift_rule.h for the colour conversion, features,
// samples and weights; filters/mean_shift_step.h for the climb's step, one function per channel
// count, kernel and number of axes), so the CPU, CUDA and OpenCL backends compute the same floats
// in the same order. The files that use them are built with no FMA contraction (CMakeLists).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "gpuvis/core/image.hpp"  // GPUVIS_HD

namespace gpuvis::filters::mean_shift_rules {

GPUVIS_HD inline float from_bits(std::int32_t i) {
#ifdef __CUDA_ARCH__
  return __int_as_float(i);
#else
  float f;
  std::memcpy(&f, &i, sizeof f);
  return f;
#endif
}
GPUVIS_HD inline std::int32_t to_bits(float f) {
#ifdef __CUDA_ARCH__
  return __float_as_int(f);
#else
  std::int32_t i;
  std::memcpy(&i, &f, sizeof i);
  return i;
#endif
}

// A voxel's features on the host (plain reads) or the device (one vector load for 2 to 4 lanes).
template <int C>
GPUVIS_HD inline void load_features(const float* f, long long i, float* v) {
#ifdef __CUDA_ARCH__
  if constexpr (C >= 3) {
    const float4 q = __ldg(reinterpret_cast<const float4*>(f) + i);
    v[0] = q.x, v[1] = q.y, v[2] = q.z;
    if constexpr (C == 4) v[3] = q.w;
  } else if constexpr (C == 2) {
    const float2 q = __ldg(reinterpret_cast<const float2*>(f) + i);
    v[0] = q.x, v[1] = q.y;
  } else {
    v[0] = __ldg(f + i);
  }
#else
  for (int c = 0; c < C; ++c) v[c] = f[i * (C == 3 ? 4 : C) + c];
#endif
}

#define GPUVIS_RULE GPUVIS_HD static inline
#define GPUVIS_MS_FLOAT_BITS(f) to_bits(f)
#define GPUVIS_MS_BITS_FLOAT(i) from_bits(i)
#define GPUVIS_MS_FLOOR(x) floorf(x)
#define GPUVIS_MS_CEIL(x) ceilf(x)
#define GPUVIS_MS_SQRT(x) sqrtf(x)
#define GPUVIS_MS_I64 long long
#define GPUVIS_MS_LOAD(f, i, v) load_features<GPUVIS_MS_C>(f, i, v)
#include "filters/mean_shift_rule.h"

// step<C, Gaussian, Dims>: mean_shift_step.h compiled for each channel count, kernel and number of
// axes.
template <int C, bool Gaussian, int Dims>
struct StepOf;
#define GPUVIS_MS_C 1
#include "filters/mean_shift_step_variants.inc"
#undef GPUVIS_MS_C
#define GPUVIS_MS_C 2
#include "filters/mean_shift_step_variants.inc"
#undef GPUVIS_MS_C
#define GPUVIS_MS_C 3
#include "filters/mean_shift_step_variants.inc"
#undef GPUVIS_MS_C
#define GPUVIS_MS_C 4
#include "filters/mean_shift_step_variants.inc"
#undef GPUVIS_MS_C
#undef GPUVIS_MS_LOAD
#undef GPUVIS_RULE

// Floats per voxel in memory: 3 channels are padded to 4 so that a voxel is one aligned load.
template <int C>
constexpr int lanes = GPUVIS_MS_LANES(C);

using Space = gpuvis_ms_space;
using Conversion = gpuvis_ms_conversion;
template <int C>
using Point = gpuvis_ms_point;

GPUVIS_HD inline float sq(float v) { return gpuvis_ms_sq(v); }
GPUVIS_HD inline float cube_root(float y) { return gpuvis_ms_cube_root(y); }
GPUVIS_HD inline float exp_minus_2(float d2) { return gpuvis_ms_exp_minus_2(d2); }

// R, G, B in [0, full] to L*, u*, v*, and back (not clamped).
GPUVIS_HD inline void rgb_to_luv(const float rgb[3], float full, float luv[3]) { gpuvis_ms_rgb_to_luv(rgb, full, luv); }
GPUVIS_HD inline void luv_to_rgb(const float luv[3], float full, float rgb[3]) { gpuvis_ms_luv_to_rgb(luv, full, rgb); }

// A sample value as a sample of type T: float samples as they are, integers clamped and rounded.
template <class T>
GPUVIS_HD inline T to_sample(float v, float full) {
  if constexpr (std::is_floating_point_v<T>) return v;
  else return static_cast<T>(gpuvis_ms_integer_sample(v, full));
}

// Samples s[0..C) of one voxel to features f[0..lanes<C>) (padding lanes 0).
template <int C, class T>
GPUVIS_HD inline void to_features(const T* s, const Conversion& k, float* f) {
  float v[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int c = 0; c < C; ++c) v[c] = static_cast<float>(s[c]);
  gpuvis_ms_features(v, &k, f);
}

// A mode's features m[0..C) back to samples.
template <int C, class T>
GPUVIS_HD inline void to_samples(const float* m, const Conversion& k, T* s) {
  float v[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  gpuvis_ms_samples(m, &k, v);
  for (int c = 0; c < C; ++c) s[c] = to_sample<T>(v[c], k.full);
}

// One mean shift step of p over the features f (lanes<C> floats a voxel); true when the climb has
// ended (mean_shift_step.h).
template <int C, bool Gaussian, int Dims>
GPUVIS_HD inline bool step(Point<C>& p, const Space& g, float eps, const float* f) {
  return StepOf<C, Gaussian, Dims>::step(&p, &g, eps, f) != 0;
}

// The start of voxel i's climb: its own position and features.
template <int C>
GPUVIS_HD inline Point<C> start(long long i, const Space& g, const float* f) {
  return gpuvis_ms_start(i, &g, f, C);
}

// Calls fn(std::integral_constant<bool, Gaussian>, std::integral_constant<int, Dims>) for a call's
// kernel and number of axes, to pick the step compiled for them.
template <class Fn>
void with_variant(bool gaussian, const Space& g, Fn&& fn) {
  const int dims = g.frames > 1 ? 4 : g.depth > 1 ? 3 : 2;
  const auto by_dims = [&](auto gauss) {
    if (dims == 4) fn(gauss, std::integral_constant<int, 4>{});
    else if (dims == 3) fn(gauss, std::integral_constant<int, 3>{});
    else fn(gauss, std::integral_constant<int, 2>{});
  };
  if (gaussian) by_dims(std::true_type{});
  else by_dims(std::false_type{});
}

}  // namespace gpuvis::filters::mean_shift_rules

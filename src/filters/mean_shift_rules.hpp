#pragma once
// Mean shift's per-voxel arithmetic, written once for the CPU and CUDA backends (GPUVIS_HD): the
// colour conversion, the feature space, the window, the kernels, the neighbour structure and the
// stopping rule, for images, volumes and sequences of volumes. Both backends compile these with no
// FMA contraction (CMakeLists), so they compute the same floats in the same order.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "gpuvis/core/image.hpp"  // GPUVIS_HD

namespace gpuvis::filters::mean_shift_rules {

GPUVIS_HD inline int max_int(int a, int b) { return a > b ? a : b; }
GPUVIS_HD inline int min_int(int a, int b) { return a < b ? a : b; }

// Floats per voxel in memory: 3 channels are padded to 4 so that a voxel is one aligned load.
template <int C>
constexpr int lanes = C == 3 ? 4 : C;

// ---- Colour -------------------------------------------------------------------------------------

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

// Cube root of y > 0 by three Halley steps from the exponent-thirding guess (relative error of
// the guess under 4 %, of the result a few ulps): only + * /, so both backends agree to the bit,
// where the host's cbrt and the device's cbrtf differ in the last bits.
GPUVIS_HD inline float cube_root(float y) {
  float t = from_bits(to_bits(y) / 3 + 709921077);
  for (int i = 0; i < 3; ++i) {
    const float t3 = t * t * t;
    t = t * (t3 + 2.0f * y) / (2.0f * t3 + y);
  }
  return t;
}

// EDISON's constants: sRGB primaries with D65 white, no gamma (the study's conversion).
struct LuvConstants {
  float to_xyz[3][3] = {{0.4125f, 0.3576f, 0.1804f}, {0.2125f, 0.7154f, 0.0721f}, {0.0193f, 0.1192f, 0.9502f}};
  float from_xyz[3][3] = {{3.2405f, -1.5371f, -0.4985f}, {-0.9693f, 1.8760f, 0.0416f}, {0.0556f, -0.2040f, 1.0573f}};
  float un = 0.19784977571475f, vn = 0.46834507665248f, y_threshold = 0.008856f;
};

// R, G, B in [0, full] to L*, u*, v*.
GPUVIS_HD inline void rgb_to_luv(const float rgb[3], float full, float luv[3]) {
  const LuvConstants k;
  float xyz[3];
  for (int i = 0; i < 3; ++i) xyz[i] = (k.to_xyz[i][0] * rgb[0] + k.to_xyz[i][1] * rgb[1] + k.to_xyz[i][2] * rgb[2]) / full;
  const float y = xyz[1];
  const float l = y > k.y_threshold ? 116.0f * cube_root(y) - 16.0f : 903.3f * y;
  const float den = xyz[0] + 15.0f * xyz[1] + 3.0f * xyz[2];
  luv[0] = l;
  if (den <= 0.0f) {
    luv[1] = luv[2] = 0.0f;
    return;
  }
  luv[1] = 13.0f * l * (4.0f * xyz[0] / den - k.un);
  luv[2] = 13.0f * l * (9.0f * xyz[1] / den - k.vn);
}

// L*, u*, v* to R, G, B in [0, full] (not clamped).
GPUVIS_HD inline void luv_to_rgb(const float luv[3], float full, float rgb[3]) {
  const LuvConstants k;
  const float l = luv[0];
  if (l <= 0.0f) {
    rgb[0] = rgb[1] = rgb[2] = 0.0f;
    return;
  }
  const float c = (l + 16.0f) / 116.0f;
  const float y = l > 8.0f ? c * c * c : l / 903.3f;
  const float up = luv[1] / (13.0f * l) + k.un, vp = luv[2] / (13.0f * l) + k.vn;
  const float x = 9.0f * up * y / (4.0f * vp);
  const float z = (12.0f - 3.0f * up - 20.0f * vp) * y / (4.0f * vp);
  for (int i = 0; i < 3; ++i) rgb[i] = full * (k.from_xyz[i][0] * x + k.from_xyz[i][1] * y + k.from_xyz[i][2] * z);
}

// ---- Features -----------------------------------------------------------------------------------

// How a voxel's samples become its range features and a mode becomes samples again.
struct Conversion {
  int channels;        // 1..4
  bool luv;            // the first three channels through L*u*v*
  float full;          // the sample value of full intensity (255, 65535, or 1 for float)
  float inv_range[4];  // 1 / h_r per channel
  float range[4];      // h_r per channel
};

template <class T>
GPUVIS_HD inline T to_sample(float v, float full) {
  if constexpr (std::is_floating_point_v<T>) {
    return v;  // float samples are kept as they are
  } else {
    v = v < 0.0f ? 0.0f : (v > full ? full : v);
    return static_cast<T>(floorf(v + 0.5f));
  }
}

// Samples s[0..C) of one voxel to features f[0..lanes<C>) (padding lanes 0).
template <int C, class T>
GPUVIS_HD inline void to_features(const T* s, const Conversion& k, float* f) {
  float v[lanes<C>];
  for (int c = 0; c < C; ++c) v[c] = static_cast<float>(s[c]);
  if constexpr (C >= 3) {
    if (k.luv) {
      float luv[3];
      rgb_to_luv(v, k.full, luv);
      for (int c = 0; c < 3; ++c) v[c] = luv[c];
    }
  }
  for (int c = 0; c < C; ++c) f[c] = v[c] * k.inv_range[c];
  for (int c = C; c < lanes<C>; ++c) f[c] = 0.0f;
}

// A mode's features m[0..C) back to samples.
template <int C, class T>
GPUVIS_HD inline void to_samples(const float* m, const Conversion& k, T* s) {
  float v[C];
  for (int c = 0; c < C; ++c) v[c] = m[c] * k.range[c];
  if constexpr (C >= 3) {
    if (k.luv) {
      float rgb[3];
      luv_to_rgb(v, k.full, rgb);
      for (int c = 0; c < 3; ++c) v[c] = rgb[c];
    }
  }
  for (int c = 0; c < C; ++c) s[c] = to_sample<T>(v[c], k.full);
}

// ---- The climb ----------------------------------------------------------------------------------

// The grid a climb runs on: width x height pixels in each of `depth` slices of each of `frames`
// frames; voxel (x, y, z, t) is number ((t * depth + z) * height + y) * width + x, and its row is
// ((t * depth + z) * height + y).
struct Space {
  int width, height, depth, frames;
  float hs, hz, ht;
};

template <int C>
struct Point {
  float x, y, z, t;  // position in voxels
  float r[C];        // range features
  int steps;
};

GPUVIS_HD inline float sq(float v) { return v * v; }

// Weight of a point at squared normalised distance d2 <= 1.
// The Gaussian's exp(-2 d2) for d2 in [0, 1] as (e^u)^4, u = -d2 / 2, with e^u from its Taylor
// polynomial of degree 7 (relative error under 5e-7): the same float operations on both backends,
// where the host's and the device's expf differ in the last bits and so would the modes.
GPUVIS_HD inline float exp_minus_2(float d2) {
  const float u = -0.5f * d2;
  float e = 1.0f / 5040.0f;
  e = e * u + 1.0f / 720.0f;
  e = e * u + 1.0f / 120.0f;
  e = e * u + 1.0f / 24.0f;
  e = e * u + 1.0f / 6.0f;
  e = e * u + 0.5f;
  e = e * u + 1.0f;
  e = e * u + 1.0f;
  const float e2 = e * e;
  return e2 * e2;
}

// One mean shift step of p: the weighted mean of the voxels within distance 1 of it, visited in
// voxel order. The voxel grid is the neighbour structure: each row of the window is cut to the
// voxels inside the spatial ball, so only those are visited. `feature(i, v)` loads voxel i's
// features into v[0..C). Returns true when the climb has ended (a step shorter than eps, or an
// empty window). Compiled per kernel and per number of axes (Dims: 2 image, 3 volume, 4 sequence):
// the axes a grid does not have contribute exact zeros, which are left out, and the flat kernel's
// weight of one is not multiplied in, so every variant gives the general formula's floats.
template <int C, bool Gaussian, int Dims, class Feature>
GPUVIS_HD bool step(Point<C>& p, const Space& g, float eps, const Feature& feature) {
  const float inv_hs2 = 1.0f / (g.hs * g.hs), inv_hz2 = 1.0f / (g.hz * g.hz), inv_ht2 = 1.0f / (g.ht * g.ht);
  const int x0 = max_int(0, static_cast<int>(ceilf(p.x - g.hs))), x1 = min_int(g.width - 1, static_cast<int>(floorf(p.x + g.hs)));
  const int y0 = max_int(0, static_cast<int>(ceilf(p.y - g.hs))), y1 = min_int(g.height - 1, static_cast<int>(floorf(p.y + g.hs)));
  const int z0 = Dims >= 3 ? max_int(0, static_cast<int>(ceilf(p.z - g.hz))) : 0;
  const int z1 = Dims >= 3 ? min_int(g.depth - 1, static_cast<int>(floorf(p.z + g.hz))) : 0;
  const int t0 = Dims >= 4 ? max_int(0, static_cast<int>(ceilf(p.t - g.ht))) : 0;
  const int t1 = Dims >= 4 ? min_int(g.frames - 1, static_cast<int>(floorf(p.t + g.ht))) : 0;
  float wsum = 0, mx = 0, my = 0, mz = 0, mt = 0, mr[C];
  for (int c = 0; c < C; ++c) mr[c] = 0;
  for (int t = t0; t <= t1; ++t) {
    const float dt2 = Dims >= 4 ? sq(static_cast<float>(t) - p.t) * inv_ht2 : 0.0f;
    for (int z = z0; z <= z1; ++z) {
      const float dz2 = Dims >= 3 ? sq(static_cast<float>(z) - p.z) * inv_hz2 : 0.0f;
      // The spatial part of d^2 of a voxel at horizontal distance dx, in the general formula's order.
      const auto spatial = [&](float dx, float dy) {
        float d2 = (dx * dx + dy * dy) * inv_hs2;
        if constexpr (Dims >= 3) d2 += dz2;
        if constexpr (Dims >= 4) d2 += dt2;
        return d2;
      };
      for (int y = y0; y <= y1; ++y) {
        const float dy = static_cast<float>(y) - p.y;
        const long long row = (static_cast<long long>(t) * g.depth + z) * g.height + y;
        // The row's voxels within the spatial ball: |dx| <= h_s sqrt(1 - rest of d^2), widened by a
        // margin far above float rounding, so that no voxel the plain scan would weigh is left out.
        const float rest = 1.0f - spatial(0.0f, dy);
        if (rest < 0.0f) continue;
        const float reach = sqrtf(rest) * g.hs * 1.0001f + 0.01f;
        const int xa = max_int(x0, static_cast<int>(ceilf(p.x - reach))), xb = min_int(x1, static_cast<int>(floorf(p.x + reach)));
        for (int x = xa; x <= xb; ++x) {
          float d2 = spatial(static_cast<float>(x) - p.x, dy);
          if (d2 > 1.0f) continue;
          float v[lanes<C>];
          feature(row * g.width + x, v);
          for (int c = 0; c < C; ++c) {
            const float d = v[c] - p.r[c];
            d2 += d * d;
          }
          if (d2 > 1.0f) continue;
          if constexpr (Gaussian) {
            const float w = exp_minus_2(d2);
            wsum += w;
            mx += w * static_cast<float>(x);
            my += w * static_cast<float>(y);
            if constexpr (Dims >= 3) mz += w * static_cast<float>(z);
            if constexpr (Dims >= 4) mt += w * static_cast<float>(t);
            for (int c = 0; c < C; ++c) mr[c] += w * v[c];
          } else {
            wsum += 1.0f;
            mx += static_cast<float>(x);
            my += static_cast<float>(y);
            if constexpr (Dims >= 3) mz += static_cast<float>(z);
            if constexpr (Dims >= 4) mt += static_cast<float>(t);
            for (int c = 0; c < C; ++c) mr[c] += v[c];
          }
        }
      }
    }
  }
  ++p.steps;
  if (wsum <= 0.0f) return true;  // no point in the window: the climb stays where it is
  const float nx = mx / wsum, ny = my / wsum;
  float shift2 = (sq(nx - p.x) + sq(ny - p.y)) * inv_hs2;
  if constexpr (Dims >= 3) {
    const float nz = mz / wsum;
    shift2 += sq(nz - p.z) * inv_hz2;
    p.z = nz;
  }
  if constexpr (Dims >= 4) {
    const float nt = mt / wsum;
    shift2 += sq(nt - p.t) * inv_ht2;
    p.t = nt;
  }
  for (int c = 0; c < C; ++c) {
    const float nr = mr[c] / wsum;
    shift2 += sq(nr - p.r[c]);
    p.r[c] = nr;
  }
  p.x = nx;
  p.y = ny;
  return shift2 < eps * eps;
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

// The start of voxel i's climb: its own position and features.
template <int C>
GPUVIS_HD Point<C> start(long long i, const Space& g, const float* f) {
  Point<C> p;
  const long long row = i / g.width;
  p.x = static_cast<float>(i - row * g.width);
  p.y = static_cast<float>(row % g.height);
  const long long slice = row / g.height;
  p.z = static_cast<float>(slice % g.depth);
  p.t = static_cast<float>(slice / g.depth);
  for (int c = 0; c < C; ++c) p.r[c] = f[c];
  p.steps = 0;
  return p;
}

}  // namespace gpuvis::filters::mean_shift_rules

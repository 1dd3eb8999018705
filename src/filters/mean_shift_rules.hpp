#pragma once
// Mean shift's per-pixel climb, written once for the CPU backend and the CUDA backend to come
// (GPUVIS_HD): the feature space, the window, the kernels and the stopping rule.
#include <cmath>

#include "gpuvis/core/image.hpp"  // GPUVIS_HD

namespace gpuvis::filters::mean_shift_rules {

GPUVIS_HD inline int max_int(int a, int b) { return a > b ? a : b; }
GPUVIS_HD inline int min_int(int a, int b) { return a < b ? a : b; }

// Weight of a point at squared normalised distance d2 (0 outside the unit ball).
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

GPUVIS_HD inline float weight(float d2, bool gaussian) {
  if (d2 > 1.0f) return 0.0f;
  return gaussian ? exp_minus_2(d2) : 1.0f;
}

// Climbs from pixel (px, py) whose range values are `start[0..C)` (already divided by h_r).
// `value(x, y, c)` returns pixel (x, y)'s channel c divided by h_r. Writes the mode's range part
// into `mode` and returns the number of steps taken.
template <int C, class Value>
GPUVIS_HD int climb(int px, int py, const float* start, int width, int height, float hs, bool gaussian, float eps, int max_iter,
                    const Value& value, float* mode) {
  float sx = static_cast<float>(px), sy = static_cast<float>(py);  // spatial position in pixels
  float r[C];
  for (int c = 0; c < C; ++c) r[c] = start[c];
  const float inv_hs2 = 1.0f / (hs * hs);
  int steps = 0;
  while (steps < max_iter) {
    // Candidates: pixels whose spatial distance to (sx, sy) is at most h_s, inside the image.
    const int x0 = max_int(0, static_cast<int>(ceilf(sx - hs))), x1 = min_int(width - 1, static_cast<int>(floorf(sx + hs)));
    const int y0 = max_int(0, static_cast<int>(ceilf(sy - hs))), y1 = min_int(height - 1, static_cast<int>(floorf(sy + hs)));
    float wsum = 0, mx = 0, my = 0, mr[C];
    for (int c = 0; c < C; ++c) mr[c] = 0;
    for (int y = y0; y <= y1; ++y) {
      const float dy = static_cast<float>(y) - sy;
      for (int x = x0; x <= x1; ++x) {
        const float dx = static_cast<float>(x) - sx;
        float d2 = (dx * dx + dy * dy) * inv_hs2;
        if (d2 > 1.0f) continue;
        float v[C];
        for (int c = 0; c < C; ++c) {
          v[c] = value(x, y, c);
          const float d = v[c] - r[c];
          d2 += d * d;
        }
        const float w = weight(d2, gaussian);
        if (w <= 0.0f) continue;
        wsum += w;
        mx += w * static_cast<float>(x);
        my += w * static_cast<float>(y);
        for (int c = 0; c < C; ++c) mr[c] += w * v[c];
      }
    }
    ++steps;
    if (wsum <= 0.0f) break;  // no point in the window: the climb stays where it is
    const float nx = mx / wsum, ny = my / wsum;
    float shift2 = ((nx - sx) * (nx - sx) + (ny - sy) * (ny - sy)) * inv_hs2;
    for (int c = 0; c < C; ++c) {
      const float nr = mr[c] / wsum;
      shift2 += (nr - r[c]) * (nr - r[c]);
      r[c] = nr;
    }
    sx = nx;
    sy = ny;
    if (shift2 < eps * eps) break;
  }
  for (int c = 0; c < C; ++c) mode[c] = r[c];
  return steps;
}

}  // namespace gpuvis::filters::mean_shift_rules

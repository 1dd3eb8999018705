#pragma once
// Mean shift's per-voxel climb, written once for the CPU and CUDA backends (GPUVIS_HD): the
// feature space, the window, the kernels and the stopping rule, for images and volumes.
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

// The grid a climb runs on: width x height pixels in each of `depth` slices (1 for an image), the
// spatial bandwidth h_s within a slice and h_z across slices.
struct Grid {
  int width, height, depth;
  float hs, hz;
};

// Climbs from voxel (px, py, pz) whose range values are `start[0..C)` (already divided by h_r).
// `value(x, y, z, c)` returns voxel (x, y, z)'s channel c divided by h_r. Writes the mode's range
// part into `mode` and returns the number of steps taken. An image is a grid of depth 1: every z
// term is then an exact zero, and the climb is the 2D one bit for bit.
template <int C, class Value>
GPUVIS_HD int climb(int px, int py, int pz, const float* start, const Grid& g, bool gaussian, float eps, int max_iter,
                    const Value& value, float* mode) {
  float sx = static_cast<float>(px), sy = static_cast<float>(py), sz = static_cast<float>(pz);  // position in voxels
  float r[C];
  for (int c = 0; c < C; ++c) r[c] = start[c];
  const float hs = g.hs, hz = g.hz;
  const float inv_hs2 = 1.0f / (hs * hs), inv_hz2 = 1.0f / (hz * hz);
  int steps = 0;
  while (steps < max_iter) {
    // Candidates: voxels whose spatial distance to (sx, sy, sz) is at most 1 in bandwidth units.
    const int x0 = max_int(0, static_cast<int>(ceilf(sx - hs))), x1 = min_int(g.width - 1, static_cast<int>(floorf(sx + hs)));
    const int y0 = max_int(0, static_cast<int>(ceilf(sy - hs))), y1 = min_int(g.height - 1, static_cast<int>(floorf(sy + hs)));
    const int z0 = max_int(0, static_cast<int>(ceilf(sz - hz))), z1 = min_int(g.depth - 1, static_cast<int>(floorf(sz + hz)));
    float wsum = 0, mx = 0, my = 0, mz = 0, mr[C];
    for (int c = 0; c < C; ++c) mr[c] = 0;
    for (int z = z0; z <= z1; ++z) {
      const float dz = static_cast<float>(z) - sz;
      const float dz2 = dz * dz * inv_hz2;
      for (int y = y0; y <= y1; ++y) {
        const float dy = static_cast<float>(y) - sy;
        for (int x = x0; x <= x1; ++x) {
          const float dx = static_cast<float>(x) - sx;
          float d2 = (dx * dx + dy * dy) * inv_hs2 + dz2;
          if (d2 > 1.0f) continue;
          float v[C];
          for (int c = 0; c < C; ++c) {
            v[c] = value(x, y, z, c);
            const float d = v[c] - r[c];
            d2 += d * d;
          }
          const float w = weight(d2, gaussian);
          if (w <= 0.0f) continue;
          wsum += w;
          mx += w * static_cast<float>(x);
          my += w * static_cast<float>(y);
          mz += w * static_cast<float>(z);
          for (int c = 0; c < C; ++c) mr[c] += w * v[c];
        }
      }
    }
    ++steps;
    if (wsum <= 0.0f) break;  // no point in the window: the climb stays where it is
    const float nx = mx / wsum, ny = my / wsum, nz = mz / wsum;
    float shift2 = ((nx - sx) * (nx - sx) + (ny - sy) * (ny - sy)) * inv_hs2 + (nz - sz) * (nz - sz) * inv_hz2;
    for (int c = 0; c < C; ++c) {
      const float nr = mr[c] / wsum;
      shift2 += (nr - r[c]) * (nr - r[c]);
      r[c] = nr;
    }
    sx = nx;
    sy = ny;
    sz = nz;
    if (shift2 < eps * eps) break;
  }
  for (int c = 0; c < C; ++c) mode[c] = r[c];
  return steps;
}

}  // namespace gpuvis::filters::mean_shift_rules

/* Mean shift's per-voxel arithmetic that does not depend on the channel count, the kernel or the
   number of axes, in the C that g++, nvcc and the OpenCL C compiler all accept: the colour
   conversion (EDISON's L*u*v*), the features and samples, the Gaussian's weight and the climb's
   space. The climb's step, compiled per variant, is filters/mean_shift_step.h. The CPU and CUDA
   backends compile both through filters/mean_shift_rules.hpp, the OpenCL backend through
   filters/opencl/mean_shift.cl, so all three compute the same floats in the same order: the files
   that use them are built without FMA contraction (OpenCL: the pragma below) and OpenCL programs
   with correctly rounded division and square root.

   The includer may define, before including it (OpenCL C's built-ins are the defaults):
     GPUVIS_RULE                 the functions' qualifiers (default: static inline)
     GPUVIS_MS_FLOAT_BITS(f)     the int whose bits are the float f
     GPUVIS_MS_BITS_FLOAT(i)     the float whose bits are the int i
     GPUVIS_MS_FLOOR, GPUVIS_MS_CEIL, GPUVIS_MS_SQRT   the float functions
     GPUVIS_MS_I64               a signed 64-bit integer type */
#ifndef GPUVIS_FILTERS_MEAN_SHIFT_RULE_H
#define GPUVIS_FILTERS_MEAN_SHIFT_RULE_H

#ifndef GPUVIS_RULE
#define GPUVIS_RULE static inline
#endif
#ifndef GPUVIS_MS_FLOAT_BITS
#define GPUVIS_MS_FLOAT_BITS(f) as_int(f)
#endif
#ifndef GPUVIS_MS_BITS_FLOAT
#define GPUVIS_MS_BITS_FLOAT(i) as_float(i)
#endif
#ifndef GPUVIS_MS_FLOOR
#define GPUVIS_MS_FLOOR(x) floor(x)
#endif
#ifndef GPUVIS_MS_CEIL
#define GPUVIS_MS_CEIL(x) ceil(x)
#endif
#ifndef GPUVIS_MS_SQRT
#define GPUVIS_MS_SQRT(x) sqrt(x)
#endif
#ifndef GPUVIS_MS_I64
#define GPUVIS_MS_I64 long
#endif
#if defined(__OPENCL_VERSION__)
#pragma OPENCL FP_CONTRACT OFF
#endif

/* Floats per voxel in memory: 3 channels are padded to 4 so that a voxel is one aligned load. */
#define GPUVIS_MS_LANES(c) ((c) == 3 ? 4 : (c))

/* The grid a climb runs on: width x height pixels in each of `depth` slices of each of `frames`
   frames; voxel (x, y, z, t) is number ((t * depth + z) * height + y) * width + x, and its row is
   ((t * depth + z) * height + y). hs, hz, ht: the bandwidths along x and y, z, t. */
typedef struct gpuvis_ms_space_s {
  int width, height, depth, frames;
  float hs, hz, ht;
} gpuvis_ms_space;

/* How a voxel's samples become its range features and a mode becomes samples again. */
typedef struct gpuvis_ms_conversion_s {
  int channels;        /* 1..4 */
  int luv;             /* the first three channels through L*u*v* (0 or 1) */
  float full;          /* the sample value of full intensity (255, 65535, or 1 for float) */
  float inv_range[4];  /* 1 / h_r per channel */
  float range[4];      /* h_r per channel */
} gpuvis_ms_conversion;

/* A climb: its position in voxels relative to the voxel it started from (ox, oy, oz, ot), its range
   features (the first `channels` of r) and its steps. The position is kept relative so that the
   arithmetic does not depend on where the image lies: a float sum of coordinates near 400 rounds
   differently from one near 7, so with absolute positions a crop of an image (a chunk of a Dask
   array) gave a pixel another mode than the whole image did. Relative to its start every climb
   computes the same floats wherever it is. */
typedef struct gpuvis_ms_point_s {
  float x, y, z, t;
  int ox, oy, oz, ot;
  float r[4];
  int steps;
} gpuvis_ms_point;

GPUVIS_RULE int gpuvis_ms_max_int(int a, int b) { return a > b ? a : b; }
GPUVIS_RULE int gpuvis_ms_min_int(int a, int b) { return a < b ? a : b; }
GPUVIS_RULE float gpuvis_ms_sq(float v) { return v * v; }

/* Cube root of y > 0 by three Halley steps from the exponent-thirding guess (relative error of the
   guess under 4 %, of the result a few ulps): only + * /, so every backend agrees to the bit, where
   the libraries' cube roots differ in the last bits. */
GPUVIS_RULE float gpuvis_ms_cube_root(float y) {
  float t = GPUVIS_MS_BITS_FLOAT(GPUVIS_MS_FLOAT_BITS(y) / 3 + 709921077);
  for (int i = 0; i < 3; ++i) {
    const float t3 = t * t * t;
    t = t * (t3 + 2.0f * y) / (2.0f * t3 + y);
  }
  return t;
}

/* EDISON's constants: sRGB primaries with D65 white, no gamma (the study's conversion). */
#define GPUVIS_MS_UN 0.19784977571475f
#define GPUVIS_MS_VN 0.46834507665248f

/* R, G, B in [0, full] to L*, u*, v*. */
GPUVIS_RULE void gpuvis_ms_rgb_to_luv(const float* rgb, float full, float* luv) {
  const float to_xyz[3][3] = {{0.4125f, 0.3576f, 0.1804f}, {0.2125f, 0.7154f, 0.0721f}, {0.0193f, 0.1192f, 0.9502f}};
  float xyz[3];
  for (int i = 0; i < 3; ++i) xyz[i] = (to_xyz[i][0] * rgb[0] + to_xyz[i][1] * rgb[1] + to_xyz[i][2] * rgb[2]) / full;
  const float y = xyz[1];
  const float l = y > 0.008856f ? 116.0f * gpuvis_ms_cube_root(y) - 16.0f : 903.3f * y;
  const float den = xyz[0] + 15.0f * xyz[1] + 3.0f * xyz[2];
  luv[0] = l;
  if (den <= 0.0f) {
    luv[1] = luv[2] = 0.0f;
    return;
  }
  luv[1] = 13.0f * l * (4.0f * xyz[0] / den - GPUVIS_MS_UN);
  luv[2] = 13.0f * l * (9.0f * xyz[1] / den - GPUVIS_MS_VN);
}

/* L*, u*, v* to R, G, B in [0, full] (not clamped). */
GPUVIS_RULE void gpuvis_ms_luv_to_rgb(const float* luv, float full, float* rgb) {
  const float from_xyz[3][3] = {{3.2405f, -1.5371f, -0.4985f}, {-0.9693f, 1.8760f, 0.0416f}, {0.0556f, -0.2040f, 1.0573f}};
  const float l = luv[0];
  if (l <= 0.0f) {
    rgb[0] = rgb[1] = rgb[2] = 0.0f;
    return;
  }
  const float c = (l + 16.0f) / 116.0f;
  const float y = l > 8.0f ? c * c * c : l / 903.3f;
  const float up = luv[1] / (13.0f * l) + GPUVIS_MS_UN, vp = luv[2] / (13.0f * l) + GPUVIS_MS_VN;
  const float x = 9.0f * up * y / (4.0f * vp);
  const float z = (12.0f - 3.0f * up - 20.0f * vp) * y / (4.0f * vp);
  for (int i = 0; i < 3; ++i) rgb[i] = full * (from_xyz[i][0] * x + from_xyz[i][1] * y + from_xyz[i][2] * z);
}

/* One voxel's samples, as floats in v[0..channels) (overwritten), to its features
   f[0..GPUVIS_MS_LANES(channels)) (padding lanes 0). */
GPUVIS_RULE void gpuvis_ms_features(float* v, const gpuvis_ms_conversion* k, float* f) {
  const int channels = k->channels;
  if (channels >= 3 && k->luv) {
    float luv[3];
    gpuvis_ms_rgb_to_luv(v, k->full, luv);
    for (int c = 0; c < 3; ++c) v[c] = luv[c];
  }
  for (int c = 0; c < channels; ++c) f[c] = v[c] * k->inv_range[c];
  for (int c = channels; c < GPUVIS_MS_LANES(channels); ++c) f[c] = 0.0f;
}

/* A mode's features m[0..channels) back to sample values v[0..channels) (not yet rounded). */
GPUVIS_RULE void gpuvis_ms_samples(const float* m, const gpuvis_ms_conversion* k, float* v) {
  const int channels = k->channels;
  for (int c = 0; c < channels; ++c) v[c] = m[c] * k->range[c];
  if (channels >= 3 && k->luv) {
    float rgb[3];
    gpuvis_ms_luv_to_rgb(v, k->full, rgb);
    for (int c = 0; c < 3; ++c) v[c] = rgb[c];
  }
}

/* An integer sample from a sample value: clamped to [0, full], rounded half up. */
GPUVIS_RULE float gpuvis_ms_integer_sample(float v, float full) {
  v = v < 0.0f ? 0.0f : (v > full ? full : v);
  return GPUVIS_MS_FLOOR(v + 0.5f);
}

/* Weight of a point at squared normalised distance d2 <= 1 under the Gaussian kernel:
   exp(-2 d2) for d2 in [0, 1] as (e^u)^4, u = -d2 / 2, with e^u from its Taylor polynomial of
   degree 7 (relative error under 5e-7): the same float operations on every backend, where the
   libraries' exp functions differ in the last bits and so would the modes. */
GPUVIS_RULE float gpuvis_ms_exp_minus_2(float d2) {
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

/* The start of voxel i's climb: its own place (relative position 0) and features f[0..channels). */
GPUVIS_RULE gpuvis_ms_point gpuvis_ms_start(GPUVIS_MS_I64 i, const gpuvis_ms_space* g, const float* f, int channels) {
  gpuvis_ms_point p;
  const GPUVIS_MS_I64 row = i / g->width;
  p.ox = (int)(i - row * g->width);
  p.oy = (int)(row % g->height);
  const GPUVIS_MS_I64 slice = row / g->height;
  p.oz = (int)(slice % g->depth);
  p.ot = (int)(slice / g->depth);
  p.x = p.y = p.z = p.t = 0.0f;
  for (int c = 0; c < 4; ++c) p.r[c] = c < channels ? f[c] : 0.0f;
  p.steps = 0;
  return p;
}

#endif /* GPUVIS_FILTERS_MEAN_SHIFT_RULE_H */

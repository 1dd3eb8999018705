/* Convolution (correlation) on OpenCL, as on the CPU and CUDA: sums in float over the kernel's
   non-zero weights in row-then-column order, integer samples rounded to nearest (ties to even) and
   saturated; the border rule is filters/border_rule.h, prepended to this source. Built once per
   sample type with -D SAMPLE=uchar|ushort|float -D SAMPLE_MAX=... -D INTEGER=0|1. Images are
   tightly packed, channels interleaved. */

float sample_at(__global const SAMPLE* src, int x, int y, int c, int width, int height, int channels, int mode, float value) {
  const int xx = gpuvis_border_index(x, width, mode), yy = gpuvis_border_index(y, height, mode);
  if (xx < 0 || yy < 0) return value;
  return (float)src[((size_t)yy * (size_t)width + (size_t)xx) * (size_t)channels + (size_t)c];
}

SAMPLE to_sample(float v) {
#if INTEGER
  return (SAMPLE)rint(clamp(v, 0.0f, (float)SAMPLE_MAX));
#else
  return v;
#endif
}

/* A 2D kernel of kw x kh weights, anchored at its centre. */
__kernel void convolve_2d(__global const SAMPLE* src, __global SAMPLE* dst, int width, int height, int channels,
                          __global const float* weights, int kw, int kh, int mode, float value) {
  const int x = (int)get_global_id(0), y = (int)get_global_id(1);
  if (x >= width || y >= height) return;
  const int rx = kw / 2, ry = kh / 2;
  const bool inside = x >= rx && x + rx < width && y >= ry && y + ry < height;  /* no tap needs the border rule */
  for (int c = 0; c < channels; ++c) {
    float sum = 0.0f;
    if (inside) {
      __global const SAMPLE* corner = src + ((size_t)(y - ry) * (size_t)width + (size_t)(x - rx)) * (size_t)channels + (size_t)c;
      for (int r = 0; r < kh; ++r)
        for (int o = 0; o < kw; ++o) {
          const float w = weights[r * kw + o];
          if (w != 0.0f) sum += w * (float)corner[((size_t)r * (size_t)width + (size_t)o) * (size_t)channels];
        }
    } else {
      for (int r = 0; r < kh; ++r)
        for (int o = 0; o < kw; ++o) {
          const float w = weights[r * kw + o];
          if (w != 0.0f) sum += w * sample_at(src, x + o - rx, y + r - ry, c, width, height, channels, mode, value);
        }
    }
    dst[((size_t)y * (size_t)width + (size_t)x) * (size_t)channels + (size_t)c] = to_sample(sum);
  }
}

/* The row pass of a separable kernel: each image row filtered horizontally into `mid` (floats). */
__kernel void convolve_rows(__global const SAMPLE* src, __global float* mid, int width, int height, int channels,
                            __global const float* row, int kw, int mode, float value) {
  const int x = (int)get_global_id(0), y = (int)get_global_id(1);
  if (x >= width || y >= height) return;
  const int rx = kw / 2;
  const bool inside = x >= rx && x + rx < width;
  for (int c = 0; c < channels; ++c) {
    float sum = 0.0f;
    if (inside) {
      __global const SAMPLE* left = src + ((size_t)y * (size_t)width + (size_t)(x - rx)) * (size_t)channels + (size_t)c;
      for (int o = 0; o < kw; ++o)
        if (row[o] != 0.0f) sum += row[o] * (float)left[(size_t)o * (size_t)channels];
    } else {
      for (int o = 0; o < kw; ++o)
        if (row[o] != 0.0f) sum += row[o] * sample_at(src, x + o - rx, y, c, width, height, channels, mode, value);
    }
    mid[((size_t)y * (size_t)width + (size_t)x) * (size_t)channels + (size_t)c] = sum;
  }
}

/* The column pass: rows of `mid` combined vertically; a row outside the image is the border's
   (for the constant border, `outside`: the row pass of a row of the constant value). */
__kernel void convolve_columns(__global const float* mid, __global SAMPLE* dst, int width, int height, int channels,
                               __global const float* column, int kh, int mode, float outside) {
  const int x = (int)get_global_id(0), y = (int)get_global_id(1);
  if (x >= width || y >= height) return;
  const int ry = kh / 2;
  for (int c = 0; c < channels; ++c) {
    float sum = 0.0f;
    for (int r = 0; r < kh; ++r) {
      if (column[r] == 0.0f) continue;
      const int yy = gpuvis_border_index(y + r - ry, height, mode);
      const float v = yy < 0 ? outside : mid[((size_t)yy * (size_t)width + (size_t)x) * (size_t)channels + (size_t)c];
      sum += column[r] * v;
    }
    dst[((size_t)y * (size_t)width + (size_t)x) * (size_t)channels + (size_t)c] = to_sample(sum);
  }
}

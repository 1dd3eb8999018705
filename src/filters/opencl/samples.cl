/* The filters' OpenCL programs read and write samples alike (filters/opencl/sample_options.hpp
   defines SAMPLE, SAMPLE_MAX and INTEGER): after filters/border_rule.h, before each kernel. */

/* Sample (x, y) of channel c, the border rule applied outside the image (`value` for the constant). */
float sample_at(__global const SAMPLE* src, int x, int y, int c, int width, int height, int channels, int mode, float value) {
  const int xx = gpuvis_border_index(x, width, mode), yy = gpuvis_border_index(y, height, mode);
  if (xx < 0 || yy < 0) return value;
  return (float)src[((size_t)yy * (size_t)width + (size_t)xx) * (size_t)channels + (size_t)c];
}

/* An integer sample rounded to nearest, ties to even, and saturated (the CPU's detail::saturate). */
SAMPLE to_sample(float v) {
#if INTEGER
  return (SAMPLE)rint(clamp(v, 0.0f, (float)SAMPLE_MAX));
#else
  return v;
#endif
}

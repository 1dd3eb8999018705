/* The filters' OpenCL programs read and write samples alike (filters/opencl/sample_options.hpp
   defines SAMPLE, SAMPLE_MAX and INTEGER): after filters/border_rule.h, before each kernel. */

/* Sample (x, y) of channel c, the border rule applied outside the image (`value` for the constant). */
float sample_at(__global const SAMPLE* src, int x, int y, int c, int width, int height, int channels, int mode, float value) {
  const int xx = gpuvis_border_index(x, width, mode), yy = gpuvis_border_index(y, height, mode);
  if (xx < 0 || yy < 0) return value;
  return (float)src[((size_t)yy * (size_t)width + (size_t)xx) * (size_t)channels + (size_t)c];
}

/* Strips (opencl::StripPipeline: images of 1 MiB and more, or larger than the device's memory
   budget): a kernel reads `in_rows` rows whose first is global row `in_first` and writes `out_rows`
   rows whose first is global row `out_first`. The whole image is in_first = out_first = 0,
   in_rows = out_rows = height, and rows outside it are mapped by the border rule here; a strip's
   rows were staged by the host already mapped (row i holds the image row the rule maps global row
   in_first + i to), so a global row is read at i = row - in_first (clamped: tiles at a strip's end
   also load rows no output uses). -1: outside the image under the constant border. */
int source_row(int gy, int height, int mode, int in_first, int in_rows) {
  if (in_first == 0 && in_rows == height) return gpuvis_border_index(gy, height, mode);
  if (mode == GPUVIS_BORDER_CONSTANT && (gy < 0 || gy >= height)) return -1;
  return clamp(gy - in_first, 0, in_rows - 1);
}

/* Sample (x, global row y) of channel c of a strip's rows (or the whole image), the border rule
   applied outside the image. */
float strip_sample_at(__global const SAMPLE* src, int x, int y, int c, int width, int height, int channels, int mode, float value,
                      int in_first, int in_rows) {
  const int xx = gpuvis_border_index(x, width, mode), yy = source_row(y, height, mode, in_first, in_rows);
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

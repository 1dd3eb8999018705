/* The bilateral filter on OpenCL, as on the CPU and CUDA: the per-pixel rule is
   filters/bilateral_rule.h, the border rule filters/border_rule.h and the sample helpers
   filters/opencl/samples.cl, all prepended to this source. Built once per sample type and channel count with -D SAMPLE=uchar|ushort|float
   -D SAMPLE_MAX=... -D INTEGER=0|1 -D C=1|3|4, and -D TILED=0|1. Images are tightly packed,
   channels interleaved.

   TILED: each work group (32 x 4 items, Kernel::run's groups) first reads its pixels and `radius`
   more on every side into local memory (the border applied as they are read), then every item
   filters from there; otherwise, for windows too large for local memory, every tap reads the
   image. Either way the group first fills a table of the spatial weights by dx² + dy².

   A launch writes output rows out_first .. out_first + out_rows - 1 (global row numbers) from the
   rows in_first .. in_first + in_rows - 1 in src (a strip, samples.cl's source_row; the whole
   image: 0 and height both); dst holds the output rows only. */
#define GROUP_W 32
#define GROUP_H 4

/* local_floats: the space table (radius² + 1 floats), then, when TILED, the tile
   (C x (32 + 2r) x (4 + 2r) floats). */
__kernel __attribute__((reqd_work_group_size(GROUP_W, GROUP_H, 1)))
void bilateral(__global const SAMPLE* restrict src, __global SAMPLE* restrict dst, int width, int height, int radius,
               float space_coeff, float sigma_range, int adaptive, int colour, int l1, int mode, float value,
               int in_first, int in_rows, int out_first, int out_rows, __local float* local_floats) {
  const int lx = (int)get_local_id(0), ly = (int)get_local_id(1);
  const int x0 = (int)get_group_id(0) * GROUP_W, y0 = out_first + (int)get_group_id(1) * GROUP_H;
  const int x = x0 + lx, y = y0 + ly;
  const int tw = GROUP_W + 2 * radius, th = GROUP_H + 2 * radius;
  __local float* space = local_floats;
  for (int i = ly * GROUP_W + lx; i <= radius * radius; i += GROUP_W * GROUP_H) space[i] = gpuvis_weight_exp((float)i * space_coeff);
#if TILED
  __local float* tile = local_floats + radius * radius + 1;
  for (int i = ly * GROUP_W + lx; i < tw * th; i += GROUP_W * GROUP_H) {
    const int tx = i % tw, ty = i / tw;
    for (int c = 0; c < C; ++c)
      tile[i * C + c] = strip_sample_at(src, x0 - radius + tx, y0 - radius + ty, c, width, height, C, mode, value, in_first, in_rows);
  }
#endif
  barrier(CLK_LOCAL_MEM_FENCE);
  if (x >= width || y >= height || y - out_first >= out_rows) return;
#if TILED
#define GPUVIS_BL_FETCH(dx, dy, ch) tile[((ly + radius + (dy)) * tw + lx + radius + (dx)) * C + (ch)]
#else
#define GPUVIS_BL_FETCH(dx, dy, ch) strip_sample_at(src, x + (dx), y + (dy), (ch), width, height, C, mode, value, in_first, in_rows)
#endif
#define GPUVIS_BL_SPACE(dx, dy) space[(dx) * (dx) + (dy) * (dy)]
#define GPUVIS_BL_RANGE(d2, coeff) gpuvis_weight_exp((d2) * (coeff))
  float out[C];
  GPUVIS_BILATERAL_PIXEL(C, radius, sigma_range, adaptive, colour, l1, out);
  __global SAMPLE* row = dst + ((size_t)(y - out_first) * (size_t)width + (size_t)x) * (size_t)C;
  for (int c = 0; c < C; ++c) row[c] = to_sample(out[c]);
}

/* Convolution (correlation) on OpenCL, as on the CPU and CUDA: sums in float over the kernel's
   non-zero weights in row-then-column order, integer samples rounded to nearest (ties to even) and
   saturated; the border rule is filters/border_rule.h and the sample helpers filters/opencl/samples.cl,
   prepended to this source. Built once per sample type with -D SAMPLE=uchar|ushort|float
   -D SAMPLE_MAX=... -D INTEGER=0|1. Images are tightly packed, channels interleaved. */

/* The kernels' sizes are compiled in (-D KW=... -D KH=...: one program per size, cached like any
   other), so that the loops over up to 81 taps (31 of a separable pass) unroll and the weights, in constant memory, are read
   without a loop counter; the sum's order is the CPU's (row after row, taps left to right). */

/* A 2D kernel of KW x KH weights, anchored at its centre. Each work group (TILE_W x TILE_H items,
   Kernel::run's groups) first reads the samples its taps cover, one channel at a time, into local
   memory (the border rule applied as they are read), then every item sums from there: each sample
   is read from global memory once per group instead of once per tap. */
#define TILE_W 32
#define TILE_H 4
/* The vertical passes (the 2D kernel, the column pass) give each item ROWS vertically adjacent
   outputs (rows ly * ROWS ... ly * ROWS + ROWS - 1 of its group's OUT_H), as CUDA's blocked
   kernel does: the item reads the ROWS + KH - 1 tile rows they cover once each and adds every
   sample it reads into each output whose taps reach it, so a 7x7 output costs (ROWS + 6) * 7 / ROWS
   reads of local memory instead of 49. Each output still sums its taps in the CPU's order (row
   after row, left to right). A group's tile holds OUT_H output rows and the KH - 1 rows of halo.
   ROWS is compiled in by the host (-D ROWS=..., convolve_opencl.cpp's kRowsPerItem), which
   launches ceil(rows / ROWS) items a column. */
#define OUT_H (TILE_H * ROWS)

/* Channel c of the tw x th samples whose corner is at column x0, global row y0, into the group's
   `tile` (row-major, tw wide), the border rule applied where the tile leaves the image or the rows
   read (a tile that does neither loads without the rule). */
void load_tile(__local float* tile, __global const SAMPLE* src, int x0, int y0, int tw, int th, int width, int height,
               int channels, int c, int mode, float value, int in_first, int in_rows) {
  const bool inside = x0 >= 0 && x0 + tw <= width && y0 >= 0 && y0 + th <= height && y0 >= in_first && y0 + th <= in_first + in_rows;
  const size_t row = (size_t)width * (size_t)channels;
  for (int i = (int)get_local_id(1) * TILE_W + (int)get_local_id(0); i < tw * th; i += TILE_W * TILE_H) {
    const int tx = i % tw, ty = i / tw;
    if (inside) {
      tile[i] = (float)src[(size_t)(y0 + ty - in_first) * row + (size_t)((x0 + tx) * channels + c)];
    } else {
      const int xx = gpuvis_border_index(x0 + tx, width, mode), yy = source_row(y0 + ty, height, mode, in_first, in_rows);
      tile[i] = xx < 0 || yy < 0 ? value : (float)src[(size_t)yy * row + (size_t)(xx * channels + c)];
    }
  }
}
/* An item's ROWS outputs of column x, from global row `first` on, into dst (whose first row is
   global row out_first; rows past the image or the strip's out_rows are left out). */
void store_rows(__global SAMPLE* dst, const float* sums, int first, int x, int c, int width, int height, int channels, int out_first,
                int out_rows) {
  const size_t row = (size_t)width * (size_t)channels;
  for (int k = 0; k < ROWS; ++k) {
    const int y = first + k;
    if (y >= height || y - out_first >= out_rows) break;
    dst[(size_t)(y - out_first) * row + (size_t)(x * channels + c)] = to_sample(sums[k]);
  }
}

/* The column pass of an item: its ROWS adjacent outputs from the ROWS + KH - 1 rows of a local
   column that starts at `top` (TILE_W apart), each sample added to every output whose taps reach
   it, each sum in tap order. */
void column_sums(__local const float* top, __constant float* taps, float* sums) {
#pragma unroll
  for (int k = 0; k < ROWS; ++k) sums[k] = 0.0f;
#if KH <= 31
#pragma unroll
#endif
  for (int t = 0; t < ROWS + KH - 1; ++t) {
    const float v = top[t * TILE_W];
#pragma unroll
    for (int k = 0; k < ROWS; ++k) {
      const int r = t - k;  /* output k's tap that reads tile row t */
      if (r >= 0 && r < KH && taps[r] != 0.0f) sums[k] += taps[r] * v;
    }
  }
}

__kernel __attribute__((reqd_work_group_size(TILE_W, TILE_H, 1)))
void convolve_2d(__global const SAMPLE* restrict src, __global SAMPLE* restrict dst, int width, int height, int channels,
                 __constant float* weights, int mode, float value, int in_first, int in_rows, int out_first, int out_rows) {
  __local float tile[(OUT_H + KH - 1) * (TILE_W + KW - 1)];
  const int lx = (int)get_local_id(0), ly = (int)get_local_id(1);
  const int x0 = (int)get_group_id(0) * TILE_W - KW / 2, y0 = out_first + (int)get_group_id(1) * OUT_H - KH / 2;
  const int x = x0 + KW / 2 + lx;
  const int tw = TILE_W + KW - 1, th = OUT_H + KH - 1;
  for (int c = 0; c < channels; ++c) {
    barrier(CLK_LOCAL_MEM_FENCE);  /* the previous channel's sums have read the tile */
    load_tile(tile, src, x0, y0, tw, th, width, height, channels, c, mode, value, in_first, in_rows);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (x >= width) continue;
    float sum[ROWS];
#pragma unroll
    for (int k = 0; k < ROWS; ++k) sum[k] = 0.0f;
    __local const float* corner = tile + ly * ROWS * tw + lx;
#if KW * KH <= 81
#pragma unroll
#endif
    for (int t = 0; t < ROWS + KH - 1; ++t)
#if KW * KH <= 81
#pragma unroll
#endif
      for (int o = 0; o < KW; ++o) {
        const float v = corner[t * tw + o];
#pragma unroll
        for (int k = 0; k < ROWS; ++k) {
          const int r = t - k;  /* output k's tap row that reads tile row t */
          if (r >= 0 && r < KH) {
            const float w = weights[r * KW + o];
            if (w != 0.0f) sum[k] += w * v;
          }
        }
      }
    store_rows(dst, sum, y0 + KH / 2 + ly * ROWS, x, c, width, height, channels, out_first, out_rows);
  }
}

/* The row pass of a separable kernel (KW taps): each image row filtered horizontally into `mid`
   (floats), from a tile in local memory as convolve_2d. Rows are independent: a strip's staged
   rows are passed as an image of in_rows rows. */
__kernel __attribute__((reqd_work_group_size(TILE_W, TILE_H, 1)))
void convolve_rows(__global const SAMPLE* restrict src, __global float* restrict mid, int width, int height, int channels,
                   __constant float* taps, int mode, float value) {
  __local float tile[TILE_H * (TILE_W + KW - 1)];
  const int lx = (int)get_local_id(0), ly = (int)get_local_id(1);
  const int x0 = (int)get_group_id(0) * TILE_W - KW / 2, y = (int)get_group_id(1) * TILE_H + ly;
  const int x = x0 + KW / 2 + lx, tw = TILE_W + KW - 1;
  const bool inside = x0 >= 0 && x0 + tw <= width;
  const size_t row = (size_t)width * (size_t)channels;
  for (int c = 0; c < channels; ++c) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (y < height)  /* each row of items reads its own row of the tile */
      for (int tx = lx; tx < tw; tx += TILE_W)
        tile[ly * tw + tx] = inside ? (float)src[(size_t)y * row + (size_t)((x0 + tx) * channels + c)]
                                    : sample_at(src, x0 + tx, y, c, width, height, channels, mode, value);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (x >= width || y >= height) continue;
    float sum = 0.0f;
    __local const float* left = tile + ly * tw + lx;
#if KW <= 31
#pragma unroll
#endif
    for (int o = 0; o < KW; ++o)
      if (taps[o] != 0.0f) sum += taps[o] * left[o];
    mid[(size_t)y * row + (size_t)(x * channels + c)] = sum;
  }
}

/* The column pass (KH taps): rows of `mid` combined vertically, from a tile in local memory; a row
   outside the image is the border's (for the constant border, `outside`: the row pass of a row of
   the constant value). */
__kernel __attribute__((reqd_work_group_size(TILE_W, TILE_H, 1)))
void convolve_columns(__global const float* restrict mid, __global SAMPLE* restrict dst, int width, int height, int channels,
                      __constant float* taps, int mode, float outside, int in_first, int in_rows, int out_first, int out_rows) {
  __local float tile[(OUT_H + KH - 1) * TILE_W];
  const int lx = (int)get_local_id(0), ly = (int)get_local_id(1);
  const int x = (int)get_group_id(0) * TILE_W + lx, y0 = out_first + (int)get_group_id(1) * OUT_H - KH / 2;
  const int th = OUT_H + KH - 1;
  const size_t row = (size_t)width * (size_t)channels;
  for (int c = 0; c < channels; ++c) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (x < width)  /* each column of items reads its own column of the tile */
      for (int ty = ly; ty < th; ty += TILE_H) {
        const int yy = source_row(y0 + ty, height, mode, in_first, in_rows);
        tile[ty * TILE_W + lx] = yy < 0 ? outside : mid[(size_t)yy * row + (size_t)(x * channels + c)];
      }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (x >= width) continue;
    float sum[ROWS];
    column_sums(tile + ly * ROWS * TILE_W + lx, taps, sum);
    store_rows(dst, sum, y0 + KH / 2 + ly * ROWS, x, c, width, height, channels, out_first, out_rows);
  }
}

/* A separable kernel (KW row taps, KH column taps) in one pass, as CUDA's fused kernel: a group
   reads its tile of samples (as convolve_2d), runs the row pass over all the tile's rows into local
   memory, then the column pass from there (ROWS adjacent outputs an item, as convolve_columns):
   no float image between the passes in global memory, one launch instead of two. A row outside the
   image under the constant border is the constant's row, whose row pass is convolve_columns's
   `outside`; each sum is made in the two passes' order, so the bytes are theirs. The host uses it
   for kernels of up to FUSED_MAX_TAPS taps a side (the tile and the row pass's rows in local
   memory: 23 KB at 31). */
#define FUSED_MAX_TAPS 31
#if KW <= FUSED_MAX_TAPS && KH <= FUSED_MAX_TAPS
__kernel __attribute__((reqd_work_group_size(TILE_W, TILE_H, 1)))
void convolve_separable(__global const SAMPLE* restrict src, __global SAMPLE* restrict dst, int width, int height, int channels,
                        __constant float* row_taps, __constant float* column_taps, int mode, float value, int in_first, int in_rows,
                        int out_first, int out_rows) {
  __local float tile[(OUT_H + KH - 1) * (TILE_W + KW - 1)];
  __local float mid[(OUT_H + KH - 1) * TILE_W];
  const int lx = (int)get_local_id(0), ly = (int)get_local_id(1);
  const int x0 = (int)get_group_id(0) * TILE_W - KW / 2, y0 = out_first + (int)get_group_id(1) * OUT_H - KH / 2;
  const int x = x0 + KW / 2 + lx;
  const int tw = TILE_W + KW - 1, th = OUT_H + KH - 1;
  for (int c = 0; c < channels; ++c) {
    barrier(CLK_LOCAL_MEM_FENCE);  /* the previous channel's column pass has read mid */
    load_tile(tile, src, x0, y0, tw, th, width, height, channels, c, mode, value, in_first, in_rows);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int ty = ly; ty < th; ty += TILE_H) {
      float sum = 0.0f;
      __local const float* left = tile + ty * tw + lx;
#pragma unroll
      for (int o = 0; o < KW; ++o)
        if (row_taps[o] != 0.0f) sum += row_taps[o] * left[o];
      mid[ty * TILE_W + lx] = sum;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (x >= width) continue;
    float sums[ROWS];
    column_sums(mid + ly * ROWS * TILE_W + lx, column_taps, sums);
    store_rows(dst, sums, y0 + KH / 2 + ly * ROWS, x, c, width, height, channels, out_first, out_rows);
  }
}
#endif

/* 8-bit smoothing in 16-bit fixed point (filters/smooth_fixed_rule.h, prepended; the host builds
   this with -D FIXED=1 for the kernels filters/smooth_fixed.hpp takes, KW and KH their taps), the
   CPU's and CUDA's bytes: as convolve_separable, but the tile's samples become rule samples, each
   pass sums the rule's integer taps (the two samples at ±k added first) and the column pass's
   result is rounded to a grey level. row_taps and column_taps hold w[0] .. w[m]. */
#if FIXED
__kernel __attribute__((reqd_work_group_size(TILE_W, TILE_H, 1)))
void smooth_fixed(__global const SAMPLE* restrict src, __global SAMPLE* restrict dst, int width, int height, int channels,
                  __constant ushort* row_taps, __constant ushort* column_taps, int mode, float value, int in_first, int in_rows,
                  int out_first, int out_rows) {
  __local float tile[(OUT_H + KH - 1) * (TILE_W + KW - 1)];
  __local ushort mid[(OUT_H + KH - 1) * TILE_W];
  const int lx = (int)get_local_id(0), ly = (int)get_local_id(1);
  const int x0 = (int)get_group_id(0) * TILE_W - KW / 2, y0 = out_first + (int)get_group_id(1) * OUT_H - KH / 2;
  const int x = x0 + KW / 2 + lx;
  const int tw = TILE_W + KW - 1, th = OUT_H + KH - 1, rx = KW / 2, ry = KH / 2;
  const size_t row = (size_t)width * (size_t)channels;
  for (int c = 0; c < channels; ++c) {
    barrier(CLK_LOCAL_MEM_FENCE);  /* the previous channel's column pass has read mid */
    load_tile(tile, src, x0, y0, tw, th, width, height, channels, c, mode, value, in_first, in_rows);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int ty = ly; ty < th; ty += TILE_H) {
      __local const float* centre = tile + ty * tw + lx + rx;  /* whole grey levels: exact in float */
      uint sum = gpuvis_smooth_bias(rx) + gpuvis_smooth_tap(gpuvis_smooth_sample((uint)centre[0]), row_taps[0]);
#pragma unroll
      for (int k = 1; k <= rx; ++k)
        sum += gpuvis_smooth_tap(gpuvis_smooth_sample((uint)centre[-k]) + gpuvis_smooth_sample((uint)centre[k]), row_taps[k]);
      mid[ty * TILE_W + lx] = (ushort)sum;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (x >= width) continue;
    for (int j = 0; j < ROWS; ++j) {
      const int y = y0 + ry + ly * ROWS + j;
      if (y >= height || y - out_first >= out_rows) break;
      __local const ushort* centre = mid + (ly * ROWS + j + ry) * TILE_W + lx;
      uint sum = gpuvis_smooth_bias(ry) + gpuvis_smooth_tap(centre[0], column_taps[0]);
#pragma unroll
      for (int k = 1; k <= ry; ++k) sum += gpuvis_smooth_tap((uint)centre[-k * TILE_W] + centre[k * TILE_W], column_taps[k]);
      dst[(size_t)(y - out_first) * row + (size_t)(x * channels + c)] = (SAMPLE)gpuvis_smooth_output(sum);
    }
  }
}
#endif

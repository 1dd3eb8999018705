/* Full Bernsen on OpenCL (the rule: threshold/bernsen_rule.h, prepended to this source when the
   program is built). The window's max and min are separable: the rows' extrema over [x-h, x+h],
   then the columns' extrema of those over [y-h, y+h], each window truncated at the image's edge as
   on the CPU and CUDA. Images are tightly packed, one byte a pixel. */

__kernel void bernsen_rows(__global const uchar* src, __global uchar* row_max, __global uchar* row_min, int width, int height,
                           int h) {
  const int x = (int)get_global_id(0), y = (int)get_global_id(1);
  if (x >= width || y >= height) return;
  const int x0 = max(0, x - h), x1 = min(width - 1, x + h);
  __global const uchar* row = src + (size_t)y * (size_t)width;
  uint mx = 0, mn = 255;
  for (int i = x0; i <= x1; ++i) {
    const uint v = row[i];
    mx = max(mx, v);
    mn = min(mn, v);
  }
  const size_t at = (size_t)y * (size_t)width + (size_t)x;
  row_max[at] = (uchar)mx;
  row_min[at] = (uchar)mn;
}

__kernel void bernsen_columns(__global const uchar* src, __global const uchar* row_max, __global const uchar* row_min,
                              __global uchar* dst, int width, int height, int h, int gate) {
  const int x = (int)get_global_id(0), y = (int)get_global_id(1);
  if (x >= width || y >= height) return;
  const int y0 = max(0, y - h), y1 = min(height - 1, y + h);
  uint mx = 0, mn = 255;
  for (int j = y0; j <= y1; ++j) {
    const size_t at = (size_t)j * (size_t)width + (size_t)x;
    mx = max(mx, (uint)row_max[at]);
    mn = min(mn, (uint)row_min[at]);
  }
  const size_t at = (size_t)y * (size_t)width + (size_t)x;
  dst[at] = gpuvis_bernsen_rule(src[at], mx, mn, gate);
}

/* Windows of half-width h <= GPUVIS_TILE_MAX_R in one pass: a group of 32 x 4 items thresholds a
   tile of 32 x 16 pixels. It copies the tile and its h halo into local memory (addresses clamped to
   the image: the extrema of a clamped window are those of the truncated one), takes the extrema
   down the columns into local memory, then along the rows, and decides; no frame-sized
   intermediate and one launch instead of two. Each pixel still costs O(h) local loads. */
#define GPUVIS_TILE_W 32
#define GPUVIS_TILE_H 16
#define GPUVIS_TILE_MAX_R 16
#define GPUVIS_TILE_SPAN (GPUVIS_TILE_W + 2 * GPUVIS_TILE_MAX_R)

__kernel __attribute__((reqd_work_group_size(32, 4, 1))) void bernsen_tile(__global const uchar* src, __global uchar* dst, int width,
                                                                           int height, int h, int gate) {
  __local uchar tile[(GPUVIS_TILE_H + 2 * GPUVIS_TILE_MAX_R) * GPUVIS_TILE_SPAN];
  __local uchar down_max[GPUVIS_TILE_H * GPUVIS_TILE_SPAN], down_min[GPUVIS_TILE_H * GPUVIS_TILE_SPAN];
  const int lx = (int)get_local_id(0), ly = (int)get_local_id(1), item = ly * 32 + lx;
  const int x0 = (int)get_group_id(0) * GPUVIS_TILE_W, y0 = (int)get_group_id(1) * GPUVIS_TILE_H;
  const int tw = GPUVIS_TILE_W + 2 * h, th = GPUVIS_TILE_H + 2 * h;
  for (int i = item; i < tw * th; i += 128) {
    const int ty = i / tw, tx = i - ty * tw;
    const int x = clamp(x0 - h + tx, 0, width - 1), y = clamp(y0 - h + ty, 0, height - 1);
    tile[ty * tw + tx] = src[(size_t)y * (size_t)width + (size_t)x];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int i = item; i < GPUVIS_TILE_H * tw; i += 128) {
    const int r = i / tw, tx = i - r * tw;
    uint mx = 0, mn = 255;
    for (int k = 0; k <= 2 * h; ++k) {
      const uint v = tile[(r + k) * tw + tx];
      mx = max(mx, v);
      mn = min(mn, v);
    }
    down_max[r * tw + tx] = (uchar)mx;
    down_min[r * tw + tx] = (uchar)mn;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  const int x = x0 + lx;
  for (int r = ly; r < GPUVIS_TILE_H; r += 4) {
    const int y = y0 + r;
    if (x >= width || y >= height) continue;
    uint mx = 0, mn = 255;
    for (int k = 0; k <= 2 * h; ++k) {
      mx = max(mx, (uint)down_max[r * tw + lx + k]);
      mn = min(mn, (uint)down_min[r * tw + lx + k]);
    }
    dst[(size_t)y * (size_t)width + (size_t)x] = gpuvis_bernsen_rule(tile[(r + h) * tw + lx + h], mx, mn, gate);
  }
}

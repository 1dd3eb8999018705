/* reacTIVision's tiled Bernsen on OpenCL (the rules: threshold/tiled_rule.h, prepended when the
   program is built). One work item per cell scans it as reacTIVision does (quirk Q1 makes the
   order matter); then each pixel takes its tile's threshold from the 2 x 2 cells below and right
   of its tile, addressed linearly (quirk Q2: column Cx wraps to the next cell row, rows past the
   grid read cell 0's slot as 0), exactly as the CPU's per-tile loop. Tightly packed images. */

__kernel void tiled_cells(__global const uchar* src, __global uint* stats, int width, int height, int tile, int cells_x, int cells_y) {
  const int i = (int)get_global_id(0), j = (int)get_global_id(1);
  if (i >= cells_x || j >= cells_y) return;
  stats[j * cells_x + i] = gpuvis_cell_stats(src, (long)width, gpuvis_cell_begin(i, width, tile), gpuvis_cell_end(i, width, tile),
                                             gpuvis_cell_begin(j, height, tile), gpuvis_cell_end(j, height, tile));
}

static uint tiled_cell_at(__global const uint* stats, int cells, int cells_x, int i, int j) {
  const long at = (long)j * cells_x + i;
  return at < cells ? stats[at] : 0u;
}

__kernel void tiled_apply(__global const uchar* src, __global uchar* dst, __global const uint* stats, int width, int height, int tile,
                          int cells_x, int cells, int gradient) {
  const int x = (int)get_global_id(0), y = (int)get_global_id(1);
  if (x >= width || y >= height) return;
  const int tx = x / tile, ty = y / tile;
  const uint c[4] = {tiled_cell_at(stats, cells, cells_x, tx, ty), tiled_cell_at(stats, cells, cells_x, tx + 1, ty),
                     tiled_cell_at(stats, cells, cells_x, tx, ty + 1), tiled_cell_at(stats, cells, cells_x, tx + 1, ty + 1)};
  int mn = 255, mx = 0;
  for (int k = 0; k < 4; ++k) {
    mn = min(mn, (int)(c[k] & 0xffu));
    mx = max(mx, (int)(c[k] >> 8));
  }
  const size_t at = (size_t)y * (size_t)width + (size_t)x;
  dst[at] = (int)src[at] > gpuvis_tiled_threshold(mn, mx, gradient) ? (uchar)255 : (uchar)0;
}

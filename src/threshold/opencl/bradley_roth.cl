/* reacTIVision's Bradley-Roth threshold on OpenCL (the rule: threshold/bradley_roth_rule.h,
   prepended when the program is built). The window sums are exact integers, so any order of
   adding gives the CPU's: each pixel's column sum over its rows, then each pixel's sum of the
   column sums over its columns; windows clamped at the frame's edges. Tightly packed images. */

__kernel void bradley_roth_columns(__global const uchar* src, __global uint* column_sums, int width, int height, int r) {
  const int x = (int)get_global_id(0), y = (int)get_global_id(1);
  if (x >= width || y >= height) return;
  const int y0 = max(0, y - r), y1 = min(height, y + r + 1);
  uint s = 0u;
  for (int j = y0; j < y1; ++j) s += src[(size_t)j * (size_t)width + (size_t)x];
  column_sums[(size_t)y * (size_t)width + (size_t)x] = s;
}

__kernel void bradley_roth_decide(__global const uchar* src, __global const uint* column_sums, __global uchar* dst, int width, int height,
                                  int r, uint k, uint m) {
  const int x = (int)get_global_id(0), y = (int)get_global_id(1);
  if (x >= width || y >= height) return;
  const int x0 = max(0, x - r), x1 = min(width, x + r + 1), y0 = max(0, y - r), y1 = min(height, y + r + 1);
  __global const uint* row = column_sums + (size_t)y * (size_t)width;
  uint s = 0u;
  for (int i = x0; i < x1; ++i) s += row[i];
  const size_t at = (size_t)y * (size_t)width + (size_t)x;
  dst[at] = gpuvis_bradley_roth_rule(src[at], s, x, width, x0, x1, y0, y1, r, k, m);
}

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

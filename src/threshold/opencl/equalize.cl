/* reacTIVision's equaliser on OpenCL (the rule: threshold/equalize_rule.h, prepended to this source
   when the program is built): each pixel of the frame minus the empty table's, plus the table's
   centre level. Images are tightly packed, one byte a pixel. */

__kernel void equalize(__global const uchar* src, __global const uchar* background, __global uchar* dst, int width, int height,
                       int level) {
  const int x = (int)get_global_id(0), y = (int)get_global_id(1);
  if (x >= width || y >= height) return;
  const size_t at = (size_t)y * (size_t)width + (size_t)x;
  dst[at] = gpuvis_equalize_rule(src[at], background[at], level);
}

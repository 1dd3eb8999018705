/* The sharpening before the threshold on OpenCL (the rule: threshold/sharpen_rule.h, prepended
   when the program is built): each pixel from itself and its four neighbours, those outside the
   frame repeating the edge, as on the CPU. Tightly packed images. */

__kernel void sharpen(__global const uchar* src, __global uchar* dst, int width, int height, int k) {
  const int x = (int)get_global_id(0), y = (int)get_global_id(1);
  if (x >= width || y >= height) return;
  const size_t at = (size_t)y * (size_t)width + (size_t)x;
  const int g = src[at];
  const int n = y > 0 ? src[at - (size_t)width] : g, s = y + 1 < height ? src[at + (size_t)width] : g;
  const int w = x > 0 ? src[at - 1] : g, e = x + 1 < width ? src[at + 1] : g;
  dst[at] = gpuvis_sharpened(g, n, s, w, e, k);
}

/* The sharpening before the threshold (threshold::Params::sharpen) for one pixel, in the C that
   g++, nvcc and the OpenCL C compiler all accept: the one definition the CPU and CUDA backends
   (threshold/sharpen_rules.hpp) and the OpenCL kernel (threshold/opencl/sharpen.cl) compile.

   g + k(4g - n - s - w - e)/4 in integers (division truncated towards zero), kept within the range
   of g and its four neighbours, where that range is at least GPUVIS_SHARPEN_MIN_RANGE grey levels;
   pixels whose neighbourhood spans fewer are left alone: sharpening them would only amplify noise
   and the faint texture of low-contrast prints (docs/benchmarks/detect.md). The limit matters:
   unlimited sharpening overshoots at every edge, and an overshoot just inside a Bernsen window
   whose edge lies just outside it makes a flat area look contrasted (black specks in large white
   leaves); limited, an edge only gets steeper. */
#ifndef GPUVIS_THRESHOLD_SHARPEN_RULE_H
#define GPUVIS_THRESHOLD_SHARPEN_RULE_H

#ifndef GPUVIS_RULE
#define GPUVIS_RULE static inline
#endif

#define GPUVIS_SHARPEN_MIN_RANGE 48

GPUVIS_RULE unsigned char gpuvis_sharpened(int g, int n, int s, int w, int e, int k) {
  const int lo_ns = n < s ? n : s, lo_we = w < e ? w : e, hi_ns = n > s ? n : s, hi_we = w > e ? w : e;
  int lo = lo_ns < lo_we ? lo_ns : lo_we, hi = hi_ns > hi_we ? hi_ns : hi_we;
  lo = g < lo ? g : lo;
  hi = g > hi ? g : hi;
  if (hi - lo < GPUVIS_SHARPEN_MIN_RANGE) return (unsigned char)g;
  const int v = g + k * (4 * g - n - s - w - e) / 4;
  return (unsigned char)(v < lo ? lo : (v > hi ? hi : v));
}

#endif

/* Where a filter reads outside the image: the border rules, in the C that g++, nvcc and the OpenCL
   C compiler all accept, so the CPU, CUDA and OpenCL filters map coordinates by one definition.
   Modes are numbered as filters::BorderMode (filters/border_index.hpp checks it). */
#ifndef GPUVIS_FILTERS_BORDER_RULE_H
#define GPUVIS_FILTERS_BORDER_RULE_H

#ifndef GPUVIS_RULE
#define GPUVIS_RULE static inline
#endif

#define GPUVIS_BORDER_CONSTANT 0   /* outside pixels have the border value */
#define GPUVIS_BORDER_REPLICATE 1  /* aaaa|abcd|dddd */
#define GPUVIS_BORDER_REFLECT 2    /* dcba|abcd|dcba (OpenCV BORDER_REFLECT) */
#define GPUVIS_BORDER_REFLECT101 3 /* dcb|abcd|cba   (OpenCV BORDER_REFLECT_101) */
#define GPUVIS_BORDER_WRAP 4       /* bcd|abcd|abc */

/* Coordinate i of an axis of n samples mapped into [0, n) by the mode; -1: use the constant. */
GPUVIS_RULE int gpuvis_border_index(int i, int n, int mode) {
  if (i >= 0 && i < n) return i;
  if (mode == GPUVIS_BORDER_CONSTANT) return -1;
  if (mode == GPUVIS_BORDER_REPLICATE) return i < 0 ? 0 : n - 1;
  if (mode == GPUVIS_BORDER_WRAP) {
    const int m = i % n;
    return m < 0 ? m + n : m;
  }
  if (n == 1) return 0;
  {
    const int d = mode == GPUVIS_BORDER_REFLECT ? 0 : 1;
    while (i < 0 || i >= n) i = i < 0 ? -i - 1 + d : 2 * n - i - 1 - d;
  }
  return i;
}

#endif

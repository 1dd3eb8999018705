/* reacTIVision's Bradley-Roth decision (spec §2.5) for one pixel, in the C that g++, nvcc and the
   OpenCL C compiler all accept: the one definition the CPU and CUDA backends (threshold/rules.hpp)
   and the OpenCL kernels (threshold/opencl/bradley_roth.cl) compile. All arithmetic is 32-bit
   unsigned with wrap-around, as in reacTIVision. (docs/thresholds.md)

   v: the pixel; s: the sum of its window [x0, x1) x [y0, y1), clamped to the frame; r: the
   window's half-size; k: 1024 - trunc(bias * 1024); m: the least mean. */
#ifndef GPUVIS_THRESHOLD_BRADLEY_ROTH_RULE_H
#define GPUVIS_THRESHOLD_BRADLEY_ROTH_RULE_H

#ifndef GPUVIS_RULE
#define GPUVIS_RULE static inline
#endif

GPUVIS_RULE unsigned char gpuvis_bradley_roth_rule(unsigned v, unsigned s, int x, int width, int x0, int x1, int y0, int y1, int r,
                                                   unsigned k, unsigned m) {
  const unsigned scaled = (s * k) >> 10;
  if (x < r || x >= width - r) {
    const unsigned n = (unsigned)((x1 - x0) * (y1 - y0));
    return (v * n > scaled && s > m * n) ? (unsigned char)255 : (unsigned char)0;
  }
  const unsigned np = (unsigned)((2 * r + 1) * (y1 - y0));
  const unsigned inv = (1u << 20) / np;
  const unsigned thr = (scaled * inv) >> 20;
  const unsigned mean = (s * inv) >> 20;
  return (v > thr && mean >= m) ? (unsigned char)255 : (unsigned char)0;
}

#endif

/* The full Bernsen decision for one pixel, in the C that g++, nvcc and the OpenCL C compiler all
   accept: the one definition the CPU and CUDA backends (threshold/rules.hpp) and the OpenCL kernels
   (threshold/opencl/bernsen.cl) compile, so all three give the same bytes. T = floor((max+min)/2);
   a window whose contrast max-min is under the gate is flat: black if T < 127, else white;
   otherwise a pixel is white iff it is brighter than T. (docs/thresholds.md) */
#ifndef GPUVIS_THRESHOLD_BERNSEN_RULE_H
#define GPUVIS_THRESHOLD_BERNSEN_RULE_H

#ifndef GPUVIS_RULE
#define GPUVIS_RULE static inline
#endif

GPUVIS_RULE unsigned char gpuvis_bernsen_rule(unsigned v, unsigned mx, unsigned mn, int gate) {
  const unsigned t = (mx + mn) >> 1;
  if ((int)mx - (int)mn < gate) return t < 127u ? (unsigned char)0 : (unsigned char)255;
  return v > t ? (unsigned char)255 : (unsigned char)0;
}

#endif

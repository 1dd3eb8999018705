/* reacTIVision's equaliser for one pixel (spec §2.3), in the C that g++, nvcc and the OpenCL C
   compiler all accept: the one definition the CPU (threshold/equalizer.cpp), CUDA
   (threshold/cuda/thresholder_cuda.cu) and OpenCL (threshold/opencl/equalize.cl) backends compile.
   The frame's level v minus the empty table's b there, plus the table's level at the centre, kept
   within 0..255. */
#ifndef GPUVIS_THRESHOLD_EQUALIZE_RULE_H
#define GPUVIS_THRESHOLD_EQUALIZE_RULE_H

#ifndef GPUVIS_RULE
#define GPUVIS_RULE static inline
#endif

GPUVIS_RULE unsigned char gpuvis_equalize_rule(int v, int b, int level) {
  const int e = v - b + level;
  return (unsigned char)(e < 0 ? 0 : (e > 255 ? 255 : e));
}

#endif

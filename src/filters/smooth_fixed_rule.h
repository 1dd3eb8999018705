/* 8-bit images smoothed by a symmetric separable kernel in 16-bit fixed point: the arithmetic, in
   the C that g++, nvcc and the OpenCL C compiler all accept, so that every backend computes the
   same bytes by one definition (filters/smooth_fixed.hpp says when a kernel is taken this way and
   what error it allows).

   A pass of a symmetric kernel of 2m + 1 taps has weights w[0] (the centre) .. w[m] (offset ±k), each
   the real weight times 65536 rounded (w[0] absorbs the rounding, so that the taps sum to at most
   65536). Samples enter as p << 7 (7 fraction bits, at most 32640); the two samples at ±k are added
   first (at most 65280, still 16 bits), then
       pass = bias + Σ_k gpuvis_smooth_tap(sum at ±k, w[k]),      bias = (m + 1) / 2
   is the pass's result with 7 fraction bits again (at most 32640 + m + 1 < 2^15: the pairs of the
   next pass fit 16 bits too). Each tap's product keeps its top 16 bits (x86's pmulhuw, one vector
   instruction for 16-bit lanes), which truncates by less than one unit (1/128 of a grey level);
   the bias centres those truncations. The row pass's results are the column pass's samples; the
   column pass's result rounds to a grey level by gpuvis_smooth_output. */
#ifndef GPUVIS_FILTERS_SMOOTH_FIXED_RULE_H
#define GPUVIS_FILTERS_SMOOTH_FIXED_RULE_H

#ifndef GPUVIS_RULE
#define GPUVIS_RULE static inline
#endif

#define GPUVIS_SMOOTH_FRACTION_BITS 7

/* A sample of the image as it enters the row pass. */
GPUVIS_RULE unsigned gpuvis_smooth_sample(unsigned grey) { return grey << GPUVIS_SMOOTH_FRACTION_BITS; }

/* One tap (a pair's sum, or the centre sample) times its weight: the product's top 16 bits. */
GPUVIS_RULE unsigned gpuvis_smooth_tap(unsigned sum, unsigned weight) { return (sum * weight) >> 16; }

/* A pass's starting value for m + 1 taps. */
GPUVIS_RULE unsigned gpuvis_smooth_bias(int half_taps) { return (unsigned)(half_taps + 1) / 2u; }

/* The column pass's result as a grey level: rounded half up, saturated at 255. */
GPUVIS_RULE unsigned gpuvis_smooth_output(unsigned pass) {
  const unsigned grey = (pass + (1u << (GPUVIS_SMOOTH_FRACTION_BITS - 1))) >> GPUVIS_SMOOTH_FRACTION_BITS;
  return grey > 255u ? 255u : grey;
}

#endif

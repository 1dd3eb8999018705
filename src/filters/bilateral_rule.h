/* The bilateral filter's per-pixel rule, in the C that g++, nvcc and the OpenCL C compiler all
   accept: the one definition the CPU, CUDA (filters/bilateral_rules.hpp) and OpenCL
   (filters/opencl/bilateral.cl) filters compile, so that all three give the same bytes. Every
   operation is a single IEEE float operation in a fixed order: the files that use it are built
   without FMA contraction (OpenCL: the pragma below), and OpenCL programs with correctly rounded
   division and square root (-cl-fp32-correctly-rounded-divide-sqrt).

   The includer may define, before including it:
     GPUVIS_RULE                 the functions' qualifiers (default: static inline)
     GPUVIS_BL_RINT(x)           round a float to the nearest integer, ties to even
     GPUVIS_BL_BITS_TO_FLOAT(b)  the float whose bits are the int b
     GPUVIS_BL_SQRT(x)           the float square root
   OpenCL C's built-ins are the defaults. */
#ifndef GPUVIS_FILTERS_BILATERAL_RULE_H
#define GPUVIS_FILTERS_BILATERAL_RULE_H

#ifndef GPUVIS_RULE
#define GPUVIS_RULE static inline
#endif
#ifndef GPUVIS_BL_RINT
#define GPUVIS_BL_RINT(x) rint(x)
#endif
#ifndef GPUVIS_BL_BITS_TO_FLOAT
#define GPUVIS_BL_BITS_TO_FLOAT(b) as_float(b)
#endif
#ifndef GPUVIS_BL_SQRT
#define GPUVIS_BL_SQRT(x) sqrt(x)
#endif
#if defined(__OPENCL_VERSION__)
#pragma OPENCL FP_CONTRACT OFF
#endif

/* exp(x) for the filter's weights (x <= 0), the same float on every backend, where the libraries'
   exp functions differ in the last bit and would move an output by one level at rounding ties.
   Cody-Waite reduction x = n·ln2 + r, |r| <= ln2/2, then a degree-6 Taylor polynomial (relative
   error < 2e-7) scaled by 2^n through the exponent bits. Below -87 the weight is held at
   exp(-87) ~ 1.6e-38, the smallest this scaling keeps normal; the centre's weight of 1 makes such
   weights immaterial. The CPU's vector loops (filters/cpu/row_kernels_hwy.cpp, WeightExp) mirror it
   operation for operation. */
#define GPUVIS_WEXP_MIN (-87.0f)
#define GPUVIS_WEXP_LOG2E 1.44269504088896341f
#define GPUVIS_WEXP_LN2_HI 0.693145751953125f /* 15 significant bits: n·LN2_HI is exact */
#define GPUVIS_WEXP_LN2_LO 1.42860682030941723212e-6f
#define GPUVIS_WEXP_C6 (1.0f / 720)
#define GPUVIS_WEXP_C5 (1.0f / 120)
#define GPUVIS_WEXP_C4 (1.0f / 24)
#define GPUVIS_WEXP_C3 (1.0f / 6)
#define GPUVIS_WEXP_C2 0.5f

GPUVIS_RULE float gpuvis_weight_exp(float x) {
  x = x > GPUVIS_WEXP_MIN ? x : GPUVIS_WEXP_MIN;
  const float n = GPUVIS_BL_RINT(x * GPUVIS_WEXP_LOG2E);
  const float r = (x - n * GPUVIS_WEXP_LN2_HI) - n * GPUVIS_WEXP_LN2_LO;
  float p = GPUVIS_WEXP_C6;
  p = p * r + GPUVIS_WEXP_C5;
  p = p * r + GPUVIS_WEXP_C4;
  p = p * r + GPUVIS_WEXP_C3;
  p = p * r + GPUVIS_WEXP_C2;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  return p * GPUVIS_BL_BITS_TO_FLOAT(((int)n + 127) << 23); /* 2^n, n in [-126, 0] */
}

/* The C output channels of one pixel into out[0..C), C a constant 1, 3 or 4 of the includer's. It
   is a macro because the three backends read the window differently (a ring of padded rows, a
   tile in shared or local memory, the image through the cache), and C has no closures: define
     GPUVIS_BL_FETCH(dx, dy, ch)  the neighbour's channel ch as a float (the border applied)
     GPUVIS_BL_SPACE(dx, dy)      the spatial weight exp((dx² + dy²) · space_coeff)
     GPUVIS_BL_RANGE(d2, coeff)   the range weight exp(d2 · coeff)
   before expanding it. `colour`: one range weight per pixel from the colour distance of the first
   three channels (alpha is filtered but not compared), the l1 distance squared when `l1`, else the
   l2 distance squared; otherwise one per channel. `adaptive`: σr is twice the window's standard
   deviation (pooled over the compared channels in colour mode), at least 0.5; otherwise
   `sigma_range`. The window is the disc dx² + dy² <= radius², taken row by row. */
#define GPUVIS_BILATERAL_PIXEL(C, radius, sigma_range, adaptive, colour, l1, out)                                  \
  do {                                                                                                             \
    float bl_centre[C], bl_coeff[C], bl_sum[C], bl_wsum[C], bl_v[C];                                               \
    const int bl_cc = (C) == 4 ? 3 : (C);                                                                          \
    for (int bl_c = 0; bl_c < (C); ++bl_c) bl_centre[bl_c] = GPUVIS_BL_FETCH(0, 0, bl_c);                          \
    if (adaptive) {                                                                                                \
      float bl_s[C], bl_s2[C], bl_ps = 0.0f, bl_ps2 = 0.0f;                                                        \
      int bl_n = 0;                                                                                                \
      for (int bl_c = 0; bl_c < (C); ++bl_c) bl_s[bl_c] = bl_s2[bl_c] = 0.0f;                                      \
      for (int bl_dy = -(radius); bl_dy <= (radius); ++bl_dy)                                                      \
        for (int bl_dx = -(radius); bl_dx <= (radius); ++bl_dx) {                                                  \
          if (bl_dx * bl_dx + bl_dy * bl_dy > (radius) * (radius)) continue;                                       \
          ++bl_n;                                                                                                  \
          for (int bl_c = 0; bl_c < (C); ++bl_c) {                                                                 \
            const float bl_d = GPUVIS_BL_FETCH(bl_dx, bl_dy, bl_c) - bl_centre[bl_c]; /* centred for accuracy */  \
            bl_s[bl_c] += bl_d;                                                                                    \
            bl_s2[bl_c] += bl_d * bl_d;                                                                            \
          }                                                                                                        \
        }                                                                                                          \
      for (int bl_c = 0; bl_c < bl_cc; ++bl_c) bl_ps += bl_s[bl_c], bl_ps2 += bl_s2[bl_c];                         \
      for (int bl_c = 0; bl_c < (C); ++bl_c) {                                                                     \
        const float bl_a = (colour) ? bl_ps : bl_s[bl_c], bl_a2 = (colour) ? bl_ps2 : bl_s2[bl_c];                 \
        const float bl_m = (colour) ? (float)(bl_n * bl_cc) : (float)bl_n;                                         \
        float bl_var = bl_a2 / bl_m - (bl_a / bl_m) * (bl_a / bl_m);                                               \
        bl_var = bl_var > 0.0f ? bl_var : 0.0f;                                                                    \
        float bl_sr = 2.0f * GPUVIS_BL_SQRT(bl_var);                                                               \
        bl_sr = bl_sr > 0.5f ? bl_sr : 0.5f; /* a flat window: any small σr gives the same result */              \
        bl_coeff[bl_c] = -0.5f / (bl_sr * bl_sr);                                                                  \
      }                                                                                                            \
    } else {                                                                                                       \
      for (int bl_c = 0; bl_c < (C); ++bl_c) bl_coeff[bl_c] = -0.5f / ((sigma_range) * (sigma_range));             \
    }                                                                                                              \
    for (int bl_c = 0; bl_c < (C); ++bl_c) bl_sum[bl_c] = bl_wsum[bl_c] = 0.0f;                                    \
    for (int bl_dy = -(radius); bl_dy <= (radius); ++bl_dy)                                                        \
      for (int bl_dx = -(radius); bl_dx <= (radius); ++bl_dx) {                                                    \
        if (bl_dx * bl_dx + bl_dy * bl_dy > (radius) * (radius)) continue;                                         \
        const float bl_ws = GPUVIS_BL_SPACE(bl_dx, bl_dy);                                                         \
        for (int bl_c = 0; bl_c < (C); ++bl_c) bl_v[bl_c] = GPUVIS_BL_FETCH(bl_dx, bl_dy, bl_c);                   \
        if (colour) {                                                                                              \
          float bl_d = 0.0f;                                                                                       \
          if (l1) {                                                                                                \
            for (int bl_c = 0; bl_c < bl_cc; ++bl_c)                                                               \
              bl_d += bl_v[bl_c] > bl_centre[bl_c] ? bl_v[bl_c] - bl_centre[bl_c] : bl_centre[bl_c] - bl_v[bl_c];  \
            bl_d *= bl_d;                                                                                          \
          } else {                                                                                                 \
            for (int bl_c = 0; bl_c < bl_cc; ++bl_c) bl_d += (bl_v[bl_c] - bl_centre[bl_c]) * (bl_v[bl_c] - bl_centre[bl_c]); \
          }                                                                                                        \
          const float bl_w = bl_ws * GPUVIS_BL_RANGE(bl_d, bl_coeff[0]);                                           \
          for (int bl_c = 0; bl_c < (C); ++bl_c) bl_sum[bl_c] += bl_w * bl_v[bl_c];                                \
          bl_wsum[0] += bl_w; /* one weight for every channel: their sums of weights are this one */               \
        } else {                                                                                                   \
          for (int bl_c = 0; bl_c < (C); ++bl_c) {                                                                 \
            const float bl_d = bl_v[bl_c] - bl_centre[bl_c];                                                       \
            const float bl_w = bl_ws * GPUVIS_BL_RANGE(bl_d * bl_d, bl_coeff[bl_c]);                               \
            bl_sum[bl_c] += bl_w * bl_v[bl_c];                                                                     \
            bl_wsum[bl_c] += bl_w;                                                                                 \
          }                                                                                                        \
        }                                                                                                          \
      }                                                                                                            \
    for (int bl_c = 0; bl_c < (C); ++bl_c) (out)[bl_c] = bl_sum[bl_c] / ((colour) ? bl_wsum[0] : bl_wsum[bl_c]);  \
  } while (0)

#endif

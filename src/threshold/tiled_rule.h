/* reacTIVision's tiled Bernsen (spec §2.4) in the C that g++, nvcc and the OpenCL C compiler all
   accept: the cell grid, a cell's statistics and a tile's threshold, the one definition the CPU
   and CUDA backends (threshold/rules.hpp) and the OpenCL kernels (threshold/opencl/tiled.cl)
   compile. (docs/thresholds.md) */
#ifndef GPUVIS_THRESHOLD_TILED_RULE_H
#define GPUVIS_THRESHOLD_TILED_RULE_H

#ifndef GPUVIS_RULE
#define GPUVIS_RULE static inline
#endif
#ifndef GPUVIS_GLOBAL
#define GPUVIS_GLOBAL /* OpenCL C: __global */
#endif

/* The offset cell grid along an axis of n pixels for tile T (spec §2.4 step 1): cell 0 = [0, h),
   cell k = [h + (k-1)T, h + kT) for k = 1..F, cell F+1 = [h + FT, n), with h = floor(T/2). */
GPUVIS_RULE int gpuvis_cell_count(int n, int tile) {
  const int half_tile = tile / 2;
  return (n >= half_tile ? (n - half_tile) / tile : 0) + 2;
}
GPUVIS_RULE int gpuvis_cell_begin(int k, int n, int tile) {
  const int b = k == 0 ? 0 : tile / 2 + (k - 1) * tile;
  return b < n ? b : n;
}
GPUVIS_RULE int gpuvis_cell_end(int k, int n, int tile) {
  const int e = k == gpuvis_cell_count(n, tile) - 1 ? n : tile / 2 + k * tile;
  return e < n ? e : n;
}

/* One cell's (min, max) with reacTIVision's sequential else-if update (quirk Q1): a pixel that
   lowers the running min never raises the running max. Packed as min | max << 8. */
GPUVIS_RULE unsigned gpuvis_cell_stats(GPUVIS_GLOBAL const unsigned char* src, long stride, int x0, int x1, int y0, int y1) {
  unsigned mn = 255u, mx = 0u;
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x) {
      const unsigned v = src[(long)y * stride + x];
      if (v < mn) mn = v;
      else if (v > mx) mx = v;
    }
  return mn | mx << 8;
}

/* A tile's threshold from its neighbourhood's min and max (spec §2.4 step 4). mx may be below mn
   (empty cells, quirk Q1): the difference is then negative and the low-contrast rule applies. */
GPUVIS_RULE int gpuvis_tiled_threshold(int mn, int mx, int gradient) {
  int t = (mn + mx) / 2;
  if (mx - mn < gradient) t = t < 128 ? 255 : 0;
  return t;
}

#endif

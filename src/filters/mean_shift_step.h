/* One mean shift step, in the C that g++, nvcc and the OpenCL C compiler all accept, for one
   variant: included once per variant, without an include guard, after filters/mean_shift_rule.h.
   The includer defines
     GPUVIS_MS_C          the channel count, 1..4
     GPUVIS_MS_GAUSSIAN   1 for the Gaussian kernel, 0 for the flat (Epanechnikov profile) one
     GPUVIS_MS_DIMS       the grid's axes: 2 image, 3 volume, 4 sequence of volumes
   and may define GPUVIS_GLOBAL (the features' address space) and GPUVIS_MS_LOAD(f, i, v) (voxel
   i's features into v[0..GPUVIS_MS_C); by default read from f, GPUVIS_MS_LANES(C) floats a voxel).
   The step is named gpuvis_ms_step_c<C>_g<GAUSSIAN>_d<DIMS> (GPUVIS_MS_STEP_NAME).

   The step moves p to the weighted mean of the voxels within distance 1 of it, visited in voxel
   order. The voxel grid is the neighbour structure: each row of the window is cut to the voxels
   inside the spatial ball, so only those are visited. The axes a grid does not have contribute
   exact zeros, which are left out, and the flat kernel's weight of one is not multiplied in, so
   every variant gives the general formula's floats. Returns 1 when the climb has ended (a step
   shorter than eps, or an empty window). */

#ifndef GPUVIS_GLOBAL
#define GPUVIS_GLOBAL
#endif
#define GPUVIS_MS_PASTE_(c, g, d) gpuvis_ms_step_c##c##_g##g##_d##d
#define GPUVIS_MS_PASTE(c, g, d) GPUVIS_MS_PASTE_(c, g, d)
#undef GPUVIS_MS_STEP_NAME
#define GPUVIS_MS_STEP_NAME GPUVIS_MS_PASTE(GPUVIS_MS_C, GPUVIS_MS_GAUSSIAN, GPUVIS_MS_DIMS)

#ifndef GPUVIS_MS_LOAD
#define GPUVIS_MS_LOAD_DEFAULT
#define GPUVIS_MS_LOAD(f, i, v)                                                                       \
  for (int c_ = 0; c_ < GPUVIS_MS_C; ++c_) (v)[c_] = (f)[(i) * GPUVIS_MS_LANES(GPUVIS_MS_C) + c_]
#endif

GPUVIS_RULE int GPUVIS_MS_STEP_NAME(gpuvis_ms_point* p, const gpuvis_ms_space* g, float eps, const GPUVIS_GLOBAL float* f) {
  const int C = GPUVIS_MS_C, dims = GPUVIS_MS_DIMS;
  const float inv_hs2 = 1.0f / (g->hs * g->hs), inv_hz2 = 1.0f / (g->hz * g->hz), inv_ht2 = 1.0f / (g->ht * g->ht);
  /* Positions are relative to the climb's start (ox, oy, oz, ot): voxel x is at x - ox. */
  const int ox = p->ox, oy = p->oy, oz = p->oz, ot = p->ot;
  const int x0 = gpuvis_ms_max_int(0, ox + (int)GPUVIS_MS_CEIL(p->x - g->hs));
  const int x1 = gpuvis_ms_min_int(g->width - 1, ox + (int)GPUVIS_MS_FLOOR(p->x + g->hs));
  const int y0 = gpuvis_ms_max_int(0, oy + (int)GPUVIS_MS_CEIL(p->y - g->hs));
  const int y1 = gpuvis_ms_min_int(g->height - 1, oy + (int)GPUVIS_MS_FLOOR(p->y + g->hs));
  const int z0 = dims >= 3 ? gpuvis_ms_max_int(0, oz + (int)GPUVIS_MS_CEIL(p->z - g->hz)) : 0;
  const int z1 = dims >= 3 ? gpuvis_ms_min_int(g->depth - 1, oz + (int)GPUVIS_MS_FLOOR(p->z + g->hz)) : 0;
  const int t0 = dims >= 4 ? gpuvis_ms_max_int(0, ot + (int)GPUVIS_MS_CEIL(p->t - g->ht)) : 0;
  const int t1 = dims >= 4 ? gpuvis_ms_min_int(g->frames - 1, ot + (int)GPUVIS_MS_FLOOR(p->t + g->ht)) : 0;
  float wsum = 0, mx = 0, my = 0, mz = 0, mt = 0, mr[GPUVIS_MS_C];
  for (int c = 0; c < C; ++c) mr[c] = 0;
  for (int t = t0; t <= t1; ++t) {
    const float dt2 = dims >= 4 ? gpuvis_ms_sq((float)(t - ot) - p->t) * inv_ht2 : 0.0f;
    for (int z = z0; z <= z1; ++z) {
      const float dz2 = dims >= 3 ? gpuvis_ms_sq((float)(z - oz) - p->z) * inv_hz2 : 0.0f;
      for (int y = y0; y <= y1; ++y) {
        const float dy = (float)(y - oy) - p->y;
        const GPUVIS_MS_I64 row = ((GPUVIS_MS_I64)t * g->depth + z) * g->height + y;
        /* The row's voxels within the spatial ball: |dx| <= h_s sqrt(1 - rest of d^2), widened by a
           margin far above float rounding, so that no voxel the plain scan would weigh is left out.
           (The spatial part of d^2 is (dx^2 + dy^2) / h_s^2, then + dz2, then + dt2.) */
        float rest_d2 = (0.0f * 0.0f + dy * dy) * inv_hs2;
        if (dims >= 3) rest_d2 += dz2;
        if (dims >= 4) rest_d2 += dt2;
        const float rest = 1.0f - rest_d2;
        if (rest < 0.0f) continue;
        const float reach = GPUVIS_MS_SQRT(rest) * g->hs * 1.0001f + 0.01f;
        const int xa = gpuvis_ms_max_int(x0, ox + (int)GPUVIS_MS_CEIL(p->x - reach));
        const int xb = gpuvis_ms_min_int(x1, ox + (int)GPUVIS_MS_FLOOR(p->x + reach));
        for (int x = xa; x <= xb; ++x) {
          const float dx = (float)(x - ox) - p->x;
          float d2 = (dx * dx + dy * dy) * inv_hs2;
          if (dims >= 3) d2 += dz2;
          if (dims >= 4) d2 += dt2;
          if (d2 > 1.0f) continue;
          float v[GPUVIS_MS_LANES(GPUVIS_MS_C)];
          GPUVIS_MS_LOAD(f, row * g->width + x, v);
          for (int c = 0; c < C; ++c) {
            const float d = v[c] - p->r[c];
            d2 += d * d;
          }
          if (d2 > 1.0f) continue;
#if GPUVIS_MS_GAUSSIAN
          const float w = gpuvis_ms_exp_minus_2(d2);
          wsum += w;
          mx += w * (float)(x - ox);
          my += w * (float)(y - oy);
          if (dims >= 3) mz += w * (float)(z - oz);
          if (dims >= 4) mt += w * (float)(t - ot);
          for (int c = 0; c < C; ++c) mr[c] += w * v[c];
#else
          wsum += 1.0f;
          mx += (float)(x - ox);
          my += (float)(y - oy);
          if (dims >= 3) mz += (float)(z - oz);
          if (dims >= 4) mt += (float)(t - ot);
          for (int c = 0; c < C; ++c) mr[c] += v[c];
#endif
        }
      }
    }
  }
  ++p->steps;
  if (wsum <= 0.0f) return 1; /* no point in the window: the climb stays where it is */
  const float nx = mx / wsum, ny = my / wsum;
  float shift2 = (gpuvis_ms_sq(nx - p->x) + gpuvis_ms_sq(ny - p->y)) * inv_hs2;
  if (dims >= 3) {
    const float nz = mz / wsum;
    shift2 += gpuvis_ms_sq(nz - p->z) * inv_hz2;
    p->z = nz;
  }
  if (dims >= 4) {
    const float nt = mt / wsum;
    shift2 += gpuvis_ms_sq(nt - p->t) * inv_ht2;
    p->t = nt;
  }
  for (int c = 0; c < C; ++c) {
    const float nr = mr[c] / wsum;
    shift2 += gpuvis_ms_sq(nr - p->r[c]);
    p->r[c] = nr;
  }
  p->x = nx;
  p->y = ny;
  return shift2 < eps * eps ? 1 : 0;
}

#ifdef GPUVIS_MS_LOAD_DEFAULT
#undef GPUVIS_MS_LOAD_DEFAULT
#undef GPUVIS_MS_LOAD
#endif

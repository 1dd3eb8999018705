/* Mean shift filtering on OpenCL, with the CPU's and CUDA's rules: filters/mean_shift_rule.h and
   filters/mean_shift_step.h are prepended to this source (after opencl/rule_prelude.cl). Built
   once per variant with -D GPUVIS_MS_C=1..4 -D GPUVIS_MS_GAUSSIAN=0|1 -D GPUVIS_MS_DIMS=2|3|4 and
   the sample type (-D SAMPLE=uchar|ushort|float -D INTEGER=0|1, filters/opencl/sample_options.hpp).

   Work items are laid out ROW_ITEMS to a row (Kernel::run's width): item (x, y) is number
   y * ROW_ITEMS + x. The climbs run in rounds of a few steps, as on CUDA: the unfinished ones are
   gathered into a queue (the clMeanShift study's process queue) and only they run on, so a work
   group is not held by one slow climb. The queue here is in append order (an atomic counter);
   every climb is computed on its own, so the order changes nothing in the result. */
#define ROW_ITEMS 1024
#define LANES GPUVIS_MS_LANES(GPUVIS_MS_C)

/* Each voxel's samples (C interleaved) to its features (LANES floats). */
__kernel void ms_features(__global const SAMPLE* restrict src, __global float* restrict f, gpuvis_ms_conversion conversion, long n) {
  const long i = (long)get_global_id(1) * ROW_ITEMS + (long)get_global_id(0);
  if (i >= n) return;
  const gpuvis_ms_conversion k = conversion;
  float v[4], out[4];
  for (int c = 0; c < GPUVIS_MS_C; ++c) v[c] = (float)src[i * GPUVIS_MS_C + c];
  gpuvis_ms_features(v, &k, out);
  for (int c = 0; c < LANES; ++c) f[i * LANES + c] = out[c];
}

/* One round: climbs queue_in[0..n) (every voxel 0..n in the first round, when use_queue is 0) for
   up to round_steps more steps (0: to the end). Ended climbs write their mode; the others save
   their state and append themselves to queue_out. */
__kernel void ms_climb(__global const float* restrict f, gpuvis_ms_space space, float eps, int max_iter, int round_steps,
                       __global const int* restrict queue_in, int use_queue, int n, __global float4* restrict position,
                       __global float* restrict range, __global int* restrict steps, __global int* restrict queue_out,
                       __global int* restrict n_out, __global float* restrict modes) {
  const long k = (long)get_global_id(1) * ROW_ITEMS + (long)get_global_id(0);
  if (k >= n) return;
  const gpuvis_ms_space g = space;
  const int idx = use_queue ? queue_in[k] : (int)k;
  gpuvis_ms_point p;
  if (use_queue) {
    const float zeros[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    p = gpuvis_ms_start(idx, &g, zeros, GPUVIS_MS_C); /* the climb's origin; its relative position comes from the state */
    const float4 pos = position[idx];
    p.x = pos.x, p.y = pos.y, p.z = pos.z, p.t = pos.w;
    for (int c = 0; c < 4; ++c) p.r[c] = c < GPUVIS_MS_C ? range[(long)idx * LANES + c] : 0.0f;
    p.steps = steps[idx];
  } else {
    float v[4];
    for (int c = 0; c < GPUVIS_MS_C; ++c) v[c] = f[(long)idx * LANES + c];
    p = gpuvis_ms_start(idx, &g, v, GPUVIS_MS_C);
  }
  const int limit = round_steps > 0 && max_iter - p.steps > round_steps ? p.steps + round_steps : max_iter;
  int ended = 0;
  while (p.steps < limit) {
    if (GPUVIS_MS_STEP_NAME(&p, &g, eps, f)) {
      ended = 1;
      break;
    }
  }
  if (ended || p.steps >= max_iter) {
    for (int c = 0; c < GPUVIS_MS_C; ++c) modes[(long)idx * LANES + c] = p.r[c];
  } else {
    position[idx] = (float4)(p.x, p.y, p.z, p.t);
    for (int c = 0; c < GPUVIS_MS_C; ++c) range[(long)idx * LANES + c] = p.r[c];
    steps[idx] = p.steps;
    queue_out[atomic_inc(n_out)] = idx;
  }
}

/* Each voxel's mode back to samples. */
__kernel void ms_samples(__global const float* restrict modes, __global SAMPLE* restrict dst, gpuvis_ms_conversion conversion, long n) {
  const long i = (long)get_global_id(1) * ROW_ITEMS + (long)get_global_id(0);
  if (i >= n) return;
  const gpuvis_ms_conversion k = conversion;
  float m[4], v[4];
  for (int c = 0; c < GPUVIS_MS_C; ++c) m[c] = modes[i * LANES + c];
  gpuvis_ms_samples(m, &k, v);
  for (int c = 0; c < GPUVIS_MS_C; ++c) {
#if INTEGER
    dst[i * GPUVIS_MS_C + c] = (SAMPLE)gpuvis_ms_integer_sample(v[c], k.full);
#else
    dst[i * GPUVIS_MS_C + c] = v[c];
#endif
  }
}

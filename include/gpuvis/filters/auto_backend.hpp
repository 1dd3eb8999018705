#pragma once
// How Backend::automatic runs the filters on host images. The GPU wins most calls, but not every
// one: from pageable memory a 1080p float convolution moves 16 MB over the bus and through the
// host's staging copies, which can take longer than the CPU's whole filter (docs/benchmarks/
// filters.md). So for each kind of call (filter, kernel or radius, options, element type,
// channels, size, and whether both images are page-locked) `automatic` runs the first call on the
// GPU backend it resolves to (CUDA, else an OpenCL GPU) to warm it up, the next four on the GPU,
// the CPU, the GPU and the CPU, timed, and from then on the one whose faster call was the
// faster (two calls each, so that one slowed by something else does not decide). A machine
// without a usable GPU runs everything on the CPU, as before; `--backend cuda|opencl|cpu` is never
// overridden. The backends give the same bytes for 8-bit smoothing and the bilateral filter and
// agree within the documented tolerance otherwise (docs/filters.md), so switching between them
// does not change results beyond that.
#include <string>
#include <vector>

#include "gpuvis/core/backend.hpp"

namespace gpuvis::filters {

// What automatic learnt for one kind of call in this process.
struct AutoChoice {
  std::string call;        // e.g. "convolve 7x7 f32x1 1920x1080 pageable"
  Backend gpu;             // the GPU backend it was measured against (cuda or opencl)
  double gpu_us = -1;      // the faster timed GPU call, µs (-1: not yet timed)
  double cpu_us = -1;      // the faster timed CPU call, µs (-1: not yet timed)
  Backend chosen;          // what the next call runs on
  long calls = 0;          // calls of this kind so far
};
std::vector<AutoChoice> auto_choices();
// Forgets what was learnt (benchmarks and tests start over with it).
void reset_auto_choices();

}  // namespace gpuvis::filters

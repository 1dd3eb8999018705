#pragma once
// Mean shift climbs on the CPU several at a time, one climb per vector lane. A climb's step visits
// its window's voxels in voxel order and adds each one's weight to six or more running sums, one
// after the other: one climb at a time, the core waits on those additions (and on the branches of
// the window's tests) more than it computes. In lanes, each climb still visits its own voxels in
// its own order and adds exactly what mean_shift_step.h adds (a voxel outside its window adds
// zero, which leaves a sum unchanged), so every mode is the one-at-a-time climb's, bit for bit.
// A lane whose climb ends takes the next voxel, as the CUDA backend's queue refills its threads.
// Two implementations share this interface: mean_shift_lanes_hwy.cpp (Google Highway, the best
// vector unit of the running CPU) when the build found Highway, else mean_shift_lanes_portable.cpp
// (none: the caller climbs one voxel at a time).
#include "filters/mean_shift_rules.hpp"

namespace gpuvis::filters::cpu_lanes {

// Climbs the voxels [first, last) of the grid `g` over `features` (lanes<channels> floats a voxel),
// each until its step is shorter than `eps` or it has taken `max_iter` steps (at least 1), and
// writes each one's mode to modes[voxel * lanes + c], c < channels. Returns false, having done
// nothing, where no vector implementation covers the call (this build, this CPU, or more than
// 2^31 floats of features): the caller then climbs one voxel at a time.
bool climb(int channels, bool gaussian, const mean_shift_rules::Space& g, float eps, int max_iter, const float* features,
           long long first, long long last, float* modes);

// The vector unit climb() uses ("AVX3", "AVX2", ...), or "" where it has none.
const char* target();

}  // namespace gpuvis::filters::cpu_lanes

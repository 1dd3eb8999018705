// Mean shift climbs in vector lanes (filters/cpu/mean_shift_lanes.hpp) in a build without Google
// Highway: none, so the CPU backend climbs one voxel at a time (the same modes).
#include "filters/cpu/mean_shift_lanes.hpp"

namespace gpuvis::filters::cpu_lanes {

bool climb(int, bool, const mean_shift_rules::Space&, float, int, const float*, long long, long long, float*) { return false; }

const char* target() { return ""; }

}  // namespace gpuvis::filters::cpu_lanes

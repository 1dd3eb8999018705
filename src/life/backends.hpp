#pragma once
// The backends behind life::make_simulation.
#include <memory>

#include "gpuvis/life/life.hpp"

namespace gpuvis::life {

// One generation on the CPU from `src` into `dst` (same size, resized if needed): cpu/step.cpp.
void step_cpu(const Board& src, Board& dst, const Rule& rule, Topology topology);

namespace opencl_impl {  // opencl/simulation_opencl.cpp
std::unique_ptr<Simulation> make_simulation(const Board& initial, const Params& options);
}

namespace cuda_impl {  // cuda/simulation.cu; throws ErrorCode::unsupported in builds without CUDA
std::unique_ptr<Simulation> make_simulation(const Board& initial, const Params& options);
}

}  // namespace gpuvis::life

#pragma once
// The backends behind life::make_simulation.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gpuvis/life/life.hpp"

namespace gpuvis::life {

// One generation on the CPU from `src` into `dst` (same size, resized if needed): cpu/step.cpp.
// A Generations rule also needs its dying ages, age_planes(rule) boards updated in place.
void step_cpu(const Board& src, Board& dst, const Rule& rule, Topology topology, std::vector<Board>* ages = nullptr);

// Each cell's state (0 dead, 1 live, 2..C-1 dying) from the live cells and the age planes, row by
// row into `out` (width x height bytes): generations.cpp.
void compose_states(const Board& alive, const std::vector<Board>& ages, std::vector<std::uint8_t>& out);

namespace opencl_impl {  // opencl/simulation_opencl.cpp
std::unique_ptr<Simulation> make_simulation(const Board& initial, const Params& options);
}

namespace cuda_impl {  // cuda/simulation.cu, cuda/rule_jit.cpp; called only where cuda::kBuilt
std::unique_ptr<Simulation> make_simulation(const Board& initial, const Params& options);
void advance_on_device(DeviceView<const std::uint8_t> cells, DeviceView<std::uint8_t> states, std::int64_t generations,
                       const Params& options, cuda::StreamHandle stream);
bool rule_compiler_available(std::string* why);
}

}  // namespace gpuvis::life

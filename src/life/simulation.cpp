// The backend-neutral entry points and the CPU simulation (two boards, swapped every generation).
#include <utility>

#include "gpuvis/cuda/runtime.hpp"
#include "gpuvis/core/error.hpp"
#include "gpuvis/life/life.hpp"
#include "gpuvis/opencl/devices.hpp"
#include "life/backends.hpp"
#include "cuda/built.hpp"

namespace gpuvis::life {
namespace {

class CpuSimulation final : public Simulation {
 public:
  CpuSimulation(const Board& initial, const Params& options)
      : options_(options), current_(checked_copy(initial)), next_(initial.width(), initial.height()),
        ages_(static_cast<std::size_t>(age_planes(options.rule)), Board(initial.width(), initial.height())) {}

  void advance(std::int64_t generations) override {
    require(generations >= 0, "the number of generations must not be negative");
    for (std::int64_t g = 0; g < generations; ++g) step();
  }
  void advance_counting(std::int64_t generations, const std::function<void(std::int64_t, std::uint64_t)>& each) override {
    require(generations >= 0, "the number of generations must not be negative");
    for (std::int64_t g = 0; g < generations; ++g) {
      step();
      each(generation_, current_.population());
    }
  }
  std::uint64_t population() override { return current_.population(); }
  void read(Board& out) override { out = current_; }
  void read_states(std::vector<std::uint8_t>& out) override { compose_states(current_, ages_, out); }
  std::int64_t generation() const override { return generation_; }
  Backend backend() const override { return Backend::cpu; }

 private:
  static Board checked_copy(const Board& b) {
    require_host_memory(b.width(), b.height(), 2);  // (Generations' age planes come on top)
    return b;
  }

  void step() {
    step_cpu(current_, next_, options_.rule, options_.topology, &ages_);
    std::swap(current_, next_);
    ++generation_;
  }
  Params options_;
  Board current_, next_;
  std::vector<Board> ages_;  // a Generations rule's dying ages, age_planes(rule) bit planes
  std::int64_t generation_ = 0;
};

}  // namespace

std::unique_ptr<Simulation> make_simulation(const Board& initial, const Params& options) {
  require(initial.width() > 0 && initial.height() > 0, "the initial board is empty");
  const Backend backend = opencl::prefer_opencl_gpu(options.backend, resolve_backend(options.backend));
  if (backend == Backend::cuda) {
    if constexpr (cuda::kBuilt) return cuda_impl::make_simulation(initial, options);
    else cuda::not_built("the CUDA simulation");
  }
  if (backend == Backend::opencl) return opencl_impl::make_simulation(initial, options);
  return std::make_unique<CpuSimulation>(initial, options);
}

void advance_on_device(DeviceView<const std::uint8_t> cells, DeviceView<std::uint8_t> states, std::int64_t generations,
                       const Params& options, cuda::StreamHandle stream) {
  require(generations >= 0, "the number of generations must not be negative");
  require(options.backend == Backend::automatic || options.backend == Backend::cuda,
          "Life: a board in device memory runs on the CUDA backend (copy it to the host for the " +
              std::string(to_string(options.backend)) + ")");
  require(!cells.empty() && cells.channels == 1, "Life: the board must be one byte per cell (H, W)");
  require(cells.width <= max_side && cells.height <= max_side, "Life: a board's sides are at most " + std::to_string(max_side));
  require(states.width == cells.width && states.height == cells.height && states.channels == 1,
          "Life: the states must have the board's size");
  if constexpr (cuda::kBuilt) cuda_impl::advance_on_device(cells, states, generations, options, stream);
  else cuda::not_built("Life on device memory");
}

bool compiled_rules_available(std::string* why) {
  if constexpr (cuda::kBuilt) {
    return cuda_impl::rule_compiler_available(why);
  } else {
    if (why) *why = "this gpuvis was built without CUDA";
    return false;
  }
}

Board run(const Board& initial, std::int64_t generations, const Params& options) {
  auto sim = make_simulation(initial, options);
  sim->advance(generations);
  Board out;
  sim->read(out);
  return out;
}

}  // namespace gpuvis::life

#pragma once
// Running a Life board for many generations on the CPU (bit-parallel, multi-threaded), on CUDA
// (bit-packed, several generations per launch) or on OpenCL (one generation per launch). All
// backends compute the same boards bit for bit.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gpuvis/core/backend.hpp"
#include "gpuvis/core/image.hpp"
#include "gpuvis/cuda/device_memory.hpp"
#include "gpuvis/life/board.hpp"
#include "gpuvis/life/rule.hpp"

namespace gpuvis::life {

struct Params {
  Rule rule = conway;
  Topology topology = Topology::torus;
  Backend backend = Backend::automatic;  // resolved by resolve_backend(): CUDA when a device is usable
};

// A board evolving under one rule; on CUDA it stays on the device between calls.
class Simulation {
 public:
  virtual ~Simulation() = default;
  // Advances `generations` (>= 0) generations.
  virtual void advance(std::int64_t generations) = 0;
  // Advances one generation at a time and reports (generation, population) after each; slower than
  // advance() on CUDA, which otherwise runs several generations per launch.
  virtual void advance_counting(std::int64_t generations,
                                const std::function<void(std::int64_t, std::uint64_t)>& each) = 0;
  virtual std::uint64_t population() = 0;
  // Copies the current board's live cells into `out` (resized as needed).
  virtual void read(Board& out) = 0;
  // Every cell's state, row by row (width x height bytes): 0 dead, 1 live, 2..C-1 dying under a
  // Generations rule (C states; two-state rules give 0 and 1 only). A simulation starts with no
  // dying cells. population() counts the live cells.
  virtual void read_states(std::vector<std::uint8_t>& out) = 0;
  virtual std::int64_t generation() const = 0;
  virtual Backend backend() const = 0;
};

// Throws ErrorCode::unsupported when the backend is not available or the board does not fit in its
// memory (the message names the size needed and the size free).
std::unique_ptr<Simulation> make_simulation(const Board& initial, const Params& options);

// A board already in CUDA device memory, one byte per cell (non-zero: alive), advanced
// `generations` generations on the device; every cell's state (as Simulation::read_states gives
// it) is written into `states`, device memory of the same size (it may be `cells` itself). The
// cells are packed into the bit board and unpacked on the device: nothing crosses the bus. They
// are read once the work queued on `stream` so far is done, and the call returns when `states` is
// written. The same boards as make_simulation's. CUDA only (options.backend cpu or opencl:
// ErrorCode::invalid_argument; a build without CUDA: ErrorCode::unsupported).
void advance_on_device(DeviceView<const std::uint8_t> cells, DeviceView<std::uint8_t> states, std::int64_t generations,
                       const Params& options, cuda::StreamHandle stream = nullptr);

// Whether rules other than Conway's get their own CUDA kernel, compiled at run time by NVRTC (part
// of the CUDA toolkit, opened on first use), for boards of 2^20 cells or more; otherwise the
// generic kernel runs them, with the same boards. `why` says why not. False without CUDA.
bool compiled_rules_available(std::string* why = nullptr);

// The board after `generations` generations.
Board run(const Board& initial, std::int64_t generations, const Params& options);

}  // namespace gpuvis::life

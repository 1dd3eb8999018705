// Game of Life throughput: cell updates per second on the CPU (all threads), on CUDA and on OpenCL
// (the device --backend opencl chooses), Conway's rule (compiled in), HighLife (a rule given at
// run time) and the Generations rule Star Wars (345/2/4: four states, two age planes), on a torus from a random soup of density 0.5. A case times advance(G) of a board
// already in place: on CUDA and OpenCL the board stays on the device (no transfers), the call
// returns when the generations have run.
#include <algorithm>

#include "gpuvis/core/parallel.hpp"
#include "gpuvis/life/life.hpp"
#include "gpuvis/opencl/devices.hpp"
#include "harness.hpp"
#ifdef GPUVIS_BENCH_CUDA
#include "gpuvis/cuda/runtime.hpp"
#endif

using namespace gpuvis;

int main(int argc, char** argv) {
  const auto args = bench::Args::parse(argc, argv);
  bench::Report report(args.out);
  bench::Options o;
  o.min_runs = args.quick ? 3 : 10;
  o.min_seconds = args.quick ? 0.2 : 1.0;
  o.warmup = 2;
  struct Case {
    int side;
    const char* backend;
    const char* rule;
    int generations;
  };
  std::vector<Case> cases = {{4096, "cpu", "B3/S23", 16}, {4096, "cpu", "B36/S23", 16}, {4096, "cpu", "B2/S345/C4", 16}};
#ifdef GPUVIS_BENCH_CUDA
  if (cuda::device_count() > 0) {
    report.set_gpu_description(cuda::devices().front().name);
    for (int side : {4096, 16384, 65536}) {
      cases.push_back({side, "cuda", "B3/S23", side >= 65536 ? 32 : 256});
      cases.push_back({side, "cuda", "B36/S23", side >= 65536 ? 32 : 256});
      if (side <= 16384) cases.push_back({side, "cuda", "B2/S345/C4", 64});
    }
  }
#endif
  if (!opencl::devices().empty())
    for (int side : {4096, 16384}) {
      cases.push_back({side, "opencl", "B3/S23", 64});
      cases.push_back({side, "opencl", "B36/S23", 64});
      cases.push_back({side, "opencl", "B2/S345/C4", 64});
    }
#ifdef GPUVIS_BENCH_CUDA
  // --filter rules: eight more rules at 16384² on CUDA, each in its own compiled kernel, beside Conway's.
  if (args.filter == "rules" && cuda::device_count() > 0) {
    cases.clear();
    for (const char* rule : {"B3/S23", "B36/S23", "B2/S", "B3678/S34678", "B1357/S1357", "B34/S34", "B35678/S5678", "B3/S012345678",
                             "B368/S245"})
      cases.push_back({16384, "cuda", rule, 256});
  }
#endif
  if (args.width > 0)
    cases.erase(std::remove_if(cases.begin(), cases.end(), [&](const Case& c) { return c.side != args.width; }), cases.end());
  for (const Case& c : cases) {
    if (args.filter != "rules" && !args.wants(c.backend)) continue;
    life::Board board(c.side, c.side);
    life::fill_random(board, 0.5, 1);
    life::Params opt{life::parse_rule(c.rule), life::Topology::torus, parse_backend(c.backend)};
    auto sim = life::make_simulation(board, opt);
    board = life::Board();  // only the simulation's copy stays
    bench::Record r{"life", c.rule, c.backend, std::string(c.backend) != "cpu" ? "device (board resident, no transfers)" : "host",
                    c.side, c.side, {{"generations", std::to_string(c.generations)}, {"threads", std::to_string(num_threads())}}, {}};
    r.stats = bench::measure([&] { return bench::time_us([&] { sim->advance(c.generations); }); }, o);
    const double updates = static_cast<double>(c.side) * c.side * c.generations;
    r.params["cell_updates_per_s"] = std::to_string(updates / (r.stats.median_us * 1e-6));
    report.add(r);
  }
  return 0;
}

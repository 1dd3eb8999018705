#pragma once
// The bookkeeping behind Backend::automatic for host-image filters (gpuvis/filters/auto_backend.hpp):
// per kind of call, which backend runs next and whether that call is timed.
#include <chrono>
#include <cstddef>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "gpuvis/filters/auto_backend.hpp"

namespace gpuvis::filters::detail {

class AutoBackend {
 public:
  struct Turn {
    Backend backend;
    bool timed;  // report the call's time with measured()
  };
  // The next call of kind `call`, whose automatic backend resolved to the GPU backend `gpu`: the
  // GPU for the first (a warm-up), then the GPU, the CPU, the GPU and the CPU again, timed, then
  // the backend whose faster timed call was the faster; the GPU while neither CPU call has
  // reported yet. Two timed calls each, so that one call slowed by something else on the machine
  // does not decide.
  Turn next(const std::string& call, Backend gpu);
  static constexpr long kExploringCalls = 5;
  static constexpr std::size_t kMostKinds = 4096;
  void measured(const std::string& call, Backend ran, double microseconds);
  std::vector<AutoChoice> choices() const;
  void reset();

 private:
  struct Entry {
    Backend gpu = Backend::cuda;
    double gpu_us = -1, cpu_us = -1;
    long calls = 0;
  };
  static Backend chosen(const Entry& e);
  mutable std::mutex mutex_;
  std::map<std::string, Entry> entries_;
};
AutoBackend& auto_backend();  // the process's one

// Runs `run(backend)` on the backend automatic picks for the call `kind()` names (see AutoBackend),
// timing it when asked. `resolved` is the backend resolve_backend/prefer_opencl_gpu gave; only a
// GPU backend resolved from Backend::automatic goes through the bookkeeping, and only then is the
// call's kind named.
template <class Kind, class Run>
void run_automatic(Backend requested, Backend resolved, Kind&& kind, Run&& run) {
  if (requested != Backend::automatic || resolved == Backend::cpu) return run(resolved);
  const std::string call = kind();
  const AutoBackend::Turn turn = auto_backend().next(call, resolved);
  if (!turn.timed) return run(turn.backend);
  const auto start = std::chrono::steady_clock::now();
  run(turn.backend);
  auto_backend().measured(call, turn.backend, std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
}

}  // namespace gpuvis::filters::detail

// Backend::automatic for host-image filters: the GPU and the CPU timed in turn, then the faster of the two.
#include "filters/auto_backend.hpp"

#include <algorithm>

namespace gpuvis::filters::detail {

Backend AutoBackend::chosen(const Entry& e) {
  if (e.gpu_us < 0 || e.cpu_us < 0) return e.gpu;
  return e.cpu_us < e.gpu_us ? Backend::cpu : e.gpu;
}

AutoBackend::Turn AutoBackend::next(const std::string& call, Backend gpu) {
  std::lock_guard lock(mutex_);
  // A process that filters images of ever new sizes (random crops) would otherwise keep a kind for
  // each: past kMostKinds it forgets them all and learns again.
  if (entries_.size() >= kMostKinds && !entries_.contains(call)) entries_.clear();
  Entry& e = entries_[call];
  e.gpu = gpu;
  const long n = e.calls++;
  if (n == 0) return {gpu, false};  // warms the GPU up: buffers, streams, programs
  if (n < kExploringCalls) return {n % 2 == 1 ? gpu : Backend::cpu, true};
  return {chosen(e), false};
}

void AutoBackend::measured(const std::string& call, Backend ran, double microseconds) {
  std::lock_guard lock(mutex_);
  Entry& e = entries_[call];
  double& best = ran == Backend::cpu ? e.cpu_us : e.gpu_us;
  best = best < 0 ? microseconds : std::min(best, microseconds);
}

std::vector<AutoChoice> AutoBackend::choices() const {
  std::lock_guard lock(mutex_);
  std::vector<AutoChoice> out;
  for (const auto& [call, e] : entries_) out.push_back({call, e.gpu, e.gpu_us, e.cpu_us, chosen(e), e.calls});
  return out;
}

void AutoBackend::reset() {
  std::lock_guard lock(mutex_);
  entries_.clear();
}

AutoBackend& auto_backend() {
  static AutoBackend one;
  return one;
}

}  // namespace gpuvis::filters::detail

namespace gpuvis::filters {
std::vector<AutoChoice> auto_choices() { return detail::auto_backend().choices(); }
void reset_auto_choices() { detail::auto_backend().reset(); }
}  // namespace gpuvis::filters

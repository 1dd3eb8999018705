#pragma once
// A small persistent thread pool for the CPU backend. Work is split into contiguous index ranges
// (rows, strips, columns) so each worker touches its own memory; results never depend on the
// number of threads.
#include <cstddef>
#include <algorithm>
#include <functional>
#include <vector>

namespace gpuvis {

// Number of worker threads the CPU backend uses (default: hardware concurrency).
int num_threads();
// Sets the number of threads (>= 1); 0 restores the default. Not thread-safe against running work.
void set_num_threads(int n);

// Calls body(begin, end) on disjoint sub-ranges covering [begin, end), in parallel. Sub-ranges hold
// at least `grain` indices. Exceptions thrown by body are rethrown on the calling thread.
void parallel_for(std::ptrdiff_t begin, std::ptrdiff_t end, std::ptrdiff_t grain,
                  const std::function<void(std::ptrdiff_t, std::ptrdiff_t)>& body);

// v = n copies of value, the stores spread over the pool's threads: per-frame arrays of a noisy 4K
// frame (hundreds of thousands of regions, tens of MB) took milliseconds to clear on one thread.
template <class T>
void parallel_assign(std::vector<T>& v, std::size_t n, const T& value) {
  v.resize(n);  // within the kept capacity after the first frames: only the new tail is initialised
  T* data = v.data();
  parallel_for(0, static_cast<std::ptrdiff_t>(n), std::ptrdiff_t{1} << 16,
               [&](std::ptrdiff_t b, std::ptrdiff_t e) { std::fill(data + b, data + e, value); });
}

}  // namespace gpuvis

#pragma once
// Per-thread buffers that keep their memory between calls. The CPU filters run bands of rows on
// the pool's threads many times a second; a fresh buffer of a few hundred KB per band is a fresh
// mmap whose page faults take the process's memory lock, so 16 threads mostly waited on each other
// (16-core Xeon: separable Gaussian u8 RGB at 4K scaled 3x from 2 to 16 threads; OpenCV 10x).
#include <cstddef>
#include <span>
#include <vector>

namespace gpuvis::filters::cpu_rows {

// n elements of this thread's buffer number kSlot (contents left from earlier use: callers write
// before they read). Distinct slots may be held at once.
template <class T, int kSlot>
std::span<T> thread_scratch(std::size_t n) {
  static thread_local std::vector<T> buffer;
  if (buffer.size() < n) buffer.resize(n);
  return {buffer.data(), n};
}

}  // namespace gpuvis::filters::cpu_rows

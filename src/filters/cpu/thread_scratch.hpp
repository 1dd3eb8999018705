#pragma once
// Per-thread buffers that keep their memory between calls. The CPU filters run bands of rows on
// the pool's threads many times a second; a fresh buffer of a few hundred KB per band is a fresh
// mmap whose page faults take the process's memory lock, so 16 threads mostly waited on each other
// (16-core Xeon: separable Gaussian u8 RGB at 4K scaled 3x from 2 to 16 threads; OpenCV 10x).
// The buffers start on a cache line (64 bytes), so rows laid out at cache_line_stride() are loaded
// as whole lines by 64-byte vectors, not each load straddling two lines.
#include <cstddef>
#include <new>
#include <span>
#include <vector>

namespace gpuvis::filters::cpu_rows {

inline constexpr std::size_t kCacheLine = 64;

template <class T>
struct CacheLineAllocator {
  using value_type = T;
  CacheLineAllocator() = default;
  template <class U>
  CacheLineAllocator(const CacheLineAllocator<U>&) {}
  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t{kCacheLine})); }
  void deallocate(T* p, std::size_t) { ::operator delete(p, std::align_val_t{kCacheLine}); }
  friend bool operator==(const CacheLineAllocator&, const CacheLineAllocator&) { return true; }
};

// n elements of this thread's buffer number kSlot, from a cache line on (contents left from
// earlier use: callers write before they read). Distinct slots may be held at once.
template <class T, int kSlot>
std::span<T> thread_scratch(std::size_t n) {
  static thread_local std::vector<T, CacheLineAllocator<T>> buffer;
  if (buffer.size() < n) buffer.resize(n);
  return {buffer.data(), n};
}

// Elements per row for rows of n elements that each start on a cache line.
template <class T>
constexpr std::size_t cache_line_stride(std::size_t n) {
  constexpr std::size_t per_line = kCacheLine / sizeof(T);
  return (n + per_line - 1) / per_line * per_line;
}

}  // namespace gpuvis::filters::cpu_rows

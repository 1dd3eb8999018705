#include "core/streaming_copy.hpp"

#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace gpuvis {

void copy_streaming(void* dst, const void* src, std::size_t bytes) {
#if defined(__SSE2__)  // every x86-64 CPU: 16-byte streaming stores
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  if (bytes >= 256) {
    const std::size_t head = (16 - (reinterpret_cast<std::uintptr_t>(d) & 15)) & 15;
    std::memcpy(d, s, head);
    d += head, s += head, bytes -= head;
    for (; bytes >= 64; bytes -= 64, d += 64, s += 64) {
      const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
      const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 16));
      const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 32));
      const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 48));
      _mm_stream_si128(reinterpret_cast<__m128i*>(d), a);
      _mm_stream_si128(reinterpret_cast<__m128i*>(d + 16), b);
      _mm_stream_si128(reinterpret_cast<__m128i*>(d + 32), c);
      _mm_stream_si128(reinterpret_cast<__m128i*>(d + 48), e);
    }
  }
  std::memcpy(d, s, bytes);
  _mm_sfence();  // streaming stores are weakly ordered: drain them before anyone reads
#else
  std::memcpy(dst, src, bytes);
#endif
}

#if defined(__x86_64__) || defined(__i386__)
namespace {

enum class Release { none, demote, flush };

Release release_instruction() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return Release::none;
  if (c & (1u << 25)) return Release::demote;  // CPUID.(EAX=7,ECX=0):ECX[25] CLDEMOTE
  if (b & (1u << 23)) return Release::flush;   // CPUID.(EAX=7,ECX=0):EBX[23] CLFLUSHOPT
  return Release::none;
}

// The cache lines that [p, p + bytes) touches: from the start of the first to the range's end.
struct Lines {
  std::uintptr_t first, end;
  Lines(const void* p, std::size_t bytes)
      : first(reinterpret_cast<std::uintptr_t>(p) & ~std::uintptr_t{63}), end(reinterpret_cast<std::uintptr_t>(p) + bytes) {}
};

__attribute__((target("cldemote"))) void demote_lines(const void* p, std::size_t bytes) {
  const Lines l(p, bytes);
  for (std::uintptr_t a = l.first; a < l.end; a += 64) _cldemote(reinterpret_cast<void*>(a));
}

__attribute__((target("clflushopt"))) void flush_lines(const void* p, std::size_t bytes) {
  const Lines l(p, bytes);
  for (std::uintptr_t a = l.first; a < l.end; a += 64) _mm_clflushopt(reinterpret_cast<void*>(a));
  _mm_sfence();  // CLFLUSHOPT is weakly ordered
}

}  // namespace

void copy_and_release_source(void* dst, const void* src, std::size_t bytes) {
  static const Release how = release_instruction();
  std::memcpy(dst, src, bytes);
  if (how == Release::demote) demote_lines(src, bytes);
  else if (how == Release::flush) flush_lines(src, bytes);
}
#else
void copy_and_release_source(void* dst, const void* src, std::size_t bytes) { std::memcpy(dst, src, bytes); }
#endif

}  // namespace gpuvis

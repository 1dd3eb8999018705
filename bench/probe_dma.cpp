// probe_dma: how fast the GPU's DMA moves a pinned host buffer depending on what the host's cores
// did to it just before (filled it with streaming or ordinary stores, read it, read it and then
// demoted or flushed its lines), and what that costs the host; also both directions at once. The
// evidence for how the CUDA strip pipeline treats its staging buffers (core/streaming_copy.hpp,
// cuda/strip_pipeline.hpp); results in docs/benchmarks/filters.md.
//
//   probe_dma            # 1, 2, 4 and 8 MiB; median of 35 runs after 5, CUDA events
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <vector>

#include "harness.hpp"
#include "core/streaming_copy.hpp"
#include "gpuvis/core/parallel.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

using namespace gpuvis;

namespace {

enum class HostCopy { streaming, ordinary, release_source, nta_loads };

#if defined(__x86_64__)
// Loads with a non-temporal prefetch ahead (PREFETCHNTA), ordinary stores: a way to read a buffer
// without keeping it in the core's caches, tried as an alternative to releasing the lines after.
__attribute__((target("avx2"))) void copy_nta(void* dst, const void* src, std::size_t bytes) {
  const auto* s = static_cast<const char*>(src);
  auto* d = static_cast<char*>(dst);
  std::size_t o = 0;
  for (; o + 64 <= bytes; o += 64) {
    _mm_prefetch(s + o + 512, _MM_HINT_NTA);
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + o));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + o + 32));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + o), a);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + o + 32), b);
  }
  std::memcpy(d + o, s + o, bytes - o);
}
#else
void copy_nta(void* dst, const void* src, std::size_t bytes) { std::memcpy(dst, src, bytes); }
#endif

// Copies `bytes` over all CPU threads in pieces of 128 KiB, as the strip pipeline does.
void host_copy(void* dst, const void* src, std::size_t bytes, HostCopy how) {
  constexpr std::size_t piece = std::size_t{128} << 10;
  parallel_for(0, static_cast<std::ptrdiff_t>((bytes + piece - 1) / piece), 1, [&](std::ptrdiff_t a, std::ptrdiff_t b) {
    for (std::ptrdiff_t i = a; i < b; ++i) {
      const std::size_t at = static_cast<std::size_t>(i) * piece, n = std::min(piece, bytes - at);
      char* d = static_cast<char*>(dst) + at;
      const char* s = static_cast<const char*>(src) + at;
      switch (how) {
        case HostCopy::streaming: copy_streaming(d, s, n); break;
        case HostCopy::ordinary: std::memcpy(d, s, n); break;
        case HostCopy::release_source: copy_and_release_source(d, s, n); break;
        case HostCopy::nta_loads: copy_nta(d, s, n); break;
      }
    }
  });
}

template <class F>
double median_of(F&& f) {
  std::vector<double> t;
  for (int r = 0; r < 40; ++r) t.push_back(f());
  std::sort(t.begin() + 5, t.end());
  return t[5 + 35 / 2];
}

void check(cudaError_t e) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "probe_dma: %s\n", cudaGetErrorString(e));
    std::exit(1);
  }
}

}  // namespace

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "probe_dma: no CUDA device\n");
    return 1;
  }
  cudaStream_t up, down;
  cudaEvent_t start, up_done, end;
  check(cudaStreamCreate(&up));
  check(cudaStreamCreate(&down));
  check(cudaEventCreate(&start));
  check(cudaEventCreate(&up_done));
  check(cudaEventCreate(&end));
  std::printf("%-9s %-58s %9s %8s\n", "size", "case", "median us", "GB/s");
  for (std::size_t mib : {1, 2, 4, 8}) {
    const std::size_t n = mib << 20;
    void *pinned_in = nullptr, *pinned_out = nullptr, *dev_in = nullptr, *dev_out = nullptr;
    check(cudaMallocHost(&pinned_in, n));
    check(cudaMallocHost(&pinned_out, n));
    check(cudaMalloc(&dev_in, n));
    check(cudaMalloc(&dev_out, n));
    std::vector<char> pageable(n, 1), pageable_out(n, 2);
    std::memset(pinned_in, 3, n);
    std::memset(pinned_out, 4, n);
    // Device time (CUDA events) of `transfer` after `before` ran on the host; both streams join.
    auto dma = [&](const char* name, const std::function<void()>& before, const std::function<void()>& transfer, double bytes) {
      const double us = median_of([&] {
        if (before) before();
        check(cudaEventRecord(start, up));
        check(cudaStreamWaitEvent(down, start));
        transfer();
        check(cudaEventRecord(up_done, down));
        check(cudaStreamWaitEvent(up, up_done));
        check(cudaEventRecord(end, up));
        check(cudaEventSynchronize(end));
        float ms = 0;
        check(cudaEventElapsedTime(&ms, start, end));
        return 1000.0 * ms;
      });
      std::printf("%5zu MiB %-58s %9.1f %8.1f\n", mib, name, us, bytes / (us * 1e3));
    };
    auto host = [&](const char* name, const std::function<void()>& f) {
      const double us = median_of([&] { return bench::time_us(f); });
      std::printf("%5zu MiB %-58s %9.1f %8.1f\n", mib, name, us, static_cast<double>(n) / (us * 1e3));
    };
    auto h2d = [&] { check(cudaMemcpyAsync(dev_in, pinned_in, n, cudaMemcpyHostToDevice, up)); };
    auto d2h = [&] { check(cudaMemcpyAsync(pinned_out, dev_out, n, cudaMemcpyDeviceToHost, down)); };
    const double one = static_cast<double>(n), two = 2.0 * one;
    dma("upload, untouched since the last", {}, h2d, one);
    dma("upload after the host filled it with streaming stores", [&] { host_copy(pinned_in, pageable.data(), n, HostCopy::streaming); }, h2d, one);
    dma("upload after the host filled it with ordinary stores", [&] { host_copy(pinned_in, pageable.data(), n, HostCopy::ordinary); }, h2d, one);
    dma("download, untouched since the last", {}, d2h, one);
    dma("download after the host read it", [&] { host_copy(pageable_out.data(), pinned_out, n, HostCopy::ordinary); }, d2h, one);
    dma("download after the host read it, then released its lines",
        [&] { host_copy(pageable_out.data(), pinned_out, n, HostCopy::release_source); }, d2h, one);
    dma("download after the host read it with PREFETCHNTA", [&] { host_copy(pageable_out.data(), pinned_out, n, HostCopy::nta_loads); }, d2h, one);
    dma("upload and download at once (two streams)", {}, [&] { h2d(), d2h(); }, two);
    dma("upload then download (one stream)", {}, [&] { check(cudaMemcpyAsync(dev_in, pinned_in, n, cudaMemcpyHostToDevice, down)), d2h(); }, two);
    host("host: fill with streaming stores", [&] { host_copy(pinned_in, pageable.data(), n, HostCopy::streaming); });
    host("host: read out, ordinary copy", [&] { host_copy(pageable_out.data(), pinned_out, n, HostCopy::ordinary); });
    host("host: read out, then release the lines", [&] { host_copy(pageable_out.data(), pinned_out, n, HostCopy::release_source); });
    check(cudaFreeHost(pinned_in));
    check(cudaFreeHost(pinned_out));
    check(cudaFree(dev_in));
    check(cudaFree(dev_out));
  }
  return 0;
}

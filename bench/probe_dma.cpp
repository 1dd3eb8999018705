// probe_dma: how fast the GPU's DMA moves a pinned host buffer depending on what the host's cores
// did to it just before (filled it with streaming or ordinary stores, read it, read it and then
// demoted or flushed its lines), and what that costs the host; also both directions at once. The
// evidence for how the CUDA strip pipeline treats its staging buffers (core/streaming_copy.hpp,
// cuda/strip_pipeline.hpp); results in docs/benchmarks/filters.md.
//
//   probe_dma            # 1, 2, 4 and 8 MiB; medians (bench::measure), CUDA events
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <vector>

#include "harness.hpp"
#include "core/streaming_copy.hpp"
#include "cuda/memory.hpp"
#include "gpuvis/core/parallel.hpp"
#include "gpuvis/cuda/runtime.hpp"

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

// Medians over at least 35 runs after 5 of warm-up.
double median_us(const std::function<double()>& run_once) {
  bench::Options o;
  o.warmup = 5;
  o.min_runs = 35;
  o.min_seconds = 0;
  return bench::measure(run_once, o).median_us;
}

// The DMA rates and the host's copy costs for buffers of `mib` MiB.
void probe(std::size_t mib, cuda::Stream& up, cuda::Stream& down) {
  const std::size_t n = mib << 20;
  cuda::PinnedBuffer pinned_in(n), pinned_out(n);
  cuda::DeviceBuffer dev_in(n), dev_out(n);
  std::vector<char> pageable(n, 1), pageable_out(n, 2);
  std::memset(pinned_in.get(), 3, n);
  std::memset(pinned_out.get(), 4, n);
  cuda::Event start, up_done, end;
  auto row = [&](const char* name, double us, double bytes) {
    std::printf("%5zu MiB %-58s %9.1f %8.1f\n", mib, name, us, bytes / (us * 1e3));
  };
  // Device time (CUDA events) of `transfer` after `before` ran on the host; both streams join.
  auto dma = [&](const char* name, const std::function<void()>& before, const std::function<void()>& transfer, double bytes) {
    row(name, median_us([&] {
          if (before) before();
          start.record(up);
          GPUVIS_CUDA_CHECK(cudaStreamWaitEvent(down, start.get()));
          transfer();
          up_done.record(down);
          GPUVIS_CUDA_CHECK(cudaStreamWaitEvent(up, up_done.get()));
          end.record(up);
          return 1000.0 * cuda::Event::elapsed_ms(start, end);
        }),
        bytes);
  };
  auto host = [&](const char* name, const std::function<void()>& f) { row(name, median_us([&] { return bench::time_us(f); }), double(n)); };
  auto h2d = [&](cudaStream_t s) { GPUVIS_CUDA_CHECK(cudaMemcpyAsync(dev_in.get(), pinned_in.get(), n, cudaMemcpyHostToDevice, s)); };
  auto d2h = [&] { GPUVIS_CUDA_CHECK(cudaMemcpyAsync(pinned_out.get(), dev_out.get(), n, cudaMemcpyDeviceToHost, down)); };
  auto fill = [&](HostCopy how) { host_copy(pinned_in.get(), pageable.data(), n, how); };
  auto read_out = [&](HostCopy how) { host_copy(pageable_out.data(), pinned_out.get(), n, how); };
  const double one = static_cast<double>(n), two = 2.0 * one;
  dma("upload, untouched since the last", {}, [&] { h2d(up); }, one);
  dma("upload after the host filled it with streaming stores", [&] { fill(HostCopy::streaming); }, [&] { h2d(up); }, one);
  dma("upload after the host filled it with ordinary stores", [&] { fill(HostCopy::ordinary); }, [&] { h2d(up); }, one);
  dma("download, untouched since the last", {}, d2h, one);
  dma("download after the host read it", [&] { read_out(HostCopy::ordinary); }, d2h, one);
  dma("download after the host read it, then released its lines", [&] { read_out(HostCopy::release_source); }, d2h, one);
  dma("download after the host read it with PREFETCHNTA", [&] { read_out(HostCopy::nta_loads); }, d2h, one);
  dma("upload and download at once (two streams)", {}, [&] { h2d(up), d2h(); }, two);
  dma("upload then download (one stream)", {}, [&] { h2d(down), d2h(); }, two);
  host("host: fill with streaming stores", [&] { fill(HostCopy::streaming); });
  host("host: read out, ordinary copy", [&] { read_out(HostCopy::ordinary); });
  host("host: read out, then release the lines", [&] { read_out(HostCopy::release_source); });
}

}  // namespace

int main() {
  try {
    if (cuda::device_count() == 0) {
      std::fprintf(stderr, "probe_dma: no CUDA device\n");
      return 1;
    }
    cuda::Stream up, down;
    std::printf("%-9s %-58s %9s %8s\n", "size", "case", "median us", "GB/s");
    for (std::size_t mib : {1, 2, 4, 8}) probe(mib, up, down);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "probe_dma: %s\n", e.what());
    return 1;
  }
}

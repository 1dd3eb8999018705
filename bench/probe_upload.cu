// probe_upload: how fast a grey frame goes up to the device, and what the ways of sending it cost
// (docs/benchmarks/pipeline.md, "the frame's way in"). A stand-alone probe on the CUDA runtime
// alone: one pinned host frame (rows of 64-byte multiples, as cuda::PinnedImage) copied by one
// linear copy, by a 2D copy into a pitched image (what the detector's upload does), and split into
// parts on one or several streams; and the copy before a graph against the copy inside it.
//
// Medians of 3000 runs after 300 of warm-up: "wall" is the host's time from enqueueing to the end
// of an event synchronisation, "device" the time between events recorded around the work.
//
//   probe_upload
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

namespace {

void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "probe_upload: %s: %s\n", what, cudaGetErrorString(e));
  std::exit(1);
}

__global__ void empty_kernel() {}

double now_us() { return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

struct Timing {
  double wall_us, device_us;
};

// The medians of `enqueue` bracketed by events on `s` (work on other streams must join s).
Timing measure(const std::function<void()>& enqueue, cudaStream_t s, cudaEvent_t a, cudaEvent_t b) {
  constexpr int kWarmUp = 300, kRuns = 3000;
  for (int i = 0; i < kWarmUp; ++i) {
    enqueue();
    check(cudaStreamSynchronize(s), "warm-up");
  }
  std::vector<double> wall(kRuns), device(kRuns);
  for (int i = 0; i < kRuns; ++i) {
    const double t0 = now_us();
    check(cudaEventRecord(a, s), "event");
    enqueue();
    check(cudaEventRecord(b, s), "event");
    check(cudaEventSynchronize(b), "run");
    wall[i] = now_us() - t0;
    float ms = 0;
    check(cudaEventElapsedTime(&ms, a, b), "elapsed");
    device[i] = 1000.0 * ms;
  }
  std::sort(wall.begin(), wall.end());
  std::sort(device.begin(), device.end());
  return {wall[kRuns / 2], device[kRuns / 2]};
}

void print(const char* size, const char* what, Timing t) {
  std::printf("%-10s %-44s wall %8.2f us  device %8.2f us\n", size, what, t.wall_us, t.device_us);
  std::fflush(stdout);
}

}  // namespace

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "probe_upload: no CUDA device\n");
    return 1;
  }
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "device properties");
  std::printf("device: %s\n", prop.name);
  constexpr int kStreams = 4;
  cudaStream_t s[kStreams];
  for (auto& x : s) check(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking), "stream");
  cudaEvent_t a, b, fork, join[kStreams];
  check(cudaEventCreate(&a), "event");
  check(cudaEventCreate(&b), "event");
  check(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming), "event");
  for (auto& j : join) check(cudaEventCreateWithFlags(&j, cudaEventDisableTiming), "event");
  print("-", "empty kernel", measure([&] { empty_kernel<<<1, 32, 0, s[0]>>>(); }, s[0], a, b));

  const int sizes[][2] = {{640, 480}, {1920, 1080}, {3840, 2160}};
  for (const auto& wh : sizes) {
    const int w = wh[0], h = wh[1];
    char size[32];
    std::snprintf(size, sizeof size, "%dx%d", w, h);
    const std::size_t stride = (static_cast<std::size_t>(w) + 63) / 64 * 64, bytes = stride * static_cast<std::size_t>(h);
    unsigned char *host = nullptr, *linear = nullptr, *pitched = nullptr;
    std::size_t pitch = 0;
    check(cudaHostAlloc(reinterpret_cast<void**>(&host), bytes, cudaHostAllocDefault), "pinned frame");
    for (std::size_t i = 0; i < bytes; ++i) host[i] = static_cast<unsigned char>(i * 7);
    check(cudaMalloc(reinterpret_cast<void**>(&linear), bytes), "device frame");
    check(cudaMallocPitch(reinterpret_cast<void**>(&pitched), &pitch, static_cast<std::size_t>(w), static_cast<std::size_t>(h)), "pitched frame");
    std::printf("%s: host row stride %zu, device pitch %zu\n", size, stride, pitch);
    const auto copy_2d = [&](cudaStream_t st) {
      check(cudaMemcpy2DAsync(pitched, pitch, host, stride, static_cast<std::size_t>(w), static_cast<std::size_t>(h), cudaMemcpyHostToDevice, st),
            "2D copy");
    };
    const auto copy_linear = [&](cudaStream_t st) { check(cudaMemcpyAsync(linear, host, bytes, cudaMemcpyHostToDevice, st), "copy"); };
    print(size, "linear copy", measure([&] { copy_linear(s[0]); }, s[0], a, b));
    print(size, "2D copy into a pitched image", measure([&] { copy_2d(s[0]); }, s[0], a, b));
    for (int parts : {2, 4}) {
      const std::size_t part = (bytes / parts + 63) / 64 * 64;
      const auto copy_part = [&](int i, cudaStream_t st) {
        const std::size_t at = i * part;
        check(cudaMemcpyAsync(linear + at, host + at, std::min(part, bytes - at), cudaMemcpyHostToDevice, st), "part copy");
      };
      char what[64];
      std::snprintf(what, sizeof what, "linear copy in %d parts, one stream", parts);
      print(size, what, measure([&] {
              for (int i = 0; i < parts; ++i) copy_part(i, s[0]);
            }, s[0], a, b));
      std::snprintf(what, sizeof what, "linear copy in %d parts, %d streams", parts, parts);
      print(size, what, measure([&] {
              check(cudaEventRecord(fork, s[0]), "fork");
              for (int i = 1; i < parts; ++i) check(cudaStreamWaitEvent(s[i], fork, 0), "fork");
              for (int i = 0; i < parts; ++i) copy_part(i, s[i]);
              for (int i = 1; i < parts; ++i) {
                check(cudaEventRecord(join[i], s[i]), "join");
                check(cudaStreamWaitEvent(s[0], join[i], 0), "join");
              }
            }, s[0], a, b));
    }
    // The copy before a graph of one kernel (the detector's way) and inside the graph.
    cudaGraph_t kernel_only = nullptr, with_copy = nullptr;
    cudaGraphExec_t kernel_exec = nullptr, copy_exec = nullptr;
    check(cudaStreamBeginCapture(s[1], cudaStreamCaptureModeThreadLocal), "capture");
    empty_kernel<<<1, 32, 0, s[1]>>>();
    check(cudaStreamEndCapture(s[1], &kernel_only), "capture");
    check(cudaGraphInstantiate(&kernel_exec, kernel_only, 0), "instantiate");
    check(cudaStreamBeginCapture(s[1], cudaStreamCaptureModeThreadLocal), "capture");
    copy_2d(s[1]);
    empty_kernel<<<1, 32, 0, s[1]>>>();
    check(cudaStreamEndCapture(s[1], &with_copy), "capture");
    check(cudaGraphInstantiate(&copy_exec, with_copy, 0), "instantiate");
    print(size, "2D copy, then a graph of one kernel", measure([&] {
            copy_2d(s[1]);
            check(cudaGraphLaunch(kernel_exec, s[1]), "graph");
          }, s[1], a, b));
    print(size, "one graph: 2D copy and the kernel", measure([&] { check(cudaGraphLaunch(copy_exec, s[1]), "graph"); }, s[1], a, b));
    cudaGraphExecDestroy(kernel_exec);
    cudaGraphExecDestroy(copy_exec);
    cudaGraphDestroy(kernel_only);
    cudaGraphDestroy(with_copy);
    cudaFreeHost(host);
    cudaFree(linear);
    cudaFree(pitched);
  }
  return 0;
}

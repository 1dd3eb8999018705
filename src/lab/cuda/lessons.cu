// The lessons' GPU halves: reductions for a dot product, memory spaces, atomics, streams.
#include <cuda_runtime.h>
#include <thrust/execution_policy.h>
#include <thrust/inner_product.h>

#include <cmath>
#include <cstdio>
#include <sstream>

#include "lab/lab_common.hpp"
#include "lab/cuda/arrays.cuh"
#include "cuda/check.hpp"
#include "cuda/memory.hpp"
#include "gpuvis/cuda/runtime.hpp"
#include "gpuvis/lab/lab.hpp"
#include "lab/backends.hpp"

namespace gpuvis::lab::cuda_impl {
namespace {

// Times `body` on the default stream with events: median of `runs` after one warm-up, in us.
template <class F>
double event_median(int runs, F&& body) {
  cuda::Event a, b;
  std::vector<double> t;
  for (int r = 0; r <= runs; ++r) {
    a.record(nullptr);
    body();
    b.record(nullptr);
    const double us = cuda::Event::elapsed_ms(a, b) * 1000.0;
    if (r) t.push_back(us);
  }
  return median(t);
}

int blocks_for(std::size_t n, int threads) {
  return static_cast<int>(std::min<std::size_t>((n + threads - 1) / threads, 132 * 16));
}

// ---- dot --------------------------------------------------------------------------------------
// The course's reduction: a tree in shared memory per block, the block's sum added atomically.
__global__ void dot_shared_tree(const float* x, const float* y, std::size_t n, float* out) {
  __shared__ float s[256];
  float v = 0;
  for (std::size_t i = blockIdx.x * 256ull + threadIdx.x; i < n; i += 256ull * gridDim.x) v += x[i] * y[i];
  s[threadIdx.x] = v;
  __syncthreads();
  for (int stride = 128; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, s[0]);
}

// Warp shuffles instead of shared memory, partials in double, one atomic per warp.
__global__ void dot_warp_shuffle(const float* x, const float* y, std::size_t n, double* out) {
  double v = 0;
  const std::size_t stride = static_cast<std::size_t>(blockDim.x) * gridDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride)
    v += static_cast<double>(x[i] * y[i]);
  for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
  if ((threadIdx.x & 31) == 0) atomicAdd(out, v);
}

// ---- memory -----------------------------------------------------------------------------------
constexpr int mem_iters = 4096;
__constant__ float constant_table[256];

enum class Space { reg, global, shared, constant_uniform, constant_divergent };

template <Space S>
__global__ void memory_kernel(const float* __restrict__ global_table, float* out, float seed) {
  __shared__ float shared_table[256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x) shared_table[i] = global_table[i];
  __syncthreads();
  const volatile float* g = global_table;  // volatile: read every time, as the lesson wants
  const volatile float* sh = shared_table;
  const int lane = threadIdx.x & 31;
  float acc = seed + threadIdx.x, r = global_table[threadIdx.x & 255];
  for (int i = 0; i < mem_iters; ++i) {
    float v;
    if constexpr (S == Space::reg) v = r;
    else if constexpr (S == Space::global) v = g[(i + lane) & 255];
    else if constexpr (S == Space::shared) v = sh[(i + lane) & 255];
    else if constexpr (S == Space::constant_uniform) v = constant_table[i & 255];
    else v = constant_table[(i * 33 + lane * 8) & 255];
    acc = acc * 0.999f + v;
    if constexpr (S == Space::reg) r = r * 1.0001f;  // keeps the register operand live and changing
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// ---- atomics ----------------------------------------------------------------------------------
__global__ void count_race(unsigned long long* counter, std::size_t n) {
  volatile unsigned long long* c = counter;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(blockDim.x) * gridDim.x)
    *c = *c + 1;  // load, add, store: other threads' increments in between are lost
}
__global__ void count_atomic(unsigned long long* counter, std::size_t n) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(blockDim.x) * gridDim.x)
    atomicAdd(counter, 1ull);
}
__global__ void count_warp_aggregated(unsigned long long* counter, std::size_t n) {
  for (std::size_t base = blockIdx.x * static_cast<std::size_t>(blockDim.x); base < n;
       base += static_cast<std::size_t>(blockDim.x) * gridDim.x) {
    const bool mine = base + threadIdx.x < n;
    const unsigned active = __ballot_sync(0xffffffffu, mine);
    if ((threadIdx.x & 31) == 0 && active) atomicAdd(counter, static_cast<unsigned long long>(__popc(active)));
  }
}
__global__ void count_block_shared(unsigned long long* counter, std::size_t n) {
  __shared__ unsigned int local;
  if (threadIdx.x == 0) local = 0;
  __syncthreads();
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(blockDim.x) * gridDim.x)
    atomicAdd(&local, 1u);
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(counter, static_cast<unsigned long long>(local));
}

// ---- streams ----------------------------------------------------------------------------------
constexpr int stream_rounds = 48;  // enough integer work per element that the kernel takes about as long as a copy

__host__ __device__ inline unsigned work(unsigned v) {
  for (int r = 0; r < stream_rounds; ++r) v = (v ^ (v >> 15)) * 0x2c1b3c6du + 0x9e3779b9u;
  return v;
}
__global__ void work_kernel(const unsigned* in, unsigned* out, std::size_t n) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(blockDim.x) * gridDim.x)
    out[i] = work(in[i]);
}

}  // namespace

void dot(const LessonParams& o, const std::vector<float>& x, const std::vector<float>& y, double reference, Table& t) {
  const std::size_t n = x.size();
  DeviceArray<float> dx(n), dy(n);
  DeviceArray<float> fsum(1);
  DeviceArray<double> dsum(1);
  GPUVIS_CUDA_CHECK(cudaMemcpy(dx.p, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  GPUVIS_CUDA_CHECK(cudaMemcpy(dy.p, y.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  const double bytes = 2.0 * n * sizeof(float);
  const int blocks = blocks_for(n, 256);
  auto add = [&](const std::string& name, double us, double result, double tol, const std::string& note) {
    Row r{name, "cuda", us, bytes / (us * 1e3), "GB/s", "kernel (vectors on the device)", "", true, false, note};
    bool ok = false;
    r.check = relative_error_text(result, reference, tol, ok);
    r.correct = ok;
    t.rows.push_back(r);
  };
  float fres = 0;
  const double us_tree = event_median(o.runs, [&] {
    GPUVIS_CUDA_CHECK(cudaMemsetAsync(fsum.p, 0, sizeof(float)));
    dot_shared_tree<<<blocks, 256>>>(dx.p, dy.p, n, fsum.p);
    GPUVIS_CUDA_CHECK(cudaGetLastError());
  });
  GPUVIS_CUDA_CHECK(cudaMemcpy(&fres, fsum.p, sizeof fres, cudaMemcpyDeviceToHost));
  add("cuda-shared-tree-atomic", us_tree, fres, 1e-4, "the course's: shared-memory tree per block, float atomicAdd of block sums");
  double dres = 0;
  const double us_warp = event_median(o.runs, [&] {
    GPUVIS_CUDA_CHECK(cudaMemsetAsync(dsum.p, 0, sizeof(double)));
    dot_warp_shuffle<<<blocks, 256>>>(dx.p, dy.p, n, dsum.p);
    GPUVIS_CUDA_CHECK(cudaGetLastError());
  });
  GPUVIS_CUDA_CHECK(cudaMemcpy(&dres, dsum.p, sizeof dres, cudaMemcpyDeviceToHost));
  add("cuda-warp-shuffle", us_warp, dres, 1e-9, "shuffles within each warp, partials in double, one atomic per warp");
  double tres = 0;
  const double us_thrust = event_median(o.runs, [&] { tres = thrust::inner_product(thrust::device, dx.p, dx.p + n, dy.p, 0.0); });
  add("cuda-thrust-inner-product", us_thrust, tres, 1e-9, "thrust::inner_product (CUB underneath), double accumulation; includes the result's copy back");
  // End to end: both vectors uploaded from pinned memory, reduced, the sum copied back.
  PinnedArray<float> hx(n), hy(n);
  std::copy(x.begin(), x.end(), hx.p);
  std::copy(y.begin(), y.end(), hy.p);
  const double us_e2e = event_median(std::min(o.runs, 10), [&] {
    GPUVIS_CUDA_CHECK(cudaMemcpyAsync(dx.p, hx.p, n * sizeof(float), cudaMemcpyHostToDevice));
    GPUVIS_CUDA_CHECK(cudaMemcpyAsync(dy.p, hy.p, n * sizeof(float), cudaMemcpyHostToDevice));
    GPUVIS_CUDA_CHECK(cudaMemsetAsync(dsum.p, 0, sizeof(double)));
    dot_warp_shuffle<<<blocks, 256>>>(dx.p, dy.p, n, dsum.p);
    GPUVIS_CUDA_CHECK(cudaMemcpyAsync(&dres, dsum.p, sizeof dres, cudaMemcpyDeviceToHost));
  });
  add("cuda-warp-shuffle-end-to-end", us_e2e, dres, 1e-9, "pinned uploads of both vectors + kernel + result: the bus, not the GPU, sets the time");
  t.rows.back().scope = "end to end (pinned copies included)";
}

Table memory(const LessonParams& o) {
  Table t;
  t.title = "memory spaces: " + std::to_string(mem_iters) + " dependent reads per thread";
  const int blocks = 132 * 8, threads = 256;
  DeviceArray<float> table(256), out(static_cast<std::size_t>(blocks) * threads);
  std::vector<float> host(256);
  for (int i = 0; i < 256; ++i) host[i] = 0.001f * static_cast<float>(i);
  GPUVIS_CUDA_CHECK(cudaMemcpy(table.p, host.data(), sizeof(float) * 256, cudaMemcpyHostToDevice));
  GPUVIS_CUDA_CHECK(cudaMemcpyToSymbol(constant_table, host.data(), sizeof(float) * 256));
  const double reads = static_cast<double>(blocks) * threads * mem_iters;
  auto add = [&](const std::string& name, double us, const std::string& note) {
    t.rows.push_back(Row{name, "cuda", us, reads / (us * 1e3), "G reads/s", "kernel", "", true, false, note});
  };
  add("register", event_median(o.runs, [&] { memory_kernel<Space::reg><<<blocks, threads>>>(table.p, out.p, 1.f); }),
      "operand in a register: the loop runs at the speed of its arithmetic chain");
  add("shared", event_median(o.runs, [&] { memory_kernel<Space::shared><<<blocks, threads>>>(table.p, out.p, 1.f); }),
      "volatile shared-memory reads, conflict-free (consecutive lanes, consecutive words)");
  add("global", event_median(o.runs, [&] { memory_kernel<Space::global><<<blocks, threads>>>(table.p, out.p, 1.f); }),
      "volatile global reads of a table that stays in cache: each read waits the cache's latency");
  add("constant-uniform", event_median(o.runs, [&] { memory_kernel<Space::constant_uniform><<<blocks, threads>>>(table.p, out.p, 1.f); }),
      "every lane reads the same constant: one broadcast per warp");
  add("constant-divergent", event_median(o.runs, [&] { memory_kernel<Space::constant_divergent><<<blocks, threads>>>(table.p, out.p, 1.f); }),
      "lanes read different constants: the reads are serialised");
  GPUVIS_CUDA_CHECK(cudaGetLastError());
  t.notes.push_back("Each thread runs a chain acc = acc * 0.999 + v, v read from the space named; " + std::to_string(blocks) + " blocks of " +
                    std::to_string(threads) + " threads. Throughput, not latency: many warps hide part of each wait.");
  return t;
}

void atomics(const LessonParams& o, Table& t) {
  const std::size_t n = static_cast<std::size_t>(o.size);
  DeviceArray<unsigned long long> counter(1);
  const int blocks = blocks_for(n, 256);
  auto run = [&](const std::string& name, auto kernel, bool demonstration, const std::string& note) {
    unsigned long long got = 0;
    const double us = event_median(std::min(o.runs, 10), [&] {
      GPUVIS_CUDA_CHECK(cudaMemsetAsync(counter.p, 0, sizeof(unsigned long long)));
      kernel<<<blocks, 256>>>(counter.p, n);
      GPUVIS_CUDA_CHECK(cudaGetLastError());
    });
    GPUVIS_CUDA_CHECK(cudaMemcpy(&got, counter.p, sizeof got, cudaMemcpyDeviceToHost));
    Row r{name, "cuda", us, static_cast<double>(got), "count", "kernel", "", got == n, demonstration, note};
    r.check = got == n ? "ok (" + std::to_string(got) + ")"
                       : "WRONG: " + std::to_string(got) + " of " + std::to_string(n) + ", " + std::to_string(n - got) + " updates lost";
    t.rows.push_back(r);
  };
  run("cuda-race", count_race, true, "load, add, store from every thread: the race, shown on purpose");
  run("cuda-atomicAdd", count_atomic, false, "one atomicAdd per increment on one address: correct, serialised at the L2");
  run("cuda-warp-aggregated", count_warp_aggregated, false, "a warp counts its lanes (ballot + popc) and adds once");
  run("cuda-block-shared", count_block_shared, false, "shared-memory atomics per block, one global atomic per block");
}

Table streams(const LessonParams& o) {
  Table t;
  const std::size_t n = static_cast<std::size_t>(std::max<std::int64_t>(o.size, 1 << 16));
  const double mib = static_cast<double>(n) * sizeof(unsigned) / (1 << 20);
  char title[128];
  std::snprintf(title, sizeof title, "streams: %.0f MiB up, work, %.0f MiB down", mib, mib);
  t.title = title;
  std::vector<unsigned> pageable_in(n), pageable_out(n);
  for (std::size_t i = 0; i < n; ++i) pageable_in[i] = static_cast<unsigned>(i * 2654435761u);
  PinnedArray<unsigned> pin_in(n), pin_out(n);
  std::copy(pageable_in.begin(), pageable_in.end(), pin_in.p);
  DeviceArray<unsigned> din(n), dout(n);
  const int chunks = 16, nstreams = 4;
  std::vector<cuda::Stream> streams(nstreams);
  const int blocks = blocks_for(n, 256);
  const std::size_t bytes = n * sizeof(unsigned);

  auto verify = [&](const unsigned* out) {
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; i += 97) wrong += out[i] != work(pageable_in[i]);
    return wrong == 0;
  };
  auto add = [&](const std::string& name, double us, bool ok, const std::string& note) {
    Row r{name, "cuda", us, 2.0 * static_cast<double>(bytes) / (us * 1e3), "GB/s moved", "end to end (copies included)",
          ok ? "ok (every 97th element against the CPU)" : "WRONG", ok, false, note};
    t.rows.push_back(r);
  };
  // The parts alone, for the overlap figure.
  const double up = event_median(o.runs, [&] { GPUVIS_CUDA_CHECK(cudaMemcpyAsync(din.p, pin_in.p, bytes, cudaMemcpyHostToDevice)); });
  const double kernel = event_median(o.runs, [&] { work_kernel<<<blocks, 256>>>(din.p, dout.p, n); });
  const double down = event_median(o.runs, [&] { GPUVIS_CUDA_CHECK(cudaMemcpyAsync(pin_out.p, dout.p, bytes, cudaMemcpyDeviceToHost)); });

  const double us_pageable = event_median(o.runs, [&] {
    GPUVIS_CUDA_CHECK(cudaMemcpy(din.p, pageable_in.data(), bytes, cudaMemcpyHostToDevice));
    work_kernel<<<blocks, 256>>>(din.p, dout.p, n);
    GPUVIS_CUDA_CHECK(cudaMemcpy(pageable_out.data(), dout.p, bytes, cudaMemcpyDeviceToHost));
  });
  add("pageable-1-stream", us_pageable, verify(pageable_out.data()), "pageable host memory: each copy is staged by the driver");
  std::fill(pin_out.p, pin_out.p + n, 0u);
  const double us_pinned = event_median(o.runs, [&] {
    GPUVIS_CUDA_CHECK(cudaMemcpyAsync(din.p, pin_in.p, bytes, cudaMemcpyHostToDevice));
    work_kernel<<<blocks, 256>>>(din.p, dout.p, n);
    GPUVIS_CUDA_CHECK(cudaMemcpyAsync(pin_out.p, dout.p, bytes, cudaMemcpyDeviceToHost));
  });
  add("pinned-1-stream", us_pinned, verify(pin_out.p), "pinned memory, one stream: copy, work, copy one after the other");
  std::fill(pin_out.p, pin_out.p + n, 0u);
  cuda::Event start_event, done_event;
  const cudaEvent_t start = start_event.get(), done = done_event.get();
  const double us_streams = event_median(o.runs, [&] {
    GPUVIS_CUDA_CHECK(cudaEventRecord(start));
    for (const auto& s : streams) GPUVIS_CUDA_CHECK(cudaStreamWaitEvent(s, start));
    for (int c = 0; c < chunks; ++c) {
      const std::size_t b = n * c / chunks, e = n * (c + 1) / chunks;
      cudaStream_t s = streams[c % nstreams].get();
      GPUVIS_CUDA_CHECK(cudaMemcpyAsync(din.p + b, pin_in.p + b, (e - b) * sizeof(unsigned), cudaMemcpyHostToDevice, s));
      work_kernel<<<blocks_for(e - b, 256), 256, 0, s>>>(din.p + b, dout.p + b, e - b);
      GPUVIS_CUDA_CHECK(cudaMemcpyAsync(pin_out.p + b, dout.p + b, (e - b) * sizeof(unsigned), cudaMemcpyDeviceToHost, s));
    }
    for (const auto& s : streams) {
      GPUVIS_CUDA_CHECK(cudaEventRecord(done, s));
      GPUVIS_CUDA_CHECK(cudaStreamWaitEvent(nullptr, done));
    }
  });
  add("pinned-4-streams-16-chunks", us_streams, verify(pin_out.p),
      "chunk c on stream c mod 4: one chunk's upload, another's work and a third's download run at once");
  GPUVIS_CUDA_CHECK(cudaGetLastError());
  char parts[256];
  std::snprintf(parts, sizeof parts, "Parts alone: upload %s, work %s, download %s (sum %s); the best possible overlap is the longest part, %s.",
                format_us(up).c_str(), format_us(kernel).c_str(), format_us(down).c_str(), format_us(up + kernel + down).c_str(),
                format_us(std::max({up, kernel, down})).c_str());
  t.notes.push_back(parts);
  char gain[160];
  std::snprintf(gain, sizeof gain, "Streams save %.0f%% against one pinned stream.", 100.0 * (1.0 - us_streams / us_pinned));
  t.notes.push_back(gain);
  return t;
}

}  // namespace gpuvis::lab::cuda_impl

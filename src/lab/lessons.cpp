// The lessons' CPU halves (dot product, atomics) and the dispatch to the CUDA halves.
#include <atomic>
#include <cmath>
#include <random>
#include <sstream>
#include <thread>

#include "gpuvis/core/error.hpp"
#include "gpuvis/core/parallel.hpp"
#include "gpuvis/cuda/runtime.hpp"
#include "gpuvis/lab/lab.hpp"
#include "lab/backends.hpp"
#include "lab/lab_common.hpp"
#include "cuda/built.hpp"

namespace gpuvis::lab {
namespace {

// CPU rows, GPU rows, or both: cuda asks for a device, automatic adds the GPU rows when one exists.
struct Sides {
  bool cpu = true, gpu = false;
};
Sides sides_for(Backend b, const std::string& lesson, Table& t) {
  Sides s;
  const bool device = cuda::device_count() > 0;
  if (b == Backend::cuda && !device) fail(ErrorCode::unsupported, "lab " + lesson + " --backend cuda: " + cuda::unavailable_reason());
  s.gpu = b != Backend::cpu && device;
  if (b == Backend::automatic && !device) t.notes.push_back("GPU rows left out: " + cuda::unavailable_reason() + ".");
  return s;
}

void require_runs(const LessonParams& o) {
  refuse_opencl(o.backend, "the lab's lessons");
  require(o.runs >= 1 && o.runs <= 10000, "runs must lie in 1..10000");
}

}  // namespace

Table dot(const LessonParams& o) {
  require_runs(o);
  require(o.size >= 1 && o.size <= (std::int64_t{1} << 30), "--size (elements) must lie in 1..2^30");
  Table t;
  t.title = "dot product of " + std::to_string(o.size) + " floats";
  const Sides sides = sides_for(o.backend, "dot", t);
  const std::size_t n = static_cast<std::size_t>(o.size);
  std::vector<float> x(n), y(n);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  for (std::size_t i = 0; i < n; ++i) x[i] = u(rng), y[i] = u(rng);
  long double exact = 0;
  for (std::size_t i = 0; i < n; ++i) exact += static_cast<long double>(x[i]) * y[i];
  const double reference = static_cast<double>(exact);
  const double bytes = 2.0 * static_cast<double>(n) * sizeof(float);

  auto add_row = [&](const std::string& name, const std::string& scope, double us, double result, double tol, const std::string& note,
                     const char* demonstration = nullptr) {
    Row r{name, "cpu", us, bytes / (us * 1e3), "GB/s", scope, "", true, false, note};
    bool ok = false;
    r.check = relative_error_text(result, reference, tol, ok);
    r.correct = ok;
    r.demonstration = demonstration != nullptr;
    if (demonstration && !ok) r.check += std::string(": ") + demonstration;
    t.rows.push_back(r);
  };
  if (sides.cpu) {
    std::vector<double> times;
    double serial = 0;
    for (int k = 0; k < o.runs + 1; ++k) {
      float acc = 0;
      const double us = time_us([&] {
        for (std::size_t i = 0; i < n; ++i) acc += x[i] * y[i];
      });
      serial = acc;
      if (k) times.push_back(us);
    }
    add_row("cpu-serial-float", "host, 1 thread", median(times), serial, 1e-6,
            "one float accumulator: rounding error grows with n", "a float accumulator's rounding, shown on purpose");
    // Each thread sums its own chunk in double; the partials are added in chunk order, so the
    // result does not depend on the thread count.
    const std::ptrdiff_t chunks = 256;
    std::vector<double> partial(chunks);
    times.clear();
    double threaded = 0;
    for (int k = 0; k < o.runs + 1; ++k) {
      const double us = time_us([&] {
        parallel_for(0, chunks, 1, [&](std::ptrdiff_t c0, std::ptrdiff_t c1) {
          for (std::ptrdiff_t c = c0; c < c1; ++c) {
            const std::size_t b = n * c / chunks, e = n * (c + 1) / chunks;
            double s = 0;
            for (std::size_t i = b; i < e; ++i) s += static_cast<double>(x[i]) * y[i];
            partial[c] = s;
          }
        });
        threaded = 0;
        for (double p : partial) threaded += p;
      });
      if (k) times.push_back(us);
    }
    add_row("cpu-threads", "host, " + std::to_string(num_threads()) + " threads", median(times), threaded, 1e-9,
            "per-thread partial sums in double, combined in order");
    // The racy baseline: every thread adds into one shared total with a load and a store that are
    // not one atomic step, so updates of other threads in between are lost.
    const int threads = std::max(2, num_threads());
    std::atomic<float> shared{0};
    const double us = time_us([&] {
      std::vector<std::thread> pool;
      for (int th = 0; th < threads; ++th)
        pool.emplace_back([&, th] {
          for (std::size_t i = n * th / threads; i < n * (th + 1) / threads; ++i)
            shared.store(shared.load(std::memory_order_relaxed) + x[i] * y[i], std::memory_order_relaxed);
        });
      for (auto& p : pool) p.join();
    });
    add_row("cpu-shared-sum-race", "host, " + std::to_string(threads) + " threads, one run", us, shared.load(), 1e-3,
            "load-add-store on one shared total (the racy OpenMP baseline): lost updates", "the race, shown on purpose");
  }
  if (sides.gpu) {
    if constexpr (cuda::kBuilt) cuda_impl::dot(o, x, y, reference, t);
    else cuda::not_built("lab dot on the GPU");
  }
  t.notes.push_back("GB/s = the two input vectors' bytes / median time. Reference: the exact sum in long double.");
  return t;
}

Table memory(const LessonParams& o) {
  require_runs(o);
  if (o.backend == Backend::cpu) fail(ErrorCode::unsupported, "lab memory is about the GPU's memory spaces: it has no CPU version (use --backend cuda or auto)");
  if (cuda::device_count() == 0) fail(ErrorCode::unsupported, "lab memory runs on the GPU only: " + cuda::unavailable_reason());
  if constexpr (cuda::kBuilt) return cuda_impl::memory(o);
  else cuda::not_built("lab memory");
}

Table atomics(const LessonParams& o) {
  require_runs(o);
  require(o.size >= 1 && o.size <= (std::int64_t{1} << 30), "--size (increments) must lie in 1..2^30");
  Table t;
  t.title = "atomics: " + std::to_string(o.size) + " increments of one counter";
  const Sides sides = sides_for(o.backend, "atomics", t);
  if (sides.cpu) {
    const int threads = std::max(2, num_threads());
    const std::int64_t n = o.size;
    auto run = [&](const std::string& name, const std::string& note, bool demonstration, auto body) {
      std::atomic<std::int64_t> counter{0};
      std::vector<double> times;
      std::int64_t got = 0;
      for (int k = 0; k < std::min(o.runs, 5); ++k) {
        counter = 0;
        times.push_back(time_us([&] {
          std::vector<std::thread> pool;
          for (int th = 0; th < threads; ++th) pool.emplace_back([&, th] { body(counter, n * th / threads, n * (th + 1) / threads); });
          for (auto& p : pool) p.join();
        }));
        got = counter.load();
      }
      Row r{name, "cpu", median(times), static_cast<double>(got), "count", "host, " + std::to_string(threads) + " threads", "", got == n, demonstration, note};
      r.check = got == n ? "ok (" + std::to_string(got) + ")" : "WRONG: " + std::to_string(got) + " of " + std::to_string(n) + ", " + std::to_string(n - got) + " updates lost";
      t.rows.push_back(r);
    };
    run("cpu-race", "load then store, not one atomic step: the race, shown on purpose", true, [](std::atomic<std::int64_t>& c, std::int64_t b, std::int64_t e) {
      for (std::int64_t i = b; i < e; ++i) c.store(c.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    });
    run("cpu-fetch-add", "one atomic read-modify-write per increment: correct, every core fights for one cache line", false,
        [](std::atomic<std::int64_t>& c, std::int64_t b, std::int64_t e) {
          for (std::int64_t i = b; i < e; ++i) c.fetch_add(1, std::memory_order_relaxed);
        });
    run("cpu-local-then-add", "each thread counts privately and adds once: correct and fast", false,
        [](std::atomic<std::int64_t>& c, std::int64_t b, std::int64_t e) {
          std::int64_t local = 0;
          for (std::int64_t i = b; i < e; ++i) local += 1;
          c.fetch_add(local, std::memory_order_relaxed);
        });
  }
  if (sides.gpu) {
    if constexpr (cuda::kBuilt) cuda_impl::atomics(o, t);
    else cuda::not_built("lab atomics on the GPU");
  }
  t.notes.push_back("Rows marked WRONG under the race are the lesson: a read-modify-write that is not atomic loses updates.");
  return t;
}

Table streams(const LessonParams& o) {
  require_runs(o);
  if (o.backend == Backend::cpu) fail(ErrorCode::unsupported, "lab streams is about overlapping GPU copies with GPU work: it has no CPU version");
  if (cuda::device_count() == 0) fail(ErrorCode::unsupported, "lab streams runs on the GPU only: " + cuda::unavailable_reason());
  if constexpr (cuda::kBuilt) return cuda_impl::streams(o);
  else cuda::not_built("lab streams");
}

}  // namespace gpuvis::lab

#include "gpuvis/core/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace gpuvis {
namespace {

// Fixed pool of workers. parallel_for hands out chunk indices through an atomic counter; the
// calling thread works too, so a pool of n threads uses n-1 workers.
//
// Between jobs a worker spins for about 50 µs before it sleeps on the condition variable, and the
// caller spins as long for the workers to finish: waking 15 sleeping threads through the mutex
// took tens of µs per job on a 16-thread Xeon VM, which filters called back to back (the CUDA
// strip pipeline's host copies, 1080p CPU filters of a few hundred µs) paid on every call.
class Pool {
 public:
  static Pool& instance() {
    static Pool pool;
    return pool;
  }

  int size() const { return size_; }

  void resize(int n) {
    stop_workers();
    size_ = std::max(1, n);
    // New workers wait for the first job after now: they must not take the generation that
    // stop_workers() just counted for a job (they would run an empty one, and count themselves
    // done twice in the next: a lost chunk, or a caller waiting forever).
    const std::uint64_t now = generation_.load();
    for (int i = 1; i < size_; ++i) workers_.emplace_back([this, now] { worker_loop(now); });
  }

  void run(std::ptrdiff_t chunks, const std::function<void(std::ptrdiff_t)>& job) {
    std::unique_lock run_lock(run_mutex_);  // one parallel_for at a time; nested calls run inline
    {
      std::lock_guard lock(mutex_);
      job_ = &job;
      chunks_ = chunks;
      next_.store(0);
      pending_.store(static_cast<int>(workers_.size()));
      error_ = nullptr;
      generation_.fetch_add(1, std::memory_order_release);  // publishes the job to spinning workers
    }
    wake_.notify_all();
    work();
    spin_until([this] { return pending_.load(std::memory_order_acquire) == 0; });
    if (pending_.load(std::memory_order_acquire) != 0) {
      std::unique_lock lock(mutex_);
      done_.wait(lock, [this] { return pending_.load(std::memory_order_acquire) == 0; });
    }
    job_ = nullptr;
    if (error_) std::rethrow_exception(error_);
  }

  bool busy_on_this_thread() const { return inside_; }

 private:
  Pool() { resize(static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))); }
  ~Pool() { stop_workers(); }

  void stop_workers() {
    {
      std::lock_guard lock(mutex_);
      stopping_.store(true);
      generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    for (auto& t : workers_) t.join();
    workers_.clear();
    stopping_.store(false);
  }

  // Polls done() for about 50 µs; returns whether it became true.
  template <class Done>
  static bool spin_until(Done done) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(50);
    for (;;) {
      for (int i = 0; i < 64; ++i) {
        if (done()) return true;
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
      }
      if (std::chrono::steady_clock::now() >= until) return done();
    }
  }

  void work() {
    inside_ = true;
    for (;;) {
      const std::ptrdiff_t i = next_.fetch_add(1);
      if (i >= chunks_) break;
      try {
        (*job_)(i);
      } catch (...) {
        std::lock_guard lock(mutex_);
        if (!error_) error_ = std::current_exception();
      }
    }
    inside_ = false;
  }

  void worker_loop(std::uint64_t seen) {
    for (;;) {
      if (!spin_until([&] { return generation_.load(std::memory_order_acquire) != seen; })) {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return generation_.load(std::memory_order_acquire) != seen; });
      }
      seen = generation_.load(std::memory_order_acquire);
      if (stopping_.load()) return;
      work();
      if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard lock(mutex_);  // the caller either sees 0 in its predicate or is woken
        done_.notify_one();
      }
    }
  }

  int size_ = 1;
  std::vector<std::thread> workers_;
  std::mutex run_mutex_, mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(std::ptrdiff_t)>* job_ = nullptr;
  std::ptrdiff_t chunks_ = 0;
  std::atomic<std::ptrdiff_t> next_{0};
  std::atomic<int> pending_{0};
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<bool> stopping_{false};
  std::exception_ptr error_;
  static thread_local bool inside_;
};

thread_local bool Pool::inside_ = false;

}  // namespace

int num_threads() { return Pool::instance().size(); }

void set_num_threads(int n) {
  Pool::instance().resize(n > 0 ? n : static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
}

void parallel_for(std::ptrdiff_t begin, std::ptrdiff_t end, std::ptrdiff_t grain,
                  const std::function<void(std::ptrdiff_t, std::ptrdiff_t)>& body) {
  if (end <= begin) return;
  grain = std::max<std::ptrdiff_t>(1, grain);
  Pool& pool = Pool::instance();
  const std::ptrdiff_t n = end - begin;
  // About 4 chunks per thread balances uneven rows without much scheduling overhead.
  std::ptrdiff_t chunk = std::max(grain, (n + 4 * pool.size() - 1) / (4 * pool.size()));
  const std::ptrdiff_t chunks = (n + chunk - 1) / chunk;
  if (chunks <= 1 || pool.size() == 1 || pool.busy_on_this_thread()) {
    body(begin, end);
    return;
  }
  pool.run(chunks, [&](std::ptrdiff_t i) {
    const std::ptrdiff_t b = begin + i * chunk;
    body(b, std::min(end, b + chunk));
  });
}

}  // namespace gpuvis

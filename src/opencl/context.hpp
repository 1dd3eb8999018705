#pragma once
// The OpenCL backend's runtime: one context and in-order queue on the chosen device (devices.hpp),
// made on first use and kept for the process; programs built once per process and cached on disk
// by device and source; buffers and kernels that release themselves.
#include <cstddef>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "gpuvis/core/image.hpp"
#include "opencl/device_ids.hpp"

namespace gpuvis::opencl {

class Context {
 public:
  // The process's context, made on the first call (ErrorCode::unsupported when there is no device).
  static Context& get();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  ~Context();

  cl_context context() const { return context_; }
  cl_command_queue queue() const { return queue_; }
  // Another in-order queue on the device, time-stamped like queue() (the caller releases it):
  // commands on different queues may run at the same time, such as one strip's copies beside
  // another's kernels (strip_pipeline.hpp).
  cl_command_queue new_queue();
  const DeviceInfo& device() const { return id_.info; }

  // The program built from `source` with `options` for this device: kept for the process; on disk
  // (program_cache_dir) when this device built the same source with the same options before. A
  // build error is ErrorCode::opencl with the compiler's log.
  cl_program program(const std::string& source, const std::string& options = "");

 private:
  Context();
  DeviceId id_;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  std::mutex mutex_;
  std::map<std::string, cl_program> programs_;  // by cache key
};

// Where built programs are kept: $GPUVIS_OPENCL_CACHE, else $XDG_CACHE_HOME/gpuvis/opencl, else
// ~/.cache/gpuvis/opencl ("" when none can be named; programs are then built every run).
std::string program_cache_dir();

// A device buffer of `bytes` bytes on the process's context.
class Buffer {
 public:
  Buffer() = default;
  explicit Buffer(std::size_t bytes);
  Buffer(Buffer&& other) noexcept : mem_(other.mem_), bytes_(other.bytes_) { other.mem_ = nullptr, other.bytes_ = 0; }
  Buffer& operator=(Buffer&& other) noexcept;
  ~Buffer();
  cl_mem get() const { return mem_; }
  std::size_t bytes() const { return bytes_; }
  // Grows (never shrinks) to at least `bytes`.
  void reserve(std::size_t bytes);

 private:
  cl_mem mem_ = nullptr;
  std::size_t bytes_ = 0;
};

// One kernel of a program, with its arguments set by position.
class Kernel {
 public:
  Kernel(cl_program program, const char* name);
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;
  ~Kernel();
  template <class T>
  Kernel& arg(cl_uint index, const T& value) {
    check(api().SetKernelArg(kernel_, index, sizeof(T), &value), name_);
    return *this;
  }
  Kernel& arg(cl_uint index, const Buffer& buffer) { return arg(index, buffer.get()); }
  // A __local buffer of `bytes` bytes for each work group.
  Kernel& local(cl_uint index, std::size_t bytes) {
    check(api().SetKernelArg(kernel_, index, bytes, nullptr), name_);
    return *this;
  }
  // Runs over width x height work items, in groups of 32 x 4 (the grid rounded up: kernels return
  // for items past the image), on `queue` (null: the context's).
  void run(std::size_t width, std::size_t height, cl_command_queue queue = nullptr);

 private:
  cl_kernel kernel_ = nullptr;
  const char* name_;
};

// The device's time in the calling thread's kernels (Kernel::run) while a KernelTimer lives: the
// device's own start and end stamps of each, summed. For benchmarks that report the kernels beside
// the end-to-end time; the queue records the stamps always, kernels hand them over only here.
class KernelTimer {
 public:
  KernelTimer();
  KernelTimer(const KernelTimer&) = delete;
  KernelTimer& operator=(const KernelTimer&) = delete;
  ~KernelTimer();
  // Waits for the kernels run so far and returns their summed time; starts counting afresh.
  double take_microseconds();
  // The calling thread's timer, or null.
  static KernelTimer* active();
  void add(cl_event event) { events_.push_back(event); }

 private:
  std::vector<cl_event> events_;
  KernelTimer* outer_;
};

// Page-locked host memory (an OpenCL buffer allocated in host memory and mapped once for good),
// grown as needed, never shrunk. The driver moves page-locked memory at the bus's speed; from
// pageable memory NVIDIA's driver reached about 10 GB/s (H200 host, 2026-11-28: a 1080p f32
// convolution spent 1.4 ms of its 1.5 in its 16.6 MB of copies).
class PinnedHost {
 public:
  PinnedHost() = default;
  PinnedHost(const PinnedHost&) = delete;
  PinnedHost& operator=(const PinnedHost&) = delete;
  ~PinnedHost() { release(); }
  // At least `bytes` bytes; what was there is lost when it grows.
  unsigned char* reserve(std::size_t bytes);
  unsigned char* data() const { return host_; }

 private:
  void release() noexcept;
  cl_mem mem_ = nullptr;
  unsigned char* host_ = nullptr;
  std::size_t bytes_ = 0;
};

// Whether copies of `bytes` bytes go through page-locked staging (upload_rows, StripPipeline):
// smaller ones are faster copied by the driver straight from the caller's rows.
bool worth_staging(std::size_t bytes);
// Rows per task of a host copy of rows over the CPU threads: about 128 KiB each, so that all of
// them copy.
std::ptrdiff_t copy_task_rows(std::size_t row_bytes);

// `rows` rows of `row_bytes` bytes, `stride` bytes apart on the host, to and from a tightly packed
// device buffer (row_bytes per row; the buffer grows to hold them). Blocking: the host memory may
// be reused when they return. Images of 1 MiB and more go through the calling thread's
// page-locked staging buffer in pieces, the host's copy of one piece (on all its threads) beside
// the bus transfer of another; smaller ones are copied by the driver straight from the host rows.
void upload_rows(const void* data, std::size_t row_bytes, std::size_t rows, std::ptrdiff_t stride, Buffer& buffer);
void download_rows(const Buffer& buffer, std::size_t row_bytes, std::size_t rows, std::ptrdiff_t stride, void* data);

// An image to and from a tightly packed device buffer (its samples, row after row).
template <class T>
void upload(HostView<const T> image, Buffer& buffer) {
  upload_rows(image.data, image.row_bytes(), static_cast<std::size_t>(image.height), image.stride, buffer);
}
template <class T>
void download(const Buffer& buffer, HostView<T> image) {
  download_rows(buffer, image.row_bytes(), static_cast<std::size_t>(image.height), image.stride, image.data);
}

}  // namespace gpuvis::opencl

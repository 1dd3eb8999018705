#pragma once
// RAII owners for CUDA resources: streams, events, device buffers, pitched device images and
// pinned (page-locked) host images. All are move-only; destructors never throw.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>

#include "gpuvis/core/image.hpp"
#include "cuda/check.hpp"

namespace gpuvis::cuda {

class Stream {
 public:
  Stream();  // non-blocking stream
  ~Stream();
  Stream(Stream&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
  Stream& operator=(Stream&& o) noexcept { std::swap(s_, o.s_); return *this; }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return s_; }
  operator cudaStream_t() const { return s_; }
  void synchronize() const;

 private:
  cudaStream_t s_ = nullptr;
};

class Event {
 public:
  Event();
  ~Event();
  Event(Event&& o) noexcept : e_(std::exchange(o.e_, nullptr)) {}
  Event& operator=(Event&& o) noexcept { std::swap(e_, o.e_); return *this; }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return e_; }
  void record(cudaStream_t stream);
  // Milliseconds between two recorded events (synchronises on `end`).
  static float elapsed_ms(const Event& start, const Event& end);

 private:
  cudaEvent_t e_ = nullptr;
};

namespace detail {
struct DeviceAllocator {  // cudaMalloc / cudaFree
  static void* allocate(std::size_t bytes);
  static void release(void* p) noexcept;
};
struct PinnedAllocator {  // cudaMallocHost / cudaFreeHost
  static void* allocate(std::size_t bytes);
  static void release(void* p) noexcept;
};
}  // namespace detail

// Untyped allocation that grows on demand: device memory (DeviceBuffer) or page-locked host
// memory for asynchronous transfers (PinnedBuffer).
template <class Allocator>
class Buffer {
 public:
  Buffer() = default;
  explicit Buffer(std::size_t bytes) { reserve(bytes); }
  ~Buffer() {
    if (p_) Allocator::release(p_);
  }
  Buffer(Buffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  Buffer& operator=(Buffer&& o) noexcept { std::swap(p_, o.p_); std::swap(n_, o.n_); return *this; }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  void* get() const { return p_; }
  template <class T> T* as() const { return static_cast<T*>(p_); }
  std::size_t size() const { return n_; }
  // Grows (never shrinks) to at least `bytes`; contents are not preserved.
  void reserve(std::size_t bytes) {
    if (bytes <= n_) return;
    if (p_) Allocator::release(p_);
    p_ = nullptr;
    n_ = 0;
    p_ = Allocator::allocate(bytes);
    n_ = bytes;
  }

 private:
  void* p_ = nullptr;
  std::size_t n_ = 0;
};
using DeviceBuffer = Buffer<detail::DeviceAllocator>;
using PinnedBuffer = Buffer<detail::PinnedAllocator>;

// Pitched device image.
template <class T>
class DeviceImage {
 public:
  DeviceImage() = default;
  DeviceImage(int width, int height, int channels = 1);
  ~DeviceImage();
  DeviceImage(DeviceImage&& o) noexcept : view_(std::exchange(o.view_, {})) {}
  DeviceImage& operator=(DeviceImage&& o) noexcept { std::swap(view_, o.view_); return *this; }
  DeviceImage(const DeviceImage&) = delete;
  DeviceImage& operator=(const DeviceImage&) = delete;

  int width() const { return view_.width; }
  int height() const { return view_.height; }
  int channels() const { return view_.channels; }
  DeviceView<T> view() { return view_; }
  DeviceView<const T> view() const { return view_; }
  operator DeviceView<T>() { return view_; }
  operator DeviceView<const T>() const { return view_; }
  // Reallocates when the shape differs (buffers are allocated once per frame size).
  void ensure(int width, int height, int channels = 1);

 private:
  DeviceView<T> view_;
};

// Page-locked host image: uploads and downloads from it are truly asynchronous.
template <class T>
class PinnedImage {
 public:
  PinnedImage() = default;
  PinnedImage(int width, int height, int channels = 1);
  ~PinnedImage();
  PinnedImage(PinnedImage&& o) noexcept : view_(std::exchange(o.view_, {})) {}
  PinnedImage& operator=(PinnedImage&& o) noexcept { std::swap(view_, o.view_); return *this; }
  PinnedImage(const PinnedImage&) = delete;
  PinnedImage& operator=(const PinnedImage&) = delete;
  HostView<T> view() { return view_; }
  HostView<const T> view() const { return view_; }
  operator HostView<T>() { return view_; }
  operator HostView<const T>() const { return view_; }
  void ensure(int width, int height, int channels = 1);

 private:
  HostView<T> view_;
};

// True when `p` points into page-locked host memory allocated through CUDA (cudaMallocHost,
// PinnedBuffer, PinnedImage), from which uploads need no staging copy.
bool is_pinned(const void* p);

// The address under which kernels reach page-locked host memory allocated through CUDA (mapped
// memory: a kernel reads or writes it across the bus), or nullptr when `p` is not such memory.
void* device_address(const void* p);
template <class T>
T* device_address(T* p) {
  return static_cast<T*>(device_address(static_cast<const void*>(p)));
}

// Asynchronous 2D copies between host and device views of equal shape.
template <class T> void upload(HostView<const T> src, DeviceView<T> dst, cudaStream_t stream);
template <class T> void download(DeviceView<const T> src, HostView<T> dst, cudaStream_t stream);

}  // namespace gpuvis::cuda

#pragma once
// Device memory for callers with no CUDA library of their own (the Python module's results), and
// the checks and waits that arrays shared with one (CuPy, PyTorch) need. Usable in every build:
// without the CUDA backend, allocating fails with the reason.
#include <cstddef>

struct CUstream_st;  // cudaStream_t is CUstream_st*: the device entry points take one without including CUDA

namespace gpuvis::cuda {

using StreamHandle = CUstream_st*;  // a cudaStream_t; null: the legacy default stream

class DeviceAllocation {
 public:
  DeviceAllocation() = default;
  explicit DeviceAllocation(std::size_t bytes);  // on the current device; throws when it cannot
  ~DeviceAllocation();
  DeviceAllocation(DeviceAllocation&& o) noexcept;
  DeviceAllocation& operator=(DeviceAllocation&& o) noexcept;
  DeviceAllocation(const DeviceAllocation&) = delete;
  DeviceAllocation& operator=(const DeviceAllocation&) = delete;
  void* data() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  void* data_ = nullptr;
  std::size_t size_ = 0;
};

// True when `pointer` is device (or managed) memory of the current device: what the device entry
// points can read. False for host memory, another device's memory and every pointer without CUDA.
bool is_device_pointer(const void* pointer);
// True when `pointer` is page-locked host memory allocated through CUDA (cuda::PinnedImage,
// cudaMallocHost), which goes over the bus without a staging copy. False for every pointer without CUDA.
bool is_page_locked(const void* pointer);

// Waits until the work queued so far on `stream` is done.
void synchronize(StreamHandle stream);

// Plain copies between host memory and device memory of the current device (synchronous).
void copy_to_host(void* host, const void* device, std::size_t bytes);
void copy_to_device(void* device, const void* host, std::size_t bytes);

}  // namespace gpuvis::cuda

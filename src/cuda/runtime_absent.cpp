// Built instead of the CUDA sources when gpuvis is configured without CUDA.
#include "gpuvis/core/error.hpp"
#include "gpuvis/cuda/device_memory.hpp"
#include "gpuvis/cuda/runtime.hpp"

namespace gpuvis::cuda {
bool compiled() { return false; }
int device_count() { return 0; }
int current_device_index() { return 0; }
int current_device_major() { return 0; }
int current_device_multiprocessors() { return 0; }
int current_device_shared_memory_per_block() { return 0; }
std::vector<DeviceInfo> devices() { return {}; }
std::string runtime_version() { return ""; }
std::string driver_version() { return ""; }
std::string unavailable_reason() { return "no CUDA device (this gpuvis was built without CUDA)"; }
std::string self_test() { return unavailable_reason(); }
DeviceAllocation::DeviceAllocation(std::size_t bytes) : size_(bytes) {
  if (bytes) fail(ErrorCode::unsupported, "device memory requested but " + unavailable_reason());
}
DeviceAllocation::~DeviceAllocation() = default;
DeviceAllocation::DeviceAllocation(DeviceAllocation&& o) noexcept : data_(o.data_), size_(o.size_) { o.data_ = nullptr; }
DeviceAllocation& DeviceAllocation::operator=(DeviceAllocation&& o) noexcept {
  data_ = o.data_;
  size_ = o.size_;
  o.data_ = nullptr;
  return *this;
}
bool is_device_pointer(const void*) { return false; }
bool is_page_locked(const void*) { return false; }
void synchronize(StreamHandle) {}
void copy_to_host(void*, const void*, std::size_t) { fail(ErrorCode::unsupported, "device memory: " + unavailable_reason()); }
void copy_to_device(void*, const void*, std::size_t) { fail(ErrorCode::unsupported, "device memory: " + unavailable_reason()); }
}  // namespace gpuvis::cuda

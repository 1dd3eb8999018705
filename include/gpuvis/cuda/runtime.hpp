#pragma once
// CUDA device discovery. Usable in every build: without the CUDA backend it reports no devices.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "gpuvis/core/backend.hpp"

namespace gpuvis {

// Resolves `automatic` to cuda when a CUDA device is usable and to cpu otherwise; in the latter case
// `notice` receives a one-line explanation (e.g. "no CUDA device found, using the CPU backend").
// Asking for cuda explicitly when it is unavailable throws ErrorCode::unsupported. Every operation
// taking a Backend resolves it with this function, so `automatic` means the same everywhere.
Backend resolve_backend(Backend requested, const std::function<void(const std::string&)>& notice = {});

}  // namespace gpuvis

namespace gpuvis::cuda {

struct DeviceInfo {
  int index = 0;
  std::string name;
  int major = 0, minor = 0;        // compute capability
  int multiprocessors = 0;
  std::size_t global_memory = 0;   // bytes
  std::size_t l2_cache = 0;        // bytes
  int memory_bus_width = 0;        // bits
};

bool compiled();                   // the CUDA backend is built into this library
int device_count();                // 0 when not compiled, no driver, or no device
std::vector<DeviceInfo> devices();
std::string runtime_version();     // e.g. "13.0", empty when not compiled
std::string driver_version();      // e.g. "13.0", empty when unavailable
// The index of the calling thread's current device (0 when there is none).
int current_device_index();
// Compute capability major version of the calling thread's current device; 0 when there is none.
int current_device_major();
// Multiprocessor count of the calling thread's current device; 0 when there is none.
int current_device_multiprocessors();
// The shared memory one block of a kernel may opt in to on the current device, in bytes (0 if none).
int current_device_shared_memory_per_block();
// Why no device is usable (driver missing, no device, not compiled), for messages.
std::string unavailable_reason();

// Uploads a small image, runs a kernel that inverts it, downloads and compares with the CPU
// result. Returns an empty string on success, otherwise what went wrong.
std::string self_test();

}  // namespace gpuvis::cuda

// Built instead of the CUDA sources when gpuvis is configured without CUDA.
#include "gpuvis/cuda/runtime.hpp"

namespace gpuvis::cuda {
bool compiled() { return false; }
int device_count() { return 0; }
int current_device_major() { return 0; }
int current_device_multiprocessors() { return 0; }
std::vector<DeviceInfo> devices() { return {}; }
std::string runtime_version() { return ""; }
std::string driver_version() { return ""; }
std::string unavailable_reason() { return "no CUDA device (this gpuvis was built without CUDA)"; }
std::string self_test() { return unavailable_reason(); }
}  // namespace gpuvis::cuda

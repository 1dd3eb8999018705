#include <cuda_runtime_api.h>

#include <cstdio>
#include <numeric>
#include <random>

#include "cuda/memory.hpp"
#include "gpuvis/cuda/runtime.hpp"

namespace gpuvis::cuda {

[[noreturn]] void throw_cuda_error(cudaError_t status, const char* expr, const char* file, int line) {
  // Clear a non-sticky error (e.g. a failed allocation) so it does not resurface at the next
  // unrelated cudaGetLastError(); sticky errors (a crashed kernel) stay and are reported again.
  cudaGetLastError();
  fail(ErrorCode::cuda, std::string("CUDA error '") + cudaGetErrorString(status) + "' (" + cudaGetErrorName(status) +
                            ") in " + expr + " at " + file + ":" + std::to_string(line));
}

namespace {
std::string version_string(int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }
}  // namespace

bool compiled() { return true; }

int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no driver" error so later calls are not confused
    return 0;
  }
  return n;
}

std::string unavailable_reason() {
  int n = 0;
  const cudaError_t st = cudaGetDeviceCount(&n);
  if (st != cudaSuccess) {
    cudaGetLastError();
    int driver = 0;
    if (cudaDriverGetVersion(&driver) != cudaSuccess || driver == 0) return "no CUDA device (no NVIDIA driver loaded)";
    return std::string("no CUDA device (") + cudaGetErrorString(st) + ")";
  }
  return n == 0 ? "no CUDA device found" : "";
}

std::vector<DeviceInfo> devices() {
  std::vector<DeviceInfo> out;
  const int n = device_count();
  for (int i = 0; i < n; ++i) {
    cudaDeviceProp p{};
    GPUVIS_CUDA_CHECK(cudaGetDeviceProperties(&p, i));
    DeviceInfo d;
    d.index = i;
    d.name = p.name;
    d.major = p.major;
    d.minor = p.minor;
    d.multiprocessors = p.multiProcessorCount;
    d.global_memory = p.totalGlobalMem;
    d.l2_cache = static_cast<std::size_t>(p.l2CacheSize);
    d.memory_bus_width = p.memoryBusWidth;
    out.push_back(d);
  }
  return out;
}

namespace {
// An attribute of the calling thread's current device, 0 when there is none. cudaDeviceGetAttribute
// answers from the runtime's own tables (no driver round trip), so it is cheap enough to ask per launch.
int current_device_attribute(cudaDeviceAttr attribute) {
  int device = 0, value = 0;
  if (cudaGetDevice(&device) != cudaSuccess || cudaDeviceGetAttribute(&value, attribute, device) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return value;
}
}  // namespace

int current_device_index() {
  int device = 0;
  return cudaGetDevice(&device) == cudaSuccess ? device : 0;
}
int current_device_major() { return current_device_attribute(cudaDevAttrComputeCapabilityMajor); }
int current_device_multiprocessors() { return current_device_attribute(cudaDevAttrMultiProcessorCount); }
int current_device_shared_memory_per_block() { return current_device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin); }

std::string runtime_version() {
  int v = 0;
  if (cudaRuntimeGetVersion(&v) != cudaSuccess) return "";
  return version_string(v);
}

std::string driver_version() {
  int v = 0;
  if (cudaDriverGetVersion(&v) != cudaSuccess || v == 0) return "";
  return version_string(v);
}

namespace {
__global__ void invert_kernel(DeviceView<std::uint8_t> img) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < img.width && y < img.height) img(x, y) = static_cast<std::uint8_t>(255 - img(x, y));
}
}  // namespace

std::string self_test() {
  try {
    if (device_count() == 0) return unavailable_reason();
    // An odd size exercises row pitch and partial blocks.
    const int w = 333, h = 97;
    Image<std::uint8_t> host(w, h);
    std::mt19937 rng(7);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) host(x, y) = static_cast<std::uint8_t>(rng());
    Stream stream;
    DeviceImage<std::uint8_t> dev(w, h);
    upload<std::uint8_t>(host.view(), dev.view(), stream);
    invert_kernel<<<dim3((w + 31) / 32, (h + 7) / 8), dim3(32, 8), 0, stream>>>(dev.view());
    GPUVIS_CUDA_CHECK_LAUNCH();
    Image<std::uint8_t> back(w, h);
    download<std::uint8_t>(dev.view(), back.view(), stream);
    stream.synchronize();
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        if (back(x, y) != 255 - host(x, y))
          return "self-test mismatch at (" + std::to_string(x) + "," + std::to_string(y) + ")";
    return "";
  } catch (const std::exception& e) {
    return e.what();
  }
}

}  // namespace gpuvis::cuda

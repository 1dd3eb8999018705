#include "cuda/memory.hpp"
#include "gpuvis/cuda/device_memory.hpp"

namespace gpuvis::cuda {

// Destructors must not throw; a failing free at teardown (e.g. after a device reset) is ignored
// deliberately, everything else is checked.
Stream::Stream() { GPUVIS_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
Stream::~Stream() {
  if (s_) cudaStreamDestroy(s_);
}
void Stream::synchronize() const { GPUVIS_CUDA_CHECK(cudaStreamSynchronize(s_)); }

Event::Event() { GPUVIS_CUDA_CHECK(cudaEventCreate(&e_)); }
Event::~Event() {
  if (e_) cudaEventDestroy(e_);
}
void Event::record(cudaStream_t stream) { GPUVIS_CUDA_CHECK(cudaEventRecord(e_, stream)); }
float Event::elapsed_ms(const Event& start, const Event& end) {
  GPUVIS_CUDA_CHECK(cudaEventSynchronize(end.e_));
  float ms = 0;
  GPUVIS_CUDA_CHECK(cudaEventElapsedTime(&ms, start.e_, end.e_));
  return ms;
}

bool is_pinned(const void* p) {
  if (!p) return false;
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    cudaGetLastError();  // an unregistered pointer is not an error worth keeping
    return false;
  }
  return a.type == cudaMemoryTypeHost;
}

void* device_address(const void* p) {
  void* d = nullptr;
  if (!p || cudaHostGetDevicePointer(&d, const_cast<void*>(p), 0) != cudaSuccess) {
    cudaGetLastError();  // not being pinned is an answer, not a failure
    return nullptr;
  }
  return d;
}

namespace detail {
void* DeviceAllocator::allocate(std::size_t bytes) {
  void* p = nullptr;
  GPUVIS_CUDA_CHECK(cudaMalloc(&p, bytes));
  // Zeroed once, when allocated (buffers grow rarely): several kernels load ahead of their
  // bounds checks (entries past the frame's count, neighbours not yet visited) and mask the values
  // afterwards, and results blocks are copied whole. With zeroed memory none of those loads reads
  // uninitialised memory (compute-sanitizer's initcheck stays clean). Finished before any stream
  // (all are non-blocking) can use the buffer.
  GPUVIS_CUDA_CHECK(cudaMemset(p, 0, bytes));
  GPUVIS_CUDA_CHECK(cudaStreamSynchronize(nullptr));
  return p;
}
void DeviceAllocator::release(void* p) noexcept { cudaFree(p); }
void* PinnedAllocator::allocate(std::size_t bytes) {
  void* p = nullptr;
  GPUVIS_CUDA_CHECK(cudaMallocHost(&p, bytes));
  return p;
}
void PinnedAllocator::release(void* p) noexcept { cudaFreeHost(p); }
}  // namespace detail

template <class T>
DeviceImage<T>::DeviceImage(int width, int height, int channels) {
  ensure(width, height, channels);
}
template <class T>
DeviceImage<T>::~DeviceImage() {
  if (view_.data) cudaFree(view_.data);
}
template <class T>
void DeviceImage<T>::ensure(int width, int height, int channels) {
  if (view_.data && view_.width == width && view_.height == height && view_.channels == channels) return;
  check_image_shape(width, height, channels);
  if (view_.data) GPUVIS_CUDA_CHECK(cudaFree(view_.data));
  view_ = {};
  void* p = nullptr;
  std::size_t pitch = 0;
  GPUVIS_CUDA_CHECK(cudaMallocPitch(&p, &pitch, sizeof(T) * static_cast<std::size_t>(width) * channels,
                                    static_cast<std::size_t>(height)));
  view_ = {static_cast<T*>(p), width, height, channels, static_cast<std::ptrdiff_t>(pitch)};
}

template <class T>
PinnedImage<T>::PinnedImage(int width, int height, int channels) {
  ensure(width, height, channels);
}
template <class T>
PinnedImage<T>::~PinnedImage() {
  if (view_.data) cudaFreeHost(view_.data);
}
template <class T>
void PinnedImage<T>::ensure(int width, int height, int channels) {
  if (view_.data && view_.width == width && view_.height == height && view_.channels == channels) return;
  check_image_shape(width, height, channels);
  if (view_.data) GPUVIS_CUDA_CHECK(cudaFreeHost(view_.data));
  view_ = {};
  const std::size_t stride = (sizeof(T) * static_cast<std::size_t>(width) * channels + 63) / 64 * 64;
  void* p = nullptr;
  GPUVIS_CUDA_CHECK(cudaHostAlloc(&p, stride * static_cast<std::size_t>(height), cudaHostAllocDefault));
  view_ = {static_cast<T*>(p), width, height, channels, static_cast<std::ptrdiff_t>(stride)};
}

template <class T>
void upload(HostView<const T> src, DeviceView<T> dst, cudaStream_t stream) {
  require(same_shape(src, dst), "upload: host and device images differ in size");
  GPUVIS_CUDA_CHECK(cudaMemcpy2DAsync(dst.data, static_cast<std::size_t>(dst.stride), src.data,
                                      static_cast<std::size_t>(src.stride), src.row_bytes(),
                                      static_cast<std::size_t>(src.height), cudaMemcpyHostToDevice, stream));
}
template <class T>
void download(DeviceView<const T> src, HostView<T> dst, cudaStream_t stream) {
  require(same_shape(src, dst), "download: host and device images differ in size");
  GPUVIS_CUDA_CHECK(cudaMemcpy2DAsync(dst.data, static_cast<std::size_t>(dst.stride), src.data,
                                      static_cast<std::size_t>(src.stride), src.row_bytes(),
                                      static_cast<std::size_t>(src.height), cudaMemcpyDeviceToHost, stream));
}

#define GPUVIS_INSTANTIATE(T)                                                    \
  template class DeviceImage<T>;                                                 \
  template class PinnedImage<T>;                                                 \
  template void upload<T>(HostView<const T>, DeviceView<T>, cudaStream_t);       \
  template void download<T>(DeviceView<const T>, HostView<T>, cudaStream_t);
GPUVIS_INSTANTIATE(std::uint8_t)
GPUVIS_INSTANTIATE(std::uint16_t)
GPUVIS_INSTANTIATE(float)
#undef GPUVIS_INSTANTIATE

}  // namespace gpuvis::cuda

// ---- the public device memory (gpuvis/cuda/device_memory.hpp) ----

namespace gpuvis::cuda {

DeviceAllocation::DeviceAllocation(std::size_t bytes) : size_(bytes) {
  if (bytes) GPUVIS_CUDA_CHECK(cudaMalloc(&data_, bytes));
}
DeviceAllocation::~DeviceAllocation() {
  if (data_) cudaFree(data_);
}
DeviceAllocation::DeviceAllocation(DeviceAllocation&& o) noexcept
    : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}
DeviceAllocation& DeviceAllocation::operator=(DeviceAllocation&& o) noexcept {
  std::swap(data_, o.data_);
  std::swap(size_, o.size_);
  return *this;
}

bool is_page_locked(const void* pointer) { return is_pinned(pointer); }

bool is_device_pointer(const void* pointer) {
  if (!pointer) return false;
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, pointer) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  int device = -1;
  if (cudaGetDevice(&device) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return (a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged) && a.device == device;
}

void synchronize(StreamHandle stream) { GPUVIS_CUDA_CHECK(cudaStreamSynchronize(stream)); }

void copy_to_host(void* host, const void* device, std::size_t bytes) {
  GPUVIS_CUDA_CHECK(cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost));
}
void copy_to_device(void* device, const void* host, std::size_t bytes) {
  GPUVIS_CUDA_CHECK(cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice));
}

}  // namespace gpuvis::cuda

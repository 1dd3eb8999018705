#pragma once
// Typed views of the library's RAII device and pinned buffers, for the lab's CUDA lessons.
#include <cstddef>

#include "cuda/memory.hpp"

namespace gpuvis::lab::cuda_impl {

template <class T>
struct DeviceArray {
  cuda::DeviceBuffer buffer;
  T* p;
  explicit DeviceArray(std::size_t n) : buffer(n * sizeof(T)), p(buffer.as<T>()) {}
};

template <class T>
struct PinnedArray {
  cuda::PinnedBuffer buffer;
  T* p;
  explicit PinnedArray(std::size_t n) : buffer(n * sizeof(T)), p(buffer.as<T>()) {}
};

}  // namespace gpuvis::lab::cuda_impl

#pragma once
// Backend choice shared by the library and every CLI command: --backend auto|cpu|cuda|opencl.
#include <string>
#include <string_view>

namespace gpuvis {

enum class Backend { automatic, cpu, cuda, opencl };

// Parses "auto", "cpu", "cuda" or "opencl"; throws ErrorCode::invalid_argument otherwise.
Backend parse_backend(std::string_view name);
std::string_view to_string(Backend backend);

// Every operation that takes a Backend resolves `automatic` the same way, with resolve_backend()
// (gpuvis/cuda/runtime.hpp): CUDA when a device is usable, else the CPU; the operations that run on
// OpenCL (the thresholds, convolution, the bilateral filter, mean shift and the Game of Life so far) take an OpenCL GPU before the CPU
// (opencl::prefer_opencl_gpu, docs/opencl.md).

// For an operation that has no OpenCL implementation yet: ErrorCode::unsupported naming it when
// `backend` is opencl, so that it never runs on another backend than the one asked for.
void refuse_opencl(Backend backend, std::string_view operation);

}  // namespace gpuvis

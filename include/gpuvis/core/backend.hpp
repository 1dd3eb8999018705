#pragma once
// Backend choice shared by the library and every CLI command: --backend auto|cpu|cuda.
#include <string>
#include <string_view>

namespace gpuvis {

enum class Backend { automatic, cpu, cuda };

// Parses "auto", "cpu" or "cuda"; throws ErrorCode::invalid_argument otherwise.
Backend parse_backend(std::string_view name);
std::string_view to_string(Backend backend);

// Every operation that takes a Backend resolves `automatic` the same way, with resolve_backend()
// (gpuvis/cuda/runtime.hpp): CUDA when a device is usable, else the CPU.

}  // namespace gpuvis

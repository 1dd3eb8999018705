#pragma once
// Backend choice shared by the library and every CLI command: --backend auto|cpu|cuda.
#include <functional>
#include <string>
#include <string_view>

namespace gpuvis {

enum class Backend { automatic, cpu, cuda };

// Parses "auto", "cpu" or "cuda"; throws ErrorCode::invalid_argument otherwise.
Backend parse_backend(std::string_view name);
std::string_view to_string(Backend backend);

// Resolves `automatic` to cuda when a CUDA device is usable and to cpu otherwise; in the latter case
// `notice` receives a one-line explanation (e.g. "no CUDA device found, using the CPU backend").
// Asking for cuda explicitly when it is unavailable throws ErrorCode::unsupported.
Backend resolve_backend(Backend requested, const std::function<void(const std::string&)>& notice = {});

}  // namespace gpuvis

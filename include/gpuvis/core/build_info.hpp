#pragma once
#include <string>

namespace gpuvis {

std::string version();     // "0.1.0"
bool built_with_cuda();    // CUDA backend compiled in
bool built_with_codecs();  // PNG/JPEG adapter compiled in
std::string cuda_architectures();  // e.g. "75-real;80-real;...;90", empty without CUDA
std::string build_type();

}  // namespace gpuvis

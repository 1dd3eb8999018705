#pragma once
// The OpenCL programs' sources, embedded at build time (cmake/embed_text.cmake): each is its rule
// headers, shared with the CPU and CUDA backends, followed by its kernels.
namespace gpuvis::opencl::sources {

extern const char* const bernsen;   // threshold/bernsen_rule.h + threshold/opencl/bernsen.cl
extern const char* const convolve;  // filters/border_rule.h + filters/opencl/convolve.cl

}  // namespace gpuvis::opencl::sources

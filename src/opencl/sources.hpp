#pragma once
// The OpenCL programs' sources, embedded at build time (cmake/embed_text.cmake): each is its rule
// headers, shared with the CPU and CUDA backends, followed by its kernels.
namespace gpuvis::opencl::sources {

extern const char* const bernsen;   // threshold/bernsen_rule.h + threshold/opencl/bernsen.cl
extern const char* const convolve;   // filters/border_rule.h + filters/opencl/samples.cl + filters/opencl/convolve.cl
extern const char* const bilateral;  // the same helpers + filters/bilateral_rule.h + filters/opencl/bilateral.cl
extern const char* const tiled;     // opencl/rule_prelude.cl + threshold/tiled_rule.h + threshold/opencl/tiled.cl
extern const char* const bradley_roth;  // threshold/bradley_roth_rule.h + threshold/opencl/bradley_roth.cl
extern const char* const sharpen;       // threshold/sharpen_rule.h + threshold/opencl/sharpen.cl
extern const char* const equalize;      // threshold/equalize_rule.h + threshold/opencl/equalize.cl
extern const char* const life;          // life/opencl/word32.cl + life/word_rule.h + life/opencl/life.cl
extern const char* const mean_shift;    // opencl/rule_prelude.cl + filters/mean_shift_rule.h + filters/mean_shift_step.h + filters/opencl/mean_shift.cl

}  // namespace gpuvis::opencl::sources

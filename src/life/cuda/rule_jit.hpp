#pragma once
// A Life rule's own CUDA kernel, compiled at run time by NVRTC (rule_jit.cpp): the tile kernel of
// life/cuda/tile.cuh with the rule's outcome for each block sum as constants, which the compiler
// folds into a few logic operations (as it does for Conway's rule), instead of the masks the
// generic kernel reads and selects among. NVRTC (libnvrtc, part of the CUDA toolkit) is opened
// with dlopen on first use; without it the generic kernel runs, with the same results.
#include <string>

namespace gpuvis::life::cuda_impl {

// The tile shape the kernel is instantiated for (simulation.cu's).
struct TileShape {
  int rows, halo, words_per_lane, warps_per_block;
};

// The kernel for birth/survival (a cudaKernel_t, launched with cudaLaunchKernel and the arguments
// (const unsigned* src, unsigned* dst, BoardShape, int generations, bool torus, unsigned long long*
// population)), compiled once per rule and process for the current device; null when it cannot
// be (no NVRTC, or GPUVIS_LIFE_JIT=0), with `why` set.
const void* compiled_rule_kernel(unsigned birth, unsigned survival, const TileShape& tile, std::string* why = nullptr);

}  // namespace gpuvis::life::cuda_impl

#pragma once
// CUDA sources compiled at run time by NVRTC, embedded at build time (cmake/embed_text.cmake).
namespace gpuvis::cuda::sources {

extern const char* const life_tile;  // life/word_rule.h + life/cuda/tile.cuh (life/cuda/rule_jit.cpp)

}  // namespace gpuvis::cuda::sources

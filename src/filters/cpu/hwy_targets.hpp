#pragma once
// Which of Highway's x86 targets the running CPU can run: the files compiled once per target
// (row_kernels_hwy.cpp, mean_shift_lanes_hwy.cpp) choose their target with these instead of
// HWY_DYNAMIC_DISPATCH, whose target cache lives in libhwy.so, a library whose load-time
// initialiser times the CPU's clock for about 6 ms in every process.
#include "hwy/detect_compiler_arch.h"  // HWY_ARCH_X86

namespace gpuvis::filters::cpu_targets {

#if HWY_ARCH_X86
// Whether the CPU (and the OS, for the wide registers: libgcc's and compiler-rt's checks include it)
// has every instruction set the target's code is compiled for (Highway's HWY_TARGET_STR_* lists).
inline bool has_ssse3() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("sse2") && __builtin_cpu_supports("ssse3");
}
inline bool has_sse4() {
  return has_ssse3() && __builtin_cpu_supports("sse4.1") && __builtin_cpu_supports("sse4.2") && __builtin_cpu_supports("pclmul") &&
         __builtin_cpu_supports("aes");
}
inline bool has_avx2() {
  return has_sse4() && __builtin_cpu_supports("avx") && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") &&
         __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("fma")
#if !defined(__clang__)  // clang has no "f16c" query; every AVX2 CPU has F16C
         && __builtin_cpu_supports("f16c")
#endif
      ;
}
inline bool has_avx3() {
  return has_avx2() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512bw");
}
#endif

}  // namespace gpuvis::filters::cpu_targets

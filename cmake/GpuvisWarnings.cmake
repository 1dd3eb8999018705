# Warnings and sanitizers, applied through the interface target gpuvis_build_flags that every
# gpuvis target links.
add_library(gpuvis_build_flags INTERFACE)

if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  target_compile_options(gpuvis_build_flags INTERFACE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    # GCC 12 reports false -Wrestrict positives inside std::string concatenation (GCC bug 105329).
    target_compile_options(gpuvis_build_flags INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Wno-restrict>)
  endif()
  if(GPUVIS_WERROR)
    target_compile_options(gpuvis_build_flags INTERFACE
      $<$<COMPILE_LANGUAGE:CXX>:-Werror>
      $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings -Xcompiler=-Werror>)
  endif()
endif()

if(GPUVIS_FUZZ)
  # libFuzzer's coverage instrumentation on every gpuvis target (tests/fuzz, scripts/fuzz.sh).
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "GPUVIS_FUZZ needs clang: configure with CXX=clang++ (scripts/fuzz.sh does)")
  endif()
  target_compile_options(gpuvis_build_flags INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-fsanitize=fuzzer-no-link>)
endif()

if(GPUVIS_SANITIZE)
  # ASan + UBSan on host code. CUDA device code is checked with compute-sanitizer instead
  # (scripts/gpu-check.sh --sanitize).
  set(_san -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  target_compile_options(gpuvis_build_flags INTERFACE $<$<COMPILE_LANGUAGE:CXX>:${_san}>)
  target_link_options(gpuvis_build_flags INTERFACE ${_san})
endif()

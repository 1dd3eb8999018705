# CUDA backend detection: GPUVIS_CUDA = AUTO | ON | OFF.
# Sets GPUVIS_HAVE_CUDA. The default architectures cover Turing to Hopper with machine code
# (sm_75, 80, 86, 89, 90) plus compute_90 PTX so newer GPUs can JIT-compile.
set(GPUVIS_HAVE_CUDA OFF)
if(NOT GPUVIS_CUDA STREQUAL "OFF")
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES OR CMAKE_CUDA_ARCHITECTURES STREQUAL "")
      set(CMAKE_CUDA_ARCHITECTURES "75-real;80-real;86-real;89-real;90" CACHE STRING "CUDA architectures")
    endif()
    enable_language(CUDA)
    # CMake 3.25 does not know that nvcc >= 12 takes -std=c++20; tell it.
    if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
      set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
      set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
      list(APPEND CMAKE_CUDA_COMPILE_FEATURES cuda_std_20)
    endif()
    set(CMAKE_CUDA_STANDARD 20)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    find_package(CUDAToolkit REQUIRED)
    set(GPUVIS_HAVE_CUDA ON)
  elseif(GPUVIS_CUDA STREQUAL "ON")
    message(FATAL_ERROR "GPUVIS_CUDA=ON but no CUDA compiler (nvcc) was found. Install the CUDA "
                        "toolkit, put nvcc on PATH, or configure with -DGPUVIS_CUDA=OFF.")
  else()
    message(STATUS "gpuvis: no nvcc found, building without the CUDA backend")
  endif()
endif()

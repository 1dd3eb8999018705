# CUDA backend detection: GPUVIS_CUDA = AUTO | ON | OFF.
# Sets GPUVIS_HAVE_CUDA. Unless CMAKE_CUDA_ARCHITECTURES is given, the code is compiled for the GPUs
# of the building machine (nvidia-smi's compute capabilities), or, on a machine without a GPU (CI,
# a build farm), for one architecture: sm_75 machine code plus compute_75 PTX, which every GPU from
# Turing on runs (newer ones JIT-compile the PTX once; the driver caches it). Each architecture
# costs a full compilation of every CUDA file, so packagers pick theirs, e.g.
# -DCMAKE_CUDA_ARCHITECTURES="75-real;80-real;86-real;89-real;90".

function(gpuvis_detect_cuda_architectures out)
  set(archs "")
  find_program(GPUVIS_NVIDIA_SMI nvidia-smi)
  if(GPUVIS_NVIDIA_SMI)
    execute_process(COMMAND ${GPUVIS_NVIDIA_SMI} --query-gpu=compute_cap --format=csv,noheader
                    OUTPUT_VARIABLE caps RESULT_VARIABLE rc ERROR_QUIET TIMEOUT 20)
    if(rc EQUAL 0)
      string(REPLACE "\n" ";" caps "${caps}")
      foreach(cap IN LISTS caps)
        string(STRIP "${cap}" cap)
        string(REPLACE "." "" cap "${cap}")
        if(cap MATCHES "^[0-9]+$")
          list(APPEND archs ${cap})
        endif()
      endforeach()
      list(REMOVE_DUPLICATES archs)
    endif()
  endif()
  if(archs)
    message(STATUS "gpuvis: CUDA code for this machine's GPUs: ${archs}")
  else()
    set(archs 75)
    message(STATUS "gpuvis: no GPU seen (nvidia-smi): CUDA code for sm_75 with PTX, which newer GPUs JIT-compile")
  endif()
  set(${out} "${archs}" PARENT_SCOPE)
endfunction()

set(GPUVIS_HAVE_CUDA OFF)
if(NOT GPUVIS_CUDA STREQUAL "OFF")
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES OR CMAKE_CUDA_ARCHITECTURES STREQUAL "")
      gpuvis_detect_cuda_architectures(archs)
      set(CMAKE_CUDA_ARCHITECTURES "${archs}" CACHE STRING "CUDA architectures")
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
    include(${CMAKE_CURRENT_LIST_DIR}/GpuvisCudaToolkitFix.cmake)
    find_package(CUDAToolkit REQUIRED)
    set(GPUVIS_HAVE_CUDA ON)
  elseif(GPUVIS_CUDA STREQUAL "ON")
    message(FATAL_ERROR "GPUVIS_CUDA=ON but no CUDA compiler (nvcc) was found. Install the CUDA "
                        "toolkit, put nvcc on PATH, or configure with -DGPUVIS_CUDA=OFF.")
  else()
    message(STATUS "gpuvis: no nvcc found, building without the CUDA backend")
  endif()
endif()

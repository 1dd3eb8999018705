# Before find_package(CUDAToolkit) with CMake 3.25: its FindCUDAToolkit marks CUDA::nvToolsExt
# deprecated without checking that the target exists, when the project asks for CMake 3.25 or
# later, and CUDA 12 and later no longer ship that library. On a fresh Debian 12 (CMake 3.25.1)
# with the CUDA 13 toolkit, configuring then failed: "set_property could not find TARGET
# CUDA::nvToolsExt" (2026-12-02). An empty stand-in lets the module finish; gpuvis does not link it.
if(NOT TARGET CUDA::nvToolsExt AND CMAKE_VERSION VERSION_LESS 3.26)
  add_library(CUDA::nvToolsExt INTERFACE IMPORTED)
endif()

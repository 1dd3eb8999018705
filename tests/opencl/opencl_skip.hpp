#pragma once
// GPUVIS_REQUIRE_OPENCL(): skips a test without an OpenCL device, or fails it where
// GPUVIS_REQUIRE_OPENCL=1 (CI, which installs PoCL), naming what is missing.
#include <cstdlib>
#include <string>

#include "gpuvis/opencl/devices.hpp"

#define GPUVIS_REQUIRE_OPENCL()                                                                      \
  do {                                                                                               \
    std::string why;                                                                                 \
    if (::gpuvis::opencl::devices(&why).empty()) {                                                   \
      const char* required = std::getenv("GPUVIS_REQUIRE_OPENCL");                                   \
      if (required && std::string(required) == "1") FAIL() << "GPUVIS_REQUIRE_OPENCL=1 but " << why; \
      GTEST_SKIP() << "needs an OpenCL device: " << why;                                             \
    }                                                                                                \
  } while (0)

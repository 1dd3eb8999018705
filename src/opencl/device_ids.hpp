#pragma once
// The OpenCL handles behind gpuvis::opencl::DeviceInfo (devices.cpp).
#include <string>
#include <vector>

#include "gpuvis/opencl/devices.hpp"
#include "opencl/api.hpp"

namespace gpuvis::opencl {

struct DeviceId {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  DeviceInfo info;
  std::string driver;  // CL_DRIVER_VERSION: part of the program cache's key
};

// Every device of every platform (empty with `why` when OpenCL is not there).
std::vector<DeviceId> device_ids(std::string* why = nullptr);
// The device chosen_device() describes.
DeviceId choose_device();

}  // namespace gpuvis::opencl

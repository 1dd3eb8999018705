#pragma once
// The OpenCL devices of this machine, as `gpuvis info` lists them and `--backend opencl` chooses
// among them. OpenCL is loaded on first use (the ICD loader, libOpenCL.so.1); a machine without it
// has no devices, and says why.
#include <cstdint>
#include <string>
#include <vector>

#include "gpuvis/core/backend.hpp"

namespace gpuvis::opencl {

struct DeviceInfo {
  int index = 0;              // in this list: what GPUVIS_OPENCL_DEVICE=N picks
  std::string platform;       // "NVIDIA CUDA", "Portable Computing Language"
  std::string name;           // "NVIDIA H200", "pthread-haswell-AMD EPYC ..."
  std::string version;        // "OpenCL 3.0 CUDA"
  bool gpu = false;           // CL_DEVICE_TYPE_GPU
  std::uint64_t memory = 0;   // global memory, bytes
  std::uint64_t local_memory = 0;  // local memory a work group may use, bytes
  bool exact_divide_sqrt = false;  // can round float division and square root correctly (CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT)
};

// Every device of every platform; empty when OpenCL is not there, with `why` (when given) saying
// what is missing.
std::vector<DeviceInfo> devices(std::string* why = nullptr);

// The device `--backend opencl` uses: GPUVIS_OPENCL_DEVICE (an index of devices(), or a part of a
// device's or platform's name, any case) when set, else the first GPU, else the first device (an
// OpenCL CPU device such as PoCL). ErrorCode::unsupported when there is none or the choice names
// none, with the devices there are.
DeviceInfo chosen_device();

// Whether an OpenCL GPU is present, found once per process. Where the only drivers installed are
// PoCL's (driver_other_than_pocl), there is none, and nothing is loaded to find that out: `auto`
// costs a CPU-only machine nothing.
bool gpu_present();

// Whether an OpenCL driver other than PoCL is installed, read from the environment and files alone:
// the libraries in $OCL_ICD_FILENAMES (colon-separated; NVIDIA's containers name theirs there and
// install no ICD file), then the .icd files of $OCL_ICD_VENDORS (a folder or one file) or
// /etc/OpenCL/vendors.
bool driver_other_than_pocl();

// What `auto` means for an operation that runs on OpenCL: CUDA when a device is usable, then an
// OpenCL GPU, then the CPU. `resolved` is resolve_backend(requested) (CUDA or the CPU for auto);
// `runs_here` whether the operation, with its parameters, runs on OpenCL.
Backend prefer_opencl_gpu(Backend requested, Backend resolved, bool runs_here = true);

}  // namespace gpuvis::opencl

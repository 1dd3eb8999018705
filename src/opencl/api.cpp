#include "opencl/api.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

#include "gpuvis/core/error.hpp"

namespace gpuvis::opencl {
namespace {

// OCL_ICD_FILENAMES as it was before the loader was opened (see icd_filenames_env).
std::mutex env_mutex;
bool env_saved = false;
std::string env_before_load;

struct Loaded {
  Api api{};
  bool ok = false;
  std::string why;
};

Loaded load() {
  Loaded l;
  {
    std::lock_guard lock(env_mutex);
    const char* names = std::getenv("OCL_ICD_FILENAMES");
    env_before_load = names ? names : "";
    env_saved = true;
  }
  void* library = nullptr;
  for (const char* name : {"libOpenCL.so.1", "libOpenCL.so"})
    if ((library = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
  if (!library) {
    l.why = "OpenCL is not available: libOpenCL.so.1 (the ICD loader) was not found; install ocl-icd-libopencl1 and a driver "
            "(your GPU vendor's, or pocl-opencl-icd for the CPU)";
    return l;
  }
  bool all = true;
  auto bind = [&](auto& slot, const char* name) {
    slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(dlsym(library, name));
    if (!slot && all) {
      all = false;
      l.why = std::string("OpenCL is not usable: the ICD loader lacks ") + name + " (OpenCL 1.2 is needed)";
    }
  };
  Api& a = l.api;
  bind(a.GetPlatformIDs, "clGetPlatformIDs");
  bind(a.GetPlatformInfo, "clGetPlatformInfo");
  bind(a.GetDeviceIDs, "clGetDeviceIDs");
  bind(a.GetDeviceInfo, "clGetDeviceInfo");
  bind(a.CreateContext, "clCreateContext");
  bind(a.ReleaseContext, "clReleaseContext");
  bind(a.CreateCommandQueue, "clCreateCommandQueue");
  bind(a.ReleaseCommandQueue, "clReleaseCommandQueue");
  bind(a.CreateProgramWithSource, "clCreateProgramWithSource");
  bind(a.CreateProgramWithBinary, "clCreateProgramWithBinary");
  bind(a.BuildProgram, "clBuildProgram");
  bind(a.GetProgramBuildInfo, "clGetProgramBuildInfo");
  bind(a.GetProgramInfo, "clGetProgramInfo");
  bind(a.ReleaseProgram, "clReleaseProgram");
  bind(a.CreateKernel, "clCreateKernel");
  bind(a.ReleaseKernel, "clReleaseKernel");
  bind(a.SetKernelArg, "clSetKernelArg");
  bind(a.EnqueueNDRangeKernel, "clEnqueueNDRangeKernel");
  bind(a.CreateBuffer, "clCreateBuffer");
  bind(a.ReleaseMemObject, "clReleaseMemObject");
  bind(a.EnqueueWriteBuffer, "clEnqueueWriteBuffer");
  bind(a.EnqueueReadBuffer, "clEnqueueReadBuffer");
  bind(a.EnqueueMapBuffer, "clEnqueueMapBuffer");
  bind(a.EnqueueUnmapMemObject, "clEnqueueUnmapMemObject");
  bind(a.WaitForEvents, "clWaitForEvents");
  bind(a.ReleaseEvent, "clReleaseEvent");
  bind(a.GetEventProfilingInfo, "clGetEventProfilingInfo");
  bind(a.EnqueueWriteBufferRect, "clEnqueueWriteBufferRect");
  bind(a.EnqueueReadBufferRect, "clEnqueueReadBufferRect");
  bind(a.Finish, "clFinish");
  bind(a.Flush, "clFlush");
  l.ok = all;
  return l;  // the library stays open for the life of the process
}

const Loaded& loaded() {
  static const Loaded l = load();
  return l;
}

}  // namespace

std::string icd_filenames_env() {
  const char* now = std::getenv("OCL_ICD_FILENAMES");
  const std::string current = now ? now : "";
  std::lock_guard lock(env_mutex);
  // The value cut by the loader is the first library of the one it was given: that one then.
  // Any other value was set since, and is what the caller means.
  if (env_saved && env_before_load != current && env_before_load.substr(0, env_before_load.find(':')) == current) return env_before_load;
  return current;
}

const Api* find_api(std::string* why) {
  const Loaded& l = loaded();
  if (!l.ok && why) *why = l.why;
  return l.ok ? &l.api : nullptr;
}

const Api& api() {
  std::string why;
  const Api* a = find_api(&why);
  if (!a) fail(ErrorCode::unsupported, why);
  return *a;
}

std::string status_name(cl_int status) {
  const char* name = "unknown status";
  switch (status) {
    case CL_SUCCESS: name = "CL_SUCCESS"; break;
    case CL_DEVICE_NOT_FOUND: name = "CL_DEVICE_NOT_FOUND"; break;
    case CL_DEVICE_NOT_AVAILABLE: name = "CL_DEVICE_NOT_AVAILABLE"; break;
    case CL_COMPILER_NOT_AVAILABLE: name = "CL_COMPILER_NOT_AVAILABLE"; break;
    case CL_MEM_OBJECT_ALLOCATION_FAILURE: name = "CL_MEM_OBJECT_ALLOCATION_FAILURE"; break;
    case CL_OUT_OF_RESOURCES: name = "CL_OUT_OF_RESOURCES"; break;
    case CL_OUT_OF_HOST_MEMORY: name = "CL_OUT_OF_HOST_MEMORY"; break;
    case CL_BUILD_PROGRAM_FAILURE: name = "CL_BUILD_PROGRAM_FAILURE"; break;
    case CL_INVALID_VALUE: name = "CL_INVALID_VALUE"; break;
    case CL_INVALID_DEVICE: name = "CL_INVALID_DEVICE"; break;
    case CL_INVALID_BINARY: name = "CL_INVALID_BINARY"; break;
    case CL_INVALID_KERNEL_NAME: name = "CL_INVALID_KERNEL_NAME"; break;
    case CL_INVALID_KERNEL_ARGS: name = "CL_INVALID_KERNEL_ARGS"; break;
    case CL_INVALID_WORK_GROUP_SIZE: name = "CL_INVALID_WORK_GROUP_SIZE"; break;
    case CL_INVALID_BUFFER_SIZE: name = "CL_INVALID_BUFFER_SIZE"; break;
    case -1001: name = "CL_PLATFORM_NOT_FOUND_KHR: no OpenCL driver is installed"; break;  // cl_ext.h
    default: break;
  }
  return std::string(name) + " (" + std::to_string(status) + ")";
}

void check(cl_int status, const char* what) {
  if (status != CL_SUCCESS) fail(ErrorCode::opencl, std::string("OpenCL: ") + what + " failed: " + status_name(status));
}

}  // namespace gpuvis::opencl

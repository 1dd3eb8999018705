#pragma once
// The OpenCL API as a table of functions of the Khronos ICD loader (libOpenCL.so.1), opened with
// dlopen the first time OpenCL is used: a program that never uses OpenCL loads nothing of it, and
// a machine without it builds and runs gpuvis all the same (the headers are bundled,
// third_party/opencl-headers). Only what the OpenCL backend calls is bound.
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120  // OpenCL 1.2: what PoCL, NVIDIA, AMD, Intel and Apple all offer
#endif
#include <CL/cl.h>

#include <string>

namespace gpuvis::opencl {

struct Api {
  decltype(&::clGetPlatformIDs) GetPlatformIDs;
  decltype(&::clGetPlatformInfo) GetPlatformInfo;
  decltype(&::clGetDeviceIDs) GetDeviceIDs;
  decltype(&::clGetDeviceInfo) GetDeviceInfo;
  decltype(&::clCreateContext) CreateContext;
  decltype(&::clReleaseContext) ReleaseContext;
  decltype(&::clCreateCommandQueue) CreateCommandQueue;
  decltype(&::clReleaseCommandQueue) ReleaseCommandQueue;
  decltype(&::clCreateProgramWithSource) CreateProgramWithSource;
  decltype(&::clCreateProgramWithBinary) CreateProgramWithBinary;
  decltype(&::clBuildProgram) BuildProgram;
  decltype(&::clGetProgramBuildInfo) GetProgramBuildInfo;
  decltype(&::clGetProgramInfo) GetProgramInfo;
  decltype(&::clReleaseProgram) ReleaseProgram;
  decltype(&::clCreateKernel) CreateKernel;
  decltype(&::clReleaseKernel) ReleaseKernel;
  decltype(&::clSetKernelArg) SetKernelArg;
  decltype(&::clEnqueueNDRangeKernel) EnqueueNDRangeKernel;
  decltype(&::clCreateBuffer) CreateBuffer;
  decltype(&::clReleaseMemObject) ReleaseMemObject;
  decltype(&::clEnqueueWriteBuffer) EnqueueWriteBuffer;
  decltype(&::clEnqueueReadBuffer) EnqueueReadBuffer;
  decltype(&::clEnqueueMapBuffer) EnqueueMapBuffer;
  decltype(&::clEnqueueUnmapMemObject) EnqueueUnmapMemObject;
  decltype(&::clWaitForEvents) WaitForEvents;
  decltype(&::clReleaseEvent) ReleaseEvent;
  decltype(&::clGetEventProfilingInfo) GetEventProfilingInfo;
  decltype(&::clEnqueueWriteBufferRect) EnqueueWriteBufferRect;
  decltype(&::clEnqueueReadBufferRect) EnqueueReadBufferRect;
  decltype(&::clFinish) Finish;
  decltype(&::clFlush) Flush;
};

// OCL_ICD_FILENAMES as the loader found it: the Khronos loader of NVIDIA's CUDA toolkit cuts the
// variable at its first colon in place when it reads it, so after OpenCL was opened getenv sees
// only the first library. This gives the value from before the cut.
std::string icd_filenames_env();

// The table, or null when the library or one of its functions is missing; `why` (when given) then
// says so in one line, with what to install.
const Api* find_api(std::string* why = nullptr);
// The table, or ErrorCode::unsupported with that line.
const Api& api();

// "CL_OUT_OF_RESOURCES (-5)" for a status code.
std::string status_name(cl_int status);
// Throws ErrorCode::opencl naming `what` and the status when status is not CL_SUCCESS.
void check(cl_int status, const char* what);

}  // namespace gpuvis::opencl

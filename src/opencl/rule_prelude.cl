/* Put before the rule headers of a program (gpuvis_opencl_program): a rule that reads an image
   takes it in OpenCL's global address space. */
#define GPUVIS_GLOBAL __global

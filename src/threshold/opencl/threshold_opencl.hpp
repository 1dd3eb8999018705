#pragma once
// The OpenCL backend of the threshold stage (thresholder_opencl.cpp).
#include <memory>

#include "gpuvis/threshold/threshold.hpp"

namespace gpuvis::threshold {

// Every threshold method, with or without sharpening, on the OpenCL device (opencl::chosen_device).
std::unique_ptr<Thresholder> make_opencl_thresholder(const Params& params);

}  // namespace gpuvis::threshold

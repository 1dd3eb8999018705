#pragma once
// The OpenCL backend of the threshold stage (thresholder_opencl.cpp).
#include <memory>

#include "gpuvis/threshold/threshold.hpp"

namespace gpuvis::threshold {

// Full Bernsen on the OpenCL device (opencl::chosen_device); ErrorCode::unsupported for the other
// methods and for sharpening, which are not on OpenCL yet.
std::unique_ptr<Thresholder> make_opencl_thresholder(const Params& params);

}  // namespace gpuvis::threshold

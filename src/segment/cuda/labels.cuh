#pragma once
// Stage 1 of the CUDA segmentation: connected components of both colours (4-connectivity).
#include <cuda_runtime_api.h>

#include <cstdint>

#include "gpuvis/core/image.hpp"

namespace gpuvis::segment::cuda_impl {

// label[y * width + x] = the smallest pixel index (raster order) of the pixel's region, i.e. its
// first pixel. `label` holds width * height elements.
void label_pixels(DeviceView<const std::uint8_t> binary, std::int32_t* label, cudaStream_t stream);

}  // namespace gpuvis::segment::cuda_impl

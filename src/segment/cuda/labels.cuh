#pragma once
// Stage 1 of the CUDA segmentation: connected components of both colours (4-connectivity).
#include <cuda_runtime_api.h>

#include <cstdint>

#include "gpuvis/core/image.hpp"
#include "segment/cuda/segment_cuda.hpp"

namespace gpuvis::segment::cuda_impl {

// The pixels of the frame in raster order as 32-pixel words (word k holds pixels 32k .. 32k + 31,
// across row ends): bit b of `roots` is set when pixel 32k + b is its region's first pixel, bit b
// of `run_starts` when a run starts there (first column, or a colour change from the west).
// They let the numbering count regions and runs per word instead of per pixel.
struct WordMarks {
  std::uint32_t roots, run_starts;
};
inline int word_count(int pixels) { return (pixels + 31) / 32; }

// label[y * width + x] = the smallest pixel index (raster order) of the pixel's region, i.e. its
// first pixel. `label` holds width * height elements, `marks` word_count(width * height).
void label_pixels(DeviceView<const std::uint8_t> binary, std::int32_t* label, WordMarks* marks, cudaStream_t stream);
// The same from a grey frame that the first labelling pass thresholds itself (full Bernsen), writing
// in.binary for the later passes.
void threshold_and_label_pixels(const BernsenInput& in, std::int32_t* label, WordMarks* marks, cudaStream_t stream);

}  // namespace gpuvis::segment::cuda_impl

#pragma once
// How an OpenCL filter's image crosses the bus (convolve_opencl.cpp, bilateral_opencl.cpp): in one
// piece when it fits the memory budget as one strip (the driver's own copies, through page-locked
// staging in pieces from 1 MiB, opencl/context.hpp), else in strips of at least 4 MiB and about a
// quarter of the image, several in flight (opencl::StripPipeline). Measured on the H200 with
// NVIDIA's driver (2026-12-02, `bench_filters --quick --filter opencl`, end to end, the 7×7 f32):
// 1080p in one piece 623 µs, in strips of 4 MiB (two) 564, 2 MiB 619, 1 MiB 819, as one strip
// through the pipeline 992; 4K in one piece 1877, strips of 4 MiB (eight) 1428, 8 MiB (four) 1240.
#include <algorithm>
#include <cstddef>

#include "cuda/strip_plan.hpp"  // plain arithmetic: how many rows a strip holds within a budget

namespace gpuvis::filters {

inline cuda::StripPlan opencl_strip_plan(std::size_t row_bytes, int height, int halo, std::size_t scratch_per_row, std::size_t budget) {
  const std::size_t image = row_bytes * static_cast<std::size_t>(height);
  return cuda::plan_strips(row_bytes, row_bytes, height, halo, scratch_per_row, budget, std::max<std::size_t>(std::size_t{4} << 20, image / 4));
}

// Whether the plan is the whole image in one piece.
inline bool in_one_piece(const cuda::StripPlan& plan, int height) { return plan.strip_rows >= height; }

}  // namespace gpuvis::filters

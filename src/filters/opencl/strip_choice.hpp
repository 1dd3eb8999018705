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
#include "filters/border_index.hpp"
#include "gpuvis/core/image.hpp"
#include "opencl/context.hpp"
#include "opencl/strip_pipeline.hpp"

namespace gpuvis::filters {

inline cuda::StripPlan opencl_strip_plan(std::size_t row_bytes, int height, int halo, std::size_t scratch_per_row, std::size_t budget) {
  const std::size_t image = row_bytes * static_cast<std::size_t>(height);
  return cuda::plan_strips(row_bytes, row_bytes, height, halo, scratch_per_row, budget, std::max<std::size_t>(std::size_t{4} << 20, image / 4));
}

// Runs a filter over src into dst as the plan says. enqueue(in, out, scratch, in_first, in_rows,
// out_first, out_rows, queue) enqueues its kernels for output rows [out_first, out_first +
// out_rows) from input rows [in_first, in_first + in_rows) in `in`: once for the whole image in
// `whole_in` / `whole_out` / `whole_scratch` (in_first 0, in_rows the height) on the context's
// queue, or once a strip on a strip's queue, the strip's `halo` rows above and below staged already
// mapped by `border` (samples.cl's source_row reads them).
template <class T, class Enqueue>
void run_planned(HostView<const T> src, HostView<T> dst, const cuda::StripPlan& plan, int halo, BorderMode border,
                 opencl::Buffer& whole_in, opencl::Buffer& whole_out, opencl::Buffer& whole_scratch, Enqueue&& enqueue) {
  const int height = src.height;
  const std::size_t row_bytes = src.row_bytes();
  if (plan.strip_rows >= height) {
    opencl::upload(src, whole_in);
    whole_out.reserve(row_bytes * static_cast<std::size_t>(height));
    enqueue(whole_in, whole_out, whole_scratch, 0, height, 0, height, nullptr);
    opencl::download(whole_out, dst);
    return;
  }
  opencl::StripPipeline::for_this_thread().run(
      reinterpret_cast<const unsigned char*>(src.data), src.stride, reinterpret_cast<unsigned char*>(dst.data), dst.stride, row_bytes, height,
      halo, plan.strip_rows, plan.slots, [&](int y) { return border_index(y, height, border); },
      [&](const opencl::StripPipeline::Strip& s) { enqueue(*s.in, *s.out, *s.scratch, s.in_first, s.in_rows, s.y0, s.rows, s.queue); });
}

}  // namespace gpuvis::filters

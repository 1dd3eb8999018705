#pragma once
// Runs an OpenCL filter over a host image in strips of rows so that the work of neighbouring
// strips overlaps, as cuda::StripPipeline does on CUDA: while the device uploads, filters and
// downloads one strip on its queue, the host copies the next strip's rows into page-locked
// staging and a finished strip's rows out of it. Three slots (an in-order queue, its staging and
// device buffers) rotate; the buffers are kept between calls and only grow.
//
// Each output row is computed from the same input rows as in one piece (a strip carries `halo`
// rows above and below, as the caller's row map names them), so results do not depend on the
// strips.
#include <cstddef>
#include <functional>
#include <memory>

#include "opencl/context.hpp"

namespace gpuvis::opencl {

class StripPipeline {
 public:
  // One strip as the filter sees it: output rows y0 .. y0 + rows - 1 into `out` (tightly packed),
  // from the staged input rows for global rows in_first .. in_first + in_rows - 1 in `in`.
  struct Strip {
    int y0 = 0, rows = 0;
    int in_first = 0, in_rows = 0;
    const Buffer* in = nullptr;
    Buffer* out = nullptr;
    Buffer* scratch = nullptr;  // the slot's own, for the filter's intermediate buffers
    cl_command_queue queue = nullptr;
  };

  // The calling thread's pipeline.
  static StripPipeline& for_this_thread();
  StripPipeline();
  StripPipeline(const StripPipeline&) = delete;
  StripPipeline& operator=(const StripPipeline&) = delete;
  ~StripPipeline();

  // `height` rows of `row_bytes` bytes, src_stride and dst_stride bytes apart, in strips of
  // `strip_rows` output rows, `slots` (1-3) of them in flight (cuda::plan_strips says how many fit
  // a memory budget). map_row(global row) names the source row staged for it, or -1
  // (left unset: the filter reads its constant there). compute(strip) enqueues the filter's kernels
  // on strip.queue. src and dst must not overlap.
  void run(const unsigned char* src, std::ptrdiff_t src_stride, unsigned char* dst, std::ptrdiff_t dst_stride, std::size_t row_bytes,
           int height, int halo, int strip_rows, int slots, const std::function<int(int)>& map_row,
           const std::function<void(const Strip&)>& compute);

 private:
  struct Slot;
  static constexpr int kSlots = 3;
  std::unique_ptr<Slot[]> slots_;
};

}  // namespace gpuvis::opencl

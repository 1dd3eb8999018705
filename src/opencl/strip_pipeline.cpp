#include "opencl/strip_pipeline.hpp"

#include <algorithm>
#include <cstring>

#include "core/streaming_copy.hpp"
#include "gpuvis/core/error.hpp"
#include "gpuvis/core/parallel.hpp"

namespace gpuvis::opencl {

struct StripPipeline::Slot {
  cl_command_queue queue = nullptr;
  cl_event done = nullptr;  // the strip's download, while one is in flight
  PinnedHost in, out;
  Buffer d_in, d_out, scratch;
  int pending_y0 = 0, pending_rows = 0;

  ~Slot() {
    abandon();
    if (queue) api().ReleaseCommandQueue(queue);
  }
  // Lets the strip in flight, if any, finish and forgets its rows.
  void abandon() noexcept {
    if (queue) api().Finish(queue);
    if (done) api().ReleaseEvent(done);
    done = nullptr;
    pending_rows = 0;
  }
  // Waits for the strip in flight, if any; its rows are then in `out`.
  void wait() {
    if (!done) return;
    const cl_int status = api().WaitForEvents(1, &done);
    api().ReleaseEvent(done);
    done = nullptr;
    check(status, "copying a strip from the device");
  }
};

StripPipeline& StripPipeline::for_this_thread() {
  thread_local StripPipeline pipeline;
  return pipeline;
}

StripPipeline::StripPipeline() : slots_(std::make_unique<Slot[]>(kSlots)) {}
StripPipeline::~StripPipeline() = default;

void StripPipeline::run(const unsigned char* src, std::ptrdiff_t src_stride, unsigned char* dst, std::ptrdiff_t dst_stride,
                        std::size_t row_bytes, int height, int halo, int strip_rows, int slots, const std::function<int(int)>& map_row,
                        const std::function<void(const Strip&)>& compute) {
  require(strip_rows > 0 && slots >= 1 && slots <= kSlots, "OpenCL strip pipeline: no strip plan");
  // One pass over the CPU threads: the slot's finished strip out to dst (ordinary stores: the
  // caller reads it next) and this strip's rows into its staging (streaming stores: only the
  // device's copy reads them), as cuda::StripPipeline does.
  auto copy_rows = [&](Slot& s, int in_rows, int first) {
    const int out_rows = s.pending_rows;
    if (out_rows + in_rows == 0) return;
    unsigned char* staged = s.in.data();
    const unsigned char* finished = s.out.data();
    parallel_for(0, out_rows + in_rows, copy_task_rows(row_bytes), [&](std::ptrdiff_t a, std::ptrdiff_t b) {
      for (std::ptrdiff_t i = a; i < b; ++i) {
        if (i < out_rows) {
          std::memcpy(dst + (s.pending_y0 + i) * dst_stride, finished + static_cast<std::size_t>(i) * row_bytes, row_bytes);
        } else if (const int y = map_row(first + static_cast<int>(i) - out_rows); y >= 0) {
          copy_streaming(staged + static_cast<std::size_t>(i - out_rows) * row_bytes, src + y * src_stride, row_bytes);
        }
      }
    });
    s.pending_rows = 0;
  };
  try {
    int strips = 0;
    for (int y0 = 0; y0 < height; y0 += strip_rows, ++strips) {
      Slot& s = slots_[strips % slots];
      if (!s.queue) s.queue = Context::get().new_queue();
      s.wait();
      const int rows = std::min(strip_rows, height - y0), in_rows = rows + 2 * halo;
      const std::size_t in_bytes = static_cast<std::size_t>(strip_rows + 2 * halo) * row_bytes;
      const std::size_t out_bytes = static_cast<std::size_t>(strip_rows) * row_bytes;
      if (s.pending_rows == 0) s.out.reserve(out_bytes);  // growing drops what it held: only when empty
      s.in.reserve(in_bytes);
      s.d_in.reserve(in_bytes);
      s.d_out.reserve(out_bytes);
      copy_rows(s, in_rows, y0 - halo);
      check(api().EnqueueWriteBuffer(s.queue, s.d_in.get(), CL_FALSE, 0, static_cast<std::size_t>(in_rows) * row_bytes, s.in.data(), 0,
                                     nullptr, nullptr),
            "copying a strip to the device");
      compute(Strip{y0, rows, y0 - halo, in_rows, &s.d_in, &s.d_out, &s.scratch, s.queue});
      check(api().EnqueueReadBuffer(s.queue, s.d_out.get(), CL_FALSE, 0, static_cast<std::size_t>(rows) * row_bytes, s.out.data(), 0,
                                    nullptr, &s.done),
            "copying a strip from the device");
      check(api().Flush(s.queue), "starting a strip");  // on its way while the host stages the next
      s.pending_y0 = y0;
      s.pending_rows = rows;
    }
    for (int j = 0; j < slots; ++j) {
      Slot& s = slots_[(strips + j) % slots];
      s.wait();
      copy_rows(s, 0, 0);
    }
  } catch (...) {
    for (int j = 0; j < kSlots; ++j) slots_[j].abandon();  // nothing of this call may reach a later call's image
    throw;
  }
}

}  // namespace gpuvis::opencl

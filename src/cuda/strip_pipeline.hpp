#pragma once
// Runs a device filter over a host image in horizontal strips so that the work of neighbouring
// strips overlaps: while the GPU uploads, filters and downloads one strip on its stream, the host
// copies the next strip's rows into pinned staging and the finished strip's rows out of it. Three
// slots (stream, event, pinned and device buffers) rotate; the buffers are kept between calls and
// grow only, so a batch of same-sized images allocates once. Where the caller's image is already
// page-locked (cuda::PinnedImage, cudaMallocHost, cudaHostRegister) the strips move straight
// between it and the device, without the host copies.
//
// Each output row is computed from the same input rows as in one piece (the strip carries `halo`
// rows above and below), so results do not depend on the strip height.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "core/streaming_copy.hpp"
#include "cuda/check.hpp"
#include "cuda/memory.hpp"
#include "cuda/strip_plan.hpp"
#include "gpuvis/core/error.hpp"
#include "gpuvis/core/image.hpp"
#include "gpuvis/core/parallel.hpp"

namespace gpuvis::cuda {

template <class T>
class StripPipeline {
 public:
  // One strip as the filter sees it: output rows y0 .. y0 + out.height - 1, and the staged input
  // rows for global rows y0 - halo .. y0 + out.height + halo - 1 (mapped by the caller's row map;
  // rows it maps to -1 are left unset).
  struct Strip {
    int y0 = 0;
    DeviceView<const T> in;
    DeviceView<T> out;
    DeviceBuffer* scratch = nullptr;  // the slot's own, for the filter's intermediate buffers
    cudaStream_t stream = nullptr;
  };

  // The calling thread's pipeline (its buffers are reused by every filter of element type T).
  static StripPipeline& for_this_thread() {
    static thread_local std::unique_ptr<StripPipeline> pipeline;
    if (!pipeline) pipeline = std::make_unique<StripPipeline>();
    return *pipeline;
  }

  // compute(strip) enqueues the filter's kernels on strip.stream; map_row(global row) names the
  // source row staged for it, or -1. dst may be src's memory only if the filter reads no row of a
  // later strip after it is written, which the slots' overlap does not guarantee: callers pass
  // distinct images.
  template <class MapRow, class Compute>
  void run(HostView<const T> src, HostView<T> dst, int halo, const StripPlan& plan, MapRow map_row, Compute compute,
           const std::function<void(double)>& progress = {}) {
    require(plan.strip_rows > 0 && plan.slots >= 1 && plan.slots <= kSlots, "strip pipeline: no strip plan");
    const int w = src.width, h = src.height, c = src.channels;
    const bool src_pinned = is_pinned(src.data), dst_pinned = is_pinned(dst.data);
    try {
      // Short first and last strips only between page-locked images. H200 host, 2026-11-27, two
      // runs: page-locked 1080p 7×7 f32 282-292 → 269-273 µs, separable 300-314 → 280-283 µs, 4K
      // bilateral 997-1003 → 957-975 µs; from pageable images, whose extra strips each cost a pass
      // over the CPU threads, no faster (1080p 7×7 385-481 → 423-425 µs, bilateral 394-413 → 421-422).
      const std::vector<int> heights = strip_heights(h, plan, src_pinned && dst_pinned);
      const int strips = static_cast<int>(heights.size());
      for (int i = 0, y0 = 0; i < strips; y0 += heights[i++]) {
        Slot& s = slots_[i % plan.slots];
        wait(s);
        const int rows = heights[i], in_rows = rows + 2 * halo;
        s.d_in.ensure_at_least(w, plan.strip_rows + 2 * halo, c);
        s.d_out.ensure_at_least(w, plan.strip_rows, c);
        if (!src_pinned) s.in.ensure_at_least(w, plan.strip_rows + 2 * halo, c);
        DeviceView<T> d_in = s.d_in.view().crop(0, 0, w, in_rows);
        // The slot's finished strip goes out to dst and this strip's rows into its staging in one
        // pass over the CPU threads, since each pass wakes them all: a strip's fixed cost was
        // about 70 µs on a 16-thread Xeon host (4K in strips of 1 MiB: 3.7 against 1.5 ms).
        copy_host_rows(s, dst_pinned ? 0 : s.pending_rows, dst, src_pinned ? 0 : in_rows, src, y0 - halo, map_row);
        s.pending_rows = 0;
        upload_strip(s, src, d_in, y0 - halo, src_pinned, map_row);
        Strip strip{y0, d_in, s.d_out.view().crop(0, 0, w, rows), &s.scratch, s.stream};
        compute(strip);
        const DeviceView<const T> d_out = strip.out;
        if (dst_pinned) {
          download<T>(d_out, dst.crop(0, y0, w, rows), s.stream);
        } else {
          s.out.ensure_at_least(w, plan.strip_rows, c);
          download<T>(d_out, s.out.view().crop(0, 0, w, rows), s.stream);
        }
        s.done.record(s.stream);
        s.pending_y0 = y0;
        s.pending_rows = rows;
        if (progress) progress(static_cast<double>(y0) / h);
      }
      for (int j = 0; j < plan.slots; ++j) {
        Slot& s = slots_[(strips + j) % plan.slots];
        wait(s);
        copy_host_rows(s, dst_pinned ? 0 : s.pending_rows, dst, 0, src, 0, map_row);
        s.pending_rows = 0;
      }
      if (progress) progress(1.0);
    } catch (...) {
      for (Slot& s : slots_) {  // nothing of this call may reach a later call's image
        cudaStreamSynchronize(s.stream);
        s.pending_rows = 0;
      }
      throw;
    }
  }

 private:
  static constexpr int kSlots = 3;
  // Host-side copies of whole rows, split over the CPU threads in pieces of about 128 KiB: a strip
  // of 4 MiB then keeps 16 threads copying (one thread copies 5-10 GB/s, the host's memory more).
  static std::ptrdiff_t row_grain(std::size_t row_bytes) {
    return static_cast<std::ptrdiff_t>(std::max<std::size_t>(1, (std::size_t{128} << 10) / std::max<std::size_t>(1, row_bytes)));
  }

  // An image buffer that keeps its allocation while the requested shape fits in it.
  template <class Buffer>
  struct Grown {
    Buffer buffer;
    void ensure_at_least(int w, int h, int c) {
      const auto v = buffer.view();
      if (v.width == w && v.channels == c && v.height >= h) return;
      buffer.ensure(w, h, c);
    }
    auto view() { return buffer.view(); }
  };
  struct Slot {
    Stream stream;
    Event done;
    Grown<PinnedImage<T>> in, out;
    Grown<DeviceImage<T>> d_in, d_out;
    DeviceBuffer scratch;
    int pending_y0 = 0, pending_rows = 0;
  };

  // Waits for the slot's strip in flight, if any.
  static void wait(Slot& s) {
    if (s.pending_rows > 0) s.stream.synchronize();
  }

  // One pass over the CPU threads: the first `out_rows` rows of the slot's pinned output go to dst
  // at its pending strip's place, and global rows first .. first + in_rows - 1 (mapped by map_row;
  // rows mapped to -1 are left unset) into the slot's pinned staging rows.
  // The staging rows are written with streaming stores (core/streaming_copy.hpp): only the GPU's
  // DMA reads them, and an ordinary copy would first read every destination line into the cache.
  // The caller's output rows are written with ordinary stores, so they stay in the host's cache
  // for the caller, who reads them next. Measured on an H200 host (16 Xeon threads, 2026-11-27,
  // pageable 4K f32): streaming both ways 1.25-1.29 ms for the convolutions, ordinary stores for
  // the output 1.09-1.14 ms, ordinary stores both ways 1.34-1.50 ms (an H100 host earlier: 1.77-1.83
  // ms with ordinary stores both ways, 1.52-1.63 ms streaming both ways).
  // The pinned rows just read are then released from the reading cores' caches
  // (copy_and_release_source), since the slot's next download writes into them: downloads into
  // lines the cores still held ran at half speed. Same host, pageable, three runs each: 1080p 7×7
  // f32 474-500 → 401-433 µs, 1080p bilateral RGB 424-428 → 396-419 µs, 4K bilateral 1391-1414 →
  // 1179-1182 µs (one run 1892); the 4K 7×7, bound by the host's copies, 1100-1154 → 1158-1185 µs.
  template <class MapRow>
  void copy_host_rows(Slot& s, int out_rows, HostView<T> dst, int in_rows, HostView<const T> src, int first, MapRow& map_row) {
    if (out_rows + in_rows == 0) return;
    const std::size_t bytes = src.row_bytes();
    const HostView<const T> from = s.out.view();
    const HostView<T> staged = s.in.view();
    const int y0 = s.pending_y0;
    parallel_for(0, out_rows + in_rows, row_grain(bytes), [&](std::ptrdiff_t a, std::ptrdiff_t b) {
      for (std::ptrdiff_t i = a; i < b; ++i) {
        const int r = static_cast<int>(i);
        if (r < out_rows) {
          copy_and_release_source(dst.row(y0 + r), from.row(r), bytes);
        } else if (const int y = map_row(first + r - out_rows); y >= 0) {
          copy_streaming(staged.row(r - out_rows), src.row(y), bytes);
        }
      }
    });
  }

  // Uploads global rows first .. first + d_in.height - 1 into d_in: straight from a page-locked
  // source (one copy per run of consecutive source rows), else from the slot's staging rows.
  template <class MapRow>
  void upload_strip(Slot& s, HostView<const T> src, DeviceView<T> d_in, int first, bool src_pinned, MapRow& map_row) {
    const int n = d_in.height;
    if (!src_pinned) {
      upload<T>(HostView<const T>(s.in.view()).crop(0, 0, src.width, n), d_in, s.stream);
      return;
    }
    for (int r = 0; r < n;) {
      const int y = map_row(first + r);
      if (y < 0) {
        ++r;
        continue;
      }
      int run = 1;
      while (r + run < n && map_row(first + r + run) == y + run) ++run;
      upload<T>(src.crop(0, y, src.width, run), d_in.crop(0, r, d_in.width, run), s.stream);
      r += run;
    }
  }

  Slot slots_[kSlots];
};

}  // namespace gpuvis::cuda

#pragma once
// CUDA implementation of the threshold stage, for callers that keep frames on the device (the GPU
// tracker pipeline, benchmarks). Everything is asynchronous on the given stream.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "cuda/memory.hpp"
#include "gpuvis/threshold/threshold.hpp"

namespace gpuvis::threshold::cuda_impl {

// Intermediate device buffers, grown on demand and reused across frames.
struct Workspace {
  gpuvis::cuda::DeviceBuffer a, b;
  gpuvis::cuda::DeviceBuffer frame;                 // threshold_pinned's copy of the frame on the device
  gpuvis::cuda::DeviceBuffer handoff;               // tickets and tile flags of the one-launch mapped Bernsen
  gpuvis::cuda::DeviceImage<std::uint8_t> in, out;  // threshold_pinned's copies (methods other than full Bernsen)
  gpuvis::cuda::DeviceImage<std::uint8_t> sharpened;  // the frame after Params::sharpen
};

// dst = the frame sharpened by k (Params::sharpen's definition, src/threshold/sharpen_rules.hpp).
void sharpen(DeviceView<const std::uint8_t> src, DeviceView<std::uint8_t> dst, int k, cudaStream_t stream);

// dst = threshold(src), after sharpening into workspace.sharpened when params.sharpen > 0. src and
// dst are device views of equal size (any pitch). Parameters must be valid (validate()). Launch errors are thrown; execution errors surface at the next sync.
void threshold(DeviceView<const std::uint8_t> src, DeviceView<std::uint8_t> dst, const Params& params,
               Workspace& workspace, cudaStream_t stream);

// How threshold_pinned moves a frame across the bus.
enum class PinnedTransfer {
  automatic,    // the fastest measured choice for the method, window and frame size
  copies,       // upload, threshold, download
  write_mapped, // upload; the kernel writes the result straight into the pinned host image
  mapped,       // the kernels read the frame from and write the result to pinned host memory
                // (one launch for windows h <= 8, each pixel crossing the bus once)
};

// dst = threshold(src) for frames in pinned host memory (e.g. cuda::PinnedImage views): the result
// is in dst once `stream` is synchronised. Pinned memory is mapped into the device's address space,
// so full Bernsen's kernels can read the frame and write the result across the bus themselves,
// saving a copy operation and its latency (docs/benchmarks/threshold.md says when that pays); the
// other methods upload, run and download. Memory that is not pinned falls back to ordinary copies.
void threshold_pinned(HostView<const std::uint8_t> src, HostView<std::uint8_t> dst, const Params& params,
                      Workspace& workspace, cudaStream_t stream, PinnedTransfer transfer = PinnedTransfer::automatic);

// Frame equaliser on the device: frame = clamp(frame - background + level, 0, 255), in place.
void equalize(DeviceView<std::uint8_t> frame, DeviceView<const std::uint8_t> background, int level,
              cudaStream_t stream);

}  // namespace gpuvis::threshold::cuda_impl

#pragma once
// Entry points of the per-method CUDA implementations, used by thresholder_cuda.cu.
#include "cuda/check.hpp"
#include "threshold/cuda/threshold_cuda.hpp"

namespace gpuvis::threshold::cuda_impl {

// src_is_mapped_host: src points into mapped pinned host memory (read across the bus once; windows
// up to kMappedFusedMaxRadius go to bernsen_mapped_fused).
void bernsen(DeviceView<const std::uint8_t> src, DeviceView<std::uint8_t> dst, const BernsenParams& p,
             Workspace& ws, cudaStream_t stream, bool src_is_mapped_host = false);
// Full Bernsen in one launch for a frame in mapped pinned host memory (bernsen_mapped.cu): each
// pixel crosses the bus once. Windows h = 1..kMappedFusedMaxRadius.
constexpr int kMappedFusedMaxRadius = 8;
void bernsen_mapped_fused(DeviceView<const std::uint8_t> src, DeviceView<std::uint8_t> dst, const BernsenParams& p, Workspace& ws,
                          cudaStream_t stream);
void tiled_bernsen(DeviceView<const std::uint8_t> src, DeviceView<std::uint8_t> dst, const TiledParams& p,
                   Workspace& ws, cudaStream_t stream);
void bradley_roth(DeviceView<const std::uint8_t> src, DeviceView<std::uint8_t> dst, const BradleyRothParams& p,
                  Workspace& ws, cudaStream_t stream);

// Raises a kernel's dynamic shared-memory limit when it needs more than the default 48 KB.
template <class Kernel>
void set_max_dynamic_smem(Kernel kernel, std::size_t bytes) {
  if (bytes > 48 * 1024)
    GPUVIS_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
}

}  // namespace gpuvis::threshold::cuda_impl

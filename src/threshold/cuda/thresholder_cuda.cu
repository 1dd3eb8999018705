// The CUDA Thresholder: host frame -> pinned staging -> threshold_pinned (mapped or copied) -> host.
#include <cstring>

#include "cuda/memory.hpp"
#include "gpuvis/cuda/device_memory.hpp"
#include "gpuvis/threshold/device.hpp"
#include "threshold/cuda/kernels.cuh"
#include "threshold/rules.hpp"
#include "threshold/sharpen_rules.hpp"
#include "threshold/cuda_entry.hpp"

namespace gpuvis::threshold {
namespace cuda_impl {

namespace {
__global__ void sharpen_kernel(DeviceView<const std::uint8_t> src, DeviceView<std::uint8_t> dst, int k) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= src.width || y >= src.height) return;
  dst(x, y) = detail::sharpened_at(src, x, y, k);
}
}  // namespace

void sharpen(DeviceView<const std::uint8_t> src, DeviceView<std::uint8_t> dst, int k, cudaStream_t stream) {
  require(same_shape(src, dst), "sharpen: source and destination differ in size");
  sharpen_kernel<<<dim3((src.width + 63) / 64, (src.height + 3) / 4), dim3(64, 4), 0, stream>>>(src, dst, k);
  GPUVIS_CUDA_CHECK_LAUNCH();
}

void threshold(DeviceView<const std::uint8_t> src, DeviceView<std::uint8_t> dst, const Params& p, Workspace& ws,
               cudaStream_t stream) {
  require(src.channels == 1 && same_shape(src, dst), "threshold: source and destination must be one-channel images of equal size");
  check_image_shape(src.width, src.height, 1);
  if (p.sharpen > 0) {
    ws.sharpened.ensure(src.width, src.height);
    sharpen(src, ws.sharpened.view(), p.sharpen, stream);
    src = ws.sharpened.view();
  }
  switch (p.method) {
    case Method::bernsen: return bernsen(src, dst, p.bernsen, ws, stream);
    case Method::tiled: return tiled_bernsen(src, dst, p.tiled, ws, stream);
    case Method::bradley_roth: return bradley_roth(src, dst, p.bradley_roth, ws, stream);
  }
}

void threshold_pinned(HostView<const std::uint8_t> src, HostView<std::uint8_t> dst, const Params& p, Workspace& ws,
                      cudaStream_t stream, PinnedTransfer transfer) {
  require(src.channels == 1 && same_shape(src, dst), "threshold: source and destination must be one-channel images of equal size");
  check_image_shape(src.width, src.height, 1);
  const std::uint8_t* d_src = cuda::device_address(src.data);
  std::uint8_t* d_dst = cuda::device_address(dst.data);
  if (transfer == PinnedTransfer::automatic) {
    // Measured on an H200 (docs/benchmarks/threshold.md): windows up to kMappedFusedMaxRadius run
    // in one launch that reads each pixel across the bus once and writes the result back as tiles
    // finish, the fastest way at every size (640x480 h=6 ~26 us, 4K ~217 us against ~335 us with
    // an upload); larger windows upload the frame and write the result from the decision kernel,
    // which beats a separate download at every size.
    const bool one_launch = p.bernsen.half_window <= kMappedFusedMaxRadius;
    transfer = p.method != Method::bernsen ? PinnedTransfer::copies : one_launch ? PinnedTransfer::mapped : PinnedTransfer::write_mapped;
  }
  // Sharpening needs the whole frame on the device first: the copies path, where threshold() does it.
  if (p.method != Method::bernsen || p.sharpen > 0 || !d_dst || (transfer == PinnedTransfer::mapped && !d_src))
    transfer = PinnedTransfer::copies;
  const DeviceView<std::uint8_t> mapped_dst{d_dst, dst.width, dst.height, 1, dst.stride};
  if (transfer == PinnedTransfer::mapped) {
    bernsen(DeviceView<const std::uint8_t>{d_src, src.width, src.height, 1, src.stride}, mapped_dst, p.bernsen, ws, stream, true);
    return;
  }
  if (transfer == PinnedTransfer::write_mapped) {
    // The device copy keeps the host image's row pitch, so the upload is one linear copy.
    const std::size_t bytes = static_cast<std::size_t>(src.stride) * (src.height - 1) + static_cast<std::size_t>(src.width);
    ws.frame.reserve(bytes);
    GPUVIS_CUDA_CHECK(cudaMemcpyAsync(ws.frame.as<std::uint8_t>(), src.data, bytes, cudaMemcpyHostToDevice, stream));
    bernsen(DeviceView<const std::uint8_t>{ws.frame.as<std::uint8_t>(), src.width, src.height, 1, src.stride}, mapped_dst, p.bernsen, ws,
            stream);
    return;
  }
  ws.in.ensure(src.width, src.height);
  cuda::upload<std::uint8_t>(src, ws.in.view(), stream);
  ws.out.ensure(src.width, src.height);
  threshold(ws.in.view(), ws.out.view(), p, ws, stream);
  cuda::download<std::uint8_t>(ws.out.view(), dst, stream);
}

namespace {
__global__ void equalize_kernel(DeviceView<std::uint8_t> frame, DeviceView<const std::uint8_t> bg, int level) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= frame.width || y >= frame.height) return;
  frame(x, y) = gpuvis_equalize_rule(frame(x, y), bg(x, y), level);
}
}  // namespace

void equalize(DeviceView<std::uint8_t> frame, DeviceView<const std::uint8_t> background, int level, cudaStream_t stream) {
  require(same_shape(frame, background), "equalize: frame and background differ in size");
  equalize_kernel<<<dim3((frame.width + 63) / 64, (frame.height + 3) / 4), dim3(64, 4), 0, stream>>>(frame, background, level);
  GPUVIS_CUDA_CHECK_LAUNCH();
}

}  // namespace cuda_impl

namespace {

class CudaThresholder final : public Thresholder {
 public:
  explicit CudaThresholder(const Params& p) : params_(p) {}
  Backend backend() const override { return Backend::cuda; }
  const Params& params() const override { return params_; }

  void apply(HostView<const std::uint8_t> src, HostView<std::uint8_t> dst) override {
    require(src.channels == 1 && same_shape(src, dst), "threshold: source and destination must be one-channel images of equal size");
    check_image_shape(src.width, src.height, 1);
    staging_in_.ensure(src.width, src.height);
    staging_out_.ensure(src.width, src.height);
    copy<std::uint8_t>(src, staging_in_.view());
    // The equaliser on the pinned copy, before it goes to the device: one pass over bytes the copy
    // has just brought into the cache (the tracker's CUDA pipeline equalises on the device, where
    // its frame already is).
    if (const Equalizer* e = active_equalizer()) e->apply(staging_in_.view());
    cuda_impl::threshold_pinned(staging_in_.view(), staging_out_.view(), params_, ws_, stream_);
    stream_.synchronize();
    copy<std::uint8_t>(staging_out_.view(), dst);
  }

 private:
  Params params_;
  cuda::Stream stream_;
  cuda::PinnedImage<std::uint8_t> staging_in_, staging_out_;
  cuda_impl::Workspace ws_;
};

}  // namespace

void threshold_on_device(DeviceView<const std::uint8_t> src, DeviceView<std::uint8_t> dst, const Params& params,
                         cuda::StreamHandle stream) {
  validate(params);
  if (!cuda::is_device_pointer(src.data) || !cuda::is_device_pointer(dst.data))
    fail(ErrorCode::invalid_argument, "threshold: the source and destination must be device memory of the current CUDA device");
  require(src.channels == 1 && same_shape(src, dst), "threshold: source and destination must be grey images of one size");
  cuda_impl::Workspace workspace;
  cuda_impl::threshold(src, dst, params, workspace, stream);
  cuda::synchronize(stream);
}

std::unique_ptr<Thresholder> make_cuda_thresholder(const Params& params) {
  return std::make_unique<CudaThresholder>(params);
}

}  // namespace gpuvis::threshold

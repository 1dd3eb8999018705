// Bilateral filter on the GPU: one thread per pixel over a shared-memory tile with the border
// applied on load; the per-pixel computation is the CPU's (../bilateral_rules.hpp).
#include <memory>

#include "../bilateral_rules.hpp"
#include "cuda/check.hpp"
#include "cuda/memory.hpp"
#include "filters/cuda/filters_cuda.hpp"
#include "filters/filter_backends.hpp"

namespace gpuvis::filters {
namespace {

constexpr int kBx = 32, kBy = 8;

template <class T, int C>
__global__ void bilateral_kernel(DeviceView<const T> src, DeviceView<T> dst, BilateralParams p, float space_coeff) {
  extern __shared__ float tile[];
  const int r = p.radius, tw = kBx + 2 * r, th = kBy + 2 * r;
  const int x0 = blockIdx.x * kBx, y0 = blockIdx.y * kBy;
  for (int ty = threadIdx.y; ty < th; ty += blockDim.y)
    for (int tx = threadIdx.x; tx < tw; tx += blockDim.x) {
      const int xx = border_index(x0 - r + tx, src.width, p.border.mode);
      const int yy = border_index(y0 - r + ty, src.height, p.border.mode);
#pragma unroll
      for (int c = 0; c < C; ++c)
        tile[(ty * tw + tx) * C + c] = (xx < 0 || yy < 0) ? p.border.value : static_cast<float>(src(xx, yy, c));
    }
  __syncthreads();
  const int x = x0 + threadIdx.x, y = y0 + threadIdx.y;
  if (x >= src.width || y >= src.height) return;
  auto fetch = [&](int dx, int dy, int c) { return tile[((threadIdx.y + r + dy) * tw + threadIdx.x + r + dx) * C + c]; };
  float o[C];
  auto space = [&](int dx, int dy) { return detail::bl_exp(static_cast<float>(dx * dx + dy * dy) * space_coeff); };
  detail::bilateral_pixel<C>(fetch, r, space, detail::ExpWeight{}, p.sigma_range, p.adaptive, p.mode, p.distance, o);
#pragma unroll
  for (int c = 0; c < C; ++c) dst(x, y, c) = detail::saturate<T>(o[c]);
}

template <class T, int C>
void launch(DeviceView<const T> src, DeviceView<T> dst, const BilateralParams& p, cudaStream_t stream) {
  const std::size_t smem = sizeof(float) * C * (kBx + 2 * p.radius) * (kBy + 2 * p.radius);
  if (smem > 48 * 1024)
    GPUVIS_CUDA_CHECK(cudaFuncSetAttribute(bilateral_kernel<T, C>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  bilateral_kernel<T, C><<<dim3((src.width + kBx - 1) / kBx, (src.height + kBy - 1) / kBy), dim3(kBx, kBy), smem, stream>>>(
      src, dst, p, -0.5f / (p.sigma_space * p.sigma_space));
  GPUVIS_CUDA_CHECK_LAUNCH();
}

}  // namespace

namespace cuda_impl {
template <class T>
void bilateral(DeviceView<const T> src, DeviceView<T> dst, const BilateralParams& p, cudaStream_t stream) {
  validate(p);
  detail::check_images(src, dst);
  switch (src.channels) {
    case 1: return launch<T, 1>(src, dst, p, stream);
    case 3: return launch<T, 3>(src, dst, p, stream);
    default: return launch<T, 4>(src, dst, p, stream);
  }
}
template void bilateral<std::uint8_t>(DeviceView<const std::uint8_t>, DeviceView<std::uint8_t>, const BilateralParams&, cudaStream_t);
template void bilateral<std::uint16_t>(DeviceView<const std::uint16_t>, DeviceView<std::uint16_t>, const BilateralParams&, cudaStream_t);
template void bilateral<float>(DeviceView<const float>, DeviceView<float>, const BilateralParams&, cudaStream_t);
}  // namespace cuda_impl

template <class T>
void bilateral_cuda(HostView<const T> src, HostView<T> dst, const BilateralParams& p) {
  validate(p);
  detail::check_images(src, dst);
  const int w = src.width, h = src.height, c = src.channels;
  struct Buffers {  // kept per thread, reallocated only when the shape changes
    cuda::Stream stream;
    cuda::PinnedImage<T> pin;
    cuda::DeviceImage<T> d_src, d_dst;
  };
  static thread_local std::unique_ptr<Buffers> cache;
  if (!cache) cache = std::make_unique<Buffers>();
  cuda::Stream& stream = cache->stream;
  auto& pin = cache->pin;
  auto& d_src = cache->d_src;
  auto& d_dst = cache->d_dst;
  pin.ensure(w, h, c);
  d_src.ensure(w, h, c);
  d_dst.ensure(w, h, c);
  copy<T>(src, pin.view());
  cuda::upload<T>(pin.view(), d_src.view(), stream);
  cuda_impl::bilateral<T>(d_src.view(), d_dst.view(), p, stream);
  cuda::download<T>(d_dst.view(), pin.view(), stream);
  stream.synchronize();
  copy<T>(pin.view(), dst);
}

template void bilateral_cuda<std::uint8_t>(HostView<const std::uint8_t>, HostView<std::uint8_t>, const BilateralParams&);
template void bilateral_cuda<std::uint16_t>(HostView<const std::uint16_t>, HostView<std::uint16_t>, const BilateralParams&);
template void bilateral_cuda<float>(HostView<const float>, HostView<float>, const BilateralParams&);

}  // namespace gpuvis::filters

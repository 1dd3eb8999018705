// Bilateral filter on the GPU: one thread per pixel over a shared-memory tile with the border
// applied on load; the per-pixel computation is the CPU's (../bilateral_rules.hpp), bit for bit.
#include "filters/bilateral_rules.hpp"
#include "cuda/check.hpp"
#include "cuda/memory.hpp"
#include "cuda/strip_pipeline.hpp"
#include "filters/cuda/filters_cuda.hpp"
#include "filters/cuda/strip.cuh"
#include "filters/filter_backends.hpp"
#include "gpuvis/cuda/runtime.hpp"

namespace gpuvis::filters {
namespace {

constexpr int kBx = 32, kBy = 8;

// kTiled: the block's window of the source (its pixels and `radius` more on each side) is loaded
// into shared memory first; otherwise, for windows too large for it (3 or 4 channels at radii
// above about 50), every tap reads the source through the cache.
template <class T, int C, bool kTiled>
__global__ void bilateral_kernel(Strip<T> s, T* out, std::size_t out_pitch, int out_rows, BilateralParams p, float space_coeff) {
  extern __shared__ float tile[];
  const int r = p.radius, tw = kBx + 2 * r, th = kBy + 2 * r;
  const int x0 = blockIdx.x * kBx, ly0 = blockIdx.y * kBy;  // ly: the output row within the strip
  const int gy0 = s.y0 + ly0;
  // The spatial weight depends only on dx² + dy² <= r², so the block computes its r² + 1 values
  // once, after the tile if there is one, where each thread computed one per tap (the CPU's table
  // holds the same weight_exp values). With one sum of weights for all channels in colour mode
  // (bilateral_rules.hpp), H200, u8 RGB r = 3, 2026-11-27: 1080p 222 → 180 µs, 4K 862 → 699 µs.
  // Nsight Compute then finds the kernel bound by instruction issue (90 % of issue slots busy).
  float* space_table = tile + (kTiled ? C * tw * th : 0);
  for (int i = threadIdx.y * blockDim.x + threadIdx.x; i <= r * r; i += blockDim.x * blockDim.y)
    space_table[i] = detail::weight_exp(static_cast<float>(i) * space_coeff);
  if constexpr (kTiled)
    for (int ty = threadIdx.y; ty < th; ty += blockDim.y)
      for (int tx = threadIdx.x; tx < tw; tx += blockDim.x)
#pragma unroll
        for (int c = 0; c < C; ++c) tile[(ty * tw + tx) * C + c] = strip_value(s, x0 - r + tx, gy0 - r + ty, c, p.border);
  __syncthreads();
  const int x = x0 + threadIdx.x, ly = ly0 + threadIdx.y;
  if (x >= s.width || ly >= out_rows) return;
  auto fetch = [&](int dx, int dy, int c) {
    if constexpr (kTiled) return tile[((threadIdx.y + r + dy) * tw + threadIdx.x + r + dx) * C + c];
    else return strip_value(s, x + dx, gy0 + threadIdx.y + dy, c, p.border);
  };
  float o[C];
  auto space = [&](int dx, int dy) { return space_table[dx * dx + dy * dy]; };
  detail::bilateral_pixel<C>(fetch, r, space, detail::ExpWeight{}, p.sigma_range, p.adaptive, p.mode, p.distance, o);
  T* row = out + static_cast<std::size_t>(ly) * out_pitch + static_cast<std::size_t>(x) * C;
#pragma unroll
  for (int c = 0; c < C; ++c) row[c] = detail::saturate<T>(o[c]);
}

template <class T, int C, bool kTiled>
void launch_kernel(const Strip<T>& s, T* out, std::size_t out_pitch, int out_rows, const BilateralParams& p, std::size_t smem, cudaStream_t stream) {
  if (smem > 48 * 1024)
    GPUVIS_CUDA_CHECK(cudaFuncSetAttribute(bilateral_kernel<T, C, kTiled>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  bilateral_kernel<T, C, kTiled><<<dim3((s.width + kBx - 1) / kBx, (out_rows + kBy - 1) / kBy), dim3(kBx, kBy), smem, stream>>>(
      s, out, out_pitch, out_rows, p, -0.5f / (p.sigma_space * p.sigma_space));
  GPUVIS_CUDA_CHECK_LAUNCH();
}

template <class T, int C>
void launch(const Strip<T>& s, T* out, std::size_t out_pitch, int out_rows, const BilateralParams& p, cudaStream_t stream) {
  const std::size_t table = sizeof(float) * (static_cast<std::size_t>(p.radius) * p.radius + 1);
  const std::size_t tiled = table + sizeof(float) * C * (kBx + 2 * p.radius) * (kBy + 2 * p.radius);
  if (tiled <= static_cast<std::size_t>(cuda::current_device_shared_memory_per_block())) launch_kernel<T, C, true>(s, out, out_pitch, out_rows, p, tiled, stream);
  else launch_kernel<T, C, false>(s, out, out_pitch, out_rows, p, table, stream);
}

template <class T>
void launch_channels(const Strip<T>& s, T* out, std::size_t out_pitch, int out_rows, const BilateralParams& p, cudaStream_t stream) {
  switch (s.channels) {
    case 1: return launch<T, 1>(s, out, out_pitch, out_rows, p, stream);
    case 3: return launch<T, 3>(s, out, out_pitch, out_rows, p, stream);
    default: return launch<T, 4>(s, out, out_pitch, out_rows, p, stream);
  }
}

}  // namespace

namespace cuda_impl {
template <class T>
void bilateral(DeviceView<const T> src, DeviceView<T> dst, const BilateralParams& p, cudaStream_t stream) {
  validate(p);
  detail::check_images(src, dst);
  const Strip<T> s{src.data, static_cast<std::size_t>(src.stride) / sizeof(T), src.width, src.channels, src.height, 0, p.radius, src.height, true};
  launch_channels<T>(s, dst.data, static_cast<std::size_t>(dst.stride) / sizeof(T), dst.height, p, stream);
}
template void bilateral<std::uint8_t>(DeviceView<const std::uint8_t>, DeviceView<std::uint8_t>, const BilateralParams&, cudaStream_t);
template void bilateral<std::uint16_t>(DeviceView<const std::uint16_t>, DeviceView<std::uint16_t>, const BilateralParams&, cudaStream_t);
template void bilateral<float>(DeviceView<const float>, DeviceView<float>, const BilateralParams&, cudaStream_t);
}  // namespace cuda_impl

// The host path: strips overlapped through cuda::StripPipeline (transfers and kernels of
// neighbouring strips at once), each strip staged with `radius` rows above and below.
template <class T>
void bilateral_cuda(HostView<const T> src, HostView<T> dst, const BilateralParams& p) {
  validate(p);
  detail::check_images(src, dst);
  const int w = src.width, h = src.height, c = src.channels, r = p.radius;
  const std::size_t row = sizeof(T) * static_cast<std::size_t>(w) * c;
  // Strips of 1 MiB between page-locked images, 2 MiB from and into pageable ones (the pipeline's
  // default is 4 MiB). This kernel takes about as long as the copies, so more strips overlap more
  // of them:
  //  - page-locked, H100: u8 RGB went from 369 to 307 µs at 1080p and from 1090 to 1010 µs at 4K
  //    (0.5 MiB: 352 and 1065 µs);
  //  - pageable, where each strip also costs a pass over the CPU threads, H200 host, 2026-11-27:
  //    1080p 686 µs with 4 MiB, 440 with 2 MiB, 468 with 1 MiB; 4K 1424-1524, 1416, 1594 µs.
  // The convolutions, whose kernels are short beside their copies, keep 4 MiB (4K page-locked
  // with 1 MiB: 880 → 1100 µs; 4K pageable with 2 MiB: 1300 → 1535 µs).
  const bool page_locked = cuda::is_pinned(src.data) && cuda::is_pinned(dst.data);
  const cuda::StripPlan plan = cuda::plan_strips(row, row, h, r, 0, 0, std::size_t{page_locked ? 1u : 2u} << 20);
  auto map_row = [&](int y) { return border_index(y, h, p.border.mode); };
  cuda::StripPipeline<T>::for_this_thread().run(src, dst, r, plan, map_row, [&](const typename cuda::StripPipeline<T>::Strip& strip) {
    launch_channels<T>(staged_strip(strip.in, strip.y0, r, h), strip.out.data, static_cast<std::size_t>(strip.out.stride) / sizeof(T),
                       strip.out.height, p, strip.stream);
  });
}

template void bilateral_cuda<std::uint8_t>(HostView<const std::uint8_t>, HostView<std::uint8_t>, const BilateralParams&);
template void bilateral_cuda<std::uint16_t>(HostView<const std::uint16_t>, HostView<std::uint16_t>, const BilateralParams&);
template void bilateral_cuda<float>(HostView<const float>, HostView<float>, const BilateralParams&);

}  // namespace gpuvis::filters

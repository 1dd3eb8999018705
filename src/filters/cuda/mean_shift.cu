// Mean shift filtering on CUDA: one thread per pixel climbs with the CPU's rules
// (../mean_shift_rules.hpp) over the features the host computed; compiled without FMA
// contraction (CMakeLists), so the Epanechnikov kernel's modes are the CPU's bit for bit.
#include <cuda_runtime.h>

#include <vector>

#include "../mean_shift_common.hpp"
#include "../mean_shift_rules.hpp"
#include "cuda/check.hpp"
#include "cuda/memory.hpp"
#include "gpuvis/filters/mean_shift.hpp"
#include "filters/filter_backends.hpp"

namespace gpuvis::filters {
namespace {

// One thread per voxel; the grid's y covers the stacked slices' rows (voxel (x, y, z) is pixel
// (x, z * height + y)).
template <int C>
__global__ void climb_kernel(const float* __restrict__ feature, float* __restrict__ modes, mean_shift_rules::Grid g, bool gaussian,
                             float eps, int max_iter) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= g.width || row >= g.height * g.depth) return;
  const long long w = g.width, h = g.height;
  const auto value = [&](int qx, int qy, int qz, int c) { return __ldg(&feature[((qz * h + qy) * w + qx) * C + c]); };
  const long long at = (static_cast<long long>(row) * w + x) * C;
  mean_shift_rules::climb<C>(x, row % g.height, row / g.height, feature + at, g, gaussian, eps, max_iter, value, modes + at);
}

}  // namespace

void mean_shift_filter_cuda(HostView<const std::uint8_t> src, HostView<std::uint8_t> dst, const MeanShiftParams& p, int depth) {
  mean_shift_detail::check(src, dst, p, depth);
  const mean_shift_rules::Grid g = mean_shift_detail::grid(src, p, depth);
  const std::vector<float> feature = mean_shift_detail::features(src, p);
  const std::size_t bytes = feature.size() * sizeof(float);
  cuda::DeviceBuffer d_feature(bytes), d_modes(bytes);
  cuda::Stream stream;
  GPUVIS_CUDA_CHECK(cudaMemcpyAsync(d_feature.get(), feature.data(), bytes, cudaMemcpyHostToDevice, stream));
  const dim3 block(16, 8), grid((src.width + 15) / 16, (src.height + 7) / 8);
  const bool gaussian = p.kernel == MeanShiftKernel::gaussian;
  if (src.channels == 1)
    climb_kernel<1><<<grid, block, 0, stream>>>(d_feature.as<float>(), d_modes.as<float>(), g, gaussian, p.eps, p.max_iter);
  else
    climb_kernel<3><<<grid, block, 0, stream>>>(d_feature.as<float>(), d_modes.as<float>(), g, gaussian, p.eps, p.max_iter);
  GPUVIS_CUDA_CHECK_LAUNCH();
  std::vector<float> modes(feature.size());
  GPUVIS_CUDA_CHECK(cudaMemcpyAsync(modes.data(), d_modes.get(), bytes, cudaMemcpyDeviceToHost, stream));
  stream.synchronize();
  mean_shift_detail::write_modes(modes, dst, p);
}

}  // namespace gpuvis::filters

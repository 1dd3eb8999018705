// Mean shift filtering on CUDA, with the CPU's rules (../mean_shift_rules.hpp): the samples are
// converted to features on the device and the climbs run there in rounds of a few steps. A warp runs its 32 climbs in
// lockstep, so one slow climb would hold 31 finished threads; after each round the unfinished
// climbs are gathered into a queue (the clMeanShift study's process queue) and only they run on.
// Compiled without FMA contraction (CMakeLists), so the modes are the CPU's bit for bit.
#include <cuda_runtime.h>

#include <cub/device/device_select.cuh>

#include <algorithm>
#include <string>
#include <vector>

#include "filters/mean_shift_common.hpp"
#include "filters/mean_shift_rules.hpp"
#include "cuda/check.hpp"
#include "cuda/memory.hpp"
#include "filters/cuda/mean_shift_cuda.hpp"
#include "filters/filter_backends.hpp"
#include "gpuvis/filters/device.hpp"

namespace gpuvis::filters {
namespace {

namespace rules = mean_shift_rules;
using mean_shift_detail::Job;
using mean_shift_detail::Tuning;

using rules::load_features;

template <int C, class T>
__global__ void features_kernel(DeviceView<const T> src, float* __restrict__ f, rules::Conversion k, long long rows) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= src.width) return;
  for (long long row = static_cast<long long>(blockIdx.y) * blockDim.y + threadIdx.y; row < rows; row += static_cast<long long>(gridDim.y) * blockDim.y)
    rules::to_features<C>(src.row(static_cast<int>(row)) + static_cast<long long>(x) * C, k, f + (row * src.width + x) * rules::lanes<C>);
}

// The climbs' state between rounds, per voxel.
template <int C>
struct ClimbState {
  float4* position;  // x, y, z, t relative to the voxel the climb started from
  float* range;      // lanes<C> per voxel
  int* steps;
};

// One round: climbs `queue_in[0..n)` (every voxel 0..n when queue_in is null: the first round)
// for up to `round_steps` more steps (0: to the end). Ended climbs write their mode; the others
// save their state and either append themselves to queue_out (atomically, in no set order) or,
// with `keep` given, set keep[k] for a stream compaction that keeps voxel order, so that a warp's
// climbs stay neighbours in the image and share the caches.
template <int C, bool Gaussian, int Dims>
__global__ void climb_kernel(const float* __restrict__ f, rules::Space g, float eps,
                             int max_iter, int round_steps, const int* __restrict__ queue_in, int n, ClimbState<C> state,
                             int* __restrict__ queue_out, int* __restrict__ n_out, unsigned char* __restrict__ keep,
                             float* __restrict__ modes) {
  constexpr int L = rules::lanes<C>;
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  bool more = false;
  int idx = 0;
  if (k < n) {
    idx = queue_in ? queue_in[k] : k;
    rules::Point<C> p;
    if (queue_in) {
      const float zeros[4] = {0, 0, 0, 0};
      p = rules::start<C>(idx, g, zeros);  // the climb's origin; its relative position comes from the state
      const float4 pos = state.position[idx];
      p.x = pos.x, p.y = pos.y, p.z = pos.z, p.t = pos.w;
      for (int c = 0; c < C; ++c) p.r[c] = state.range[static_cast<long long>(idx) * L + c];
      p.steps = state.steps[idx];
    } else {
      float v[L];
      load_features<C>(f, idx, v);
      p = rules::start<C>(idx, g, v);
    }
    const int limit = round_steps > 0 && max_iter - p.steps > round_steps ? p.steps + round_steps : max_iter;
    bool ended = false;
    while (p.steps < limit) {
      if (rules::step<C, Gaussian, Dims>(p, g, eps, f)) {
        ended = true;
        break;
      }
    }
    if (ended || p.steps >= max_iter) {
      for (int c = 0; c < C; ++c) modes[static_cast<long long>(idx) * L + c] = p.r[c];
    } else {
      more = true;
      state.position[idx] = make_float4(p.x, p.y, p.z, p.t);
      for (int c = 0; c < C; ++c) state.range[static_cast<long long>(idx) * L + c] = p.r[c];
      state.steps[idx] = p.steps;
    }
  }
  if (keep) {
    if (k < n) keep[k] = more ? 1 : 0;
    return;
  }
  // One atomic per warp for its unfinished climbs.
  const unsigned mask = __ballot_sync(0xffffffffu, more);
  const int lane = threadIdx.x & 31;
  int base = 0;
  if (lane == 0 && mask) base = atomicAdd(n_out, __popc(mask));
  base = __shfl_sync(0xffffffffu, base, 0);
  if (more) queue_out[base + __popc(mask & ((1u << lane) - 1u))] = idx;
}

__global__ void identity_kernel(int* __restrict__ out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i;
}

template <int C, class T>
__global__ void samples_kernel(const float* __restrict__ modes, DeviceView<T> dst, rules::Conversion k, long long rows) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= dst.width) return;
  for (long long row = static_cast<long long>(blockIdx.y) * blockDim.y + threadIdx.y; row < rows; row += static_cast<long long>(gridDim.y) * blockDim.y)
    rules::to_samples<C>(modes + (row * dst.width + x) * rules::lanes<C>, k, dst.row(static_cast<int>(row)) + static_cast<long long>(x) * C);
}

std::string gib(double bytes) { return std::to_string(bytes / (1u << 30)).substr(0, 4) + " GiB"; }

template <int C, class T>
void run(DeviceView<const T> src, DeviceView<T> dst, const Job& job, const MeanShiftParams& params, std::vector<float>* modes_out,
         const Tuning& tuning, cudaStream_t stream) {
  constexpr int L = rules::lanes<C>;
  const rules::Space& g = job.space;
  const long long n = job.voxels(), rows = job.rows();
  require(n < (1ll << 31), "mean shift on CUDA takes at most 2^31 voxels");
  const std::size_t feature_bytes = static_cast<std::size_t>(n) * L * sizeof(float);
  const std::size_t state_bytes = static_cast<std::size_t>(n) * (sizeof(float4) + L * sizeof(float) + 3 * sizeof(int));
  const std::size_t need = 2 * feature_bytes + state_bytes;
  std::size_t free_bytes = 0, total_bytes = 0;
  GPUVIS_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (need > free_bytes)
    fail(ErrorCode::invalid_argument, "mean shift of " + std::to_string(n) + " voxels needs " + gib(static_cast<double>(need)) +
                                       " of GPU memory and " + gib(static_cast<double>(free_bytes)) +
                                       " is free: use --backend cpu or a smaller volume");
  cuda::DeviceBuffer d_feature(feature_bytes), d_modes(feature_bytes);
  cuda::DeviceBuffer d_pos(static_cast<std::size_t>(n) * sizeof(float4)), d_range(feature_bytes);
  cuda::DeviceBuffer d_steps(static_cast<std::size_t>(n) * sizeof(int)), d_queue_a(static_cast<std::size_t>(n) * sizeof(int)),
      d_queue_b(static_cast<std::size_t>(n) * sizeof(int)), d_count(2 * sizeof(int));
  cuda::PinnedBuffer h_count(sizeof(int));
  cuda::DeviceBuffer d_keep(tuning.ordered ? static_cast<std::size_t>(n) : 1), d_select_temp;
  std::size_t select_bytes = 0;
  if (tuning.ordered) {
    GPUVIS_CUDA_CHECK(cub::DeviceSelect::Flagged(nullptr, select_bytes, static_cast<const int*>(nullptr), static_cast<const unsigned char*>(nullptr),
                                                 static_cast<int*>(nullptr), static_cast<int*>(nullptr), static_cast<int>(n), stream));
    d_select_temp.reserve(select_bytes);
  }

  // Rows beyond the grid's 65535 blocks in y are reached by striding.
  const dim3 block2(32, 8), grid2((g.width + 31) / 32, static_cast<unsigned>(std::min<long long>((rows + 7) / 8, 65535)));
  features_kernel<C, T><<<grid2, block2, 0, stream>>>(src, d_feature.as<float>(), job.conversion, rows);
  GPUVIS_CUDA_CHECK_LAUNCH();
  const ClimbState<C> state{d_pos.as<float4>(), d_range.as<float>(), d_steps.as<int>()};
  int* queue_in = nullptr;
  int* queue_out = d_queue_a.as<int>();
  int* spare = d_queue_b.as<int>();
  long long active = n;
  while (active > 0) {
    GPUVIS_CUDA_CHECK(cudaMemsetAsync(d_count.get(), 0, sizeof(int), stream));
    rules::with_variant(job.gaussian, g, [&](auto gaussian, auto dims) {
      constexpr bool G = decltype(gaussian)::value;
      constexpr int D = decltype(dims)::value;
      climb_kernel<C, G, D><<<static_cast<unsigned>((active + 127) / 128), 128, 0, stream>>>(
          d_feature.as<float>(), g, job.eps, job.max_iter, tuning.round_steps, queue_in, static_cast<int>(active), state, queue_out,
          d_count.as<int>(), tuning.ordered ? d_keep.as<unsigned char>() : nullptr, d_modes.as<float>());
    });
    GPUVIS_CUDA_CHECK_LAUNCH();
    if (tuning.ordered) {
      if (!queue_in) identity_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(spare, static_cast<int>(n));
      GPUVIS_CUDA_CHECK(cub::DeviceSelect::Flagged(d_select_temp.get(), select_bytes, queue_in ? queue_in : spare, d_keep.as<unsigned char>(),
                                                   queue_out, d_count.as<int>(), static_cast<int>(active), stream));
    }
    GPUVIS_CUDA_CHECK(cudaMemcpyAsync(h_count.get(), d_count.get(), sizeof(int), cudaMemcpyDeviceToHost, stream));
    GPUVIS_CUDA_CHECK(cudaStreamSynchronize(stream));
    active = *h_count.as<int>();
    if (params.progress) params.progress(static_cast<double>(n - active) / static_cast<double>(n));
    // The queue just filled is read next; the one just read is written next.
    int* next_out = queue_in ? queue_in : spare;
    queue_in = queue_out;
    queue_out = next_out;
  }
  samples_kernel<C, T><<<grid2, block2, 0, stream>>>(d_modes.as<float>(), dst, job.conversion, rows);
  GPUVIS_CUDA_CHECK_LAUNCH();
  if (modes_out) {
    modes_out->resize(static_cast<std::size_t>(n) * L);
    GPUVIS_CUDA_CHECK(cudaMemcpyAsync(modes_out->data(), d_modes.get(), feature_bytes, cudaMemcpyDeviceToHost, stream));
  }
  GPUVIS_CUDA_CHECK(cudaStreamSynchronize(stream));
}

}  // namespace

namespace cuda_impl {

template <class T>
void mean_shift(DeviceView<const T> src, DeviceView<T> dst, VolumeShape shape, const MeanShiftParams& params,
                std::vector<float>* modes, const Tuning& tuning, cudaStream_t stream) {
  const Job job = mean_shift_detail::prepare(src, dst, shape, params);
  switch (src.channels) {
    case 1: run<1>(src, dst, job, params, modes, tuning, stream); break;
    case 2: run<2>(src, dst, job, params, modes, tuning, stream); break;
    case 3: run<3>(src, dst, job, params, modes, tuning, stream); break;
    default: run<4>(src, dst, job, params, modes, tuning, stream); break;
  }
}

}  // namespace cuda_impl

template <class T>
void mean_shift_filter_cuda(HostView<const T> src, HostView<T> dst, VolumeShape shape, const MeanShiftParams& params,
                            std::vector<float>* modes, const Tuning& tuning) {
  mean_shift_detail::prepare(src, dst, shape, params);  // refuse bad calls before touching the device
  cuda::Stream stream;
  cuda::DeviceImage<T> d_src(src.width, src.height, src.channels), d_dst(src.width, src.height, src.channels);
  cuda::upload<T>(src, d_src.view(), stream);
  cuda_impl::mean_shift<T>(d_src.view(), d_dst.view(), shape, params, modes, tuning, stream);
  cuda::download<T>(d_dst.view(), dst, stream);
  stream.synchronize();
}

#define GPUVIS_MEAN_SHIFT_CUDA(T)                                                                                                  \
  template void mean_shift_filter_cuda<T>(HostView<const T>, HostView<T>, VolumeShape, const MeanShiftParams&, std::vector<float>*, \
                                          const Tuning&);                                                                         \
  template void cuda_impl::mean_shift<T>(DeviceView<const T>, DeviceView<T>, VolumeShape, const MeanShiftParams&, std::vector<float>*, \
                                         const Tuning&, cudaStream_t);
GPUVIS_MEAN_SHIFT_CUDA(std::uint8_t)
GPUVIS_MEAN_SHIFT_CUDA(std::uint16_t)
GPUVIS_MEAN_SHIFT_CUDA(float)
#undef GPUVIS_MEAN_SHIFT_CUDA

}  // namespace gpuvis::filters

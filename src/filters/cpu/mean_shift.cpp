// Mean shift filtering on the CPU: the features (colour converted, divided by h_r) are computed
// once, rows in parallel; then every voxel climbs on its own, in a vector lane beside others where
// the build and the CPU have a vector unit (filters/cpu/mean_shift_lanes.hpp: a lane whose climb
// ends takes the next voxel, as the CUDA backend's queue refills its threads), else one at a time;
// the modes are the same bit for bit either way. Voxels are handed out in chunks, in batches
// between which progress is reported. The result does not depend on the thread count.
#include <algorithm>
#include <vector>

#include "filters/cpu/mean_shift_lanes.hpp"
#include "filters/mean_shift_common.hpp"
#include "filters/mean_shift_rules.hpp"
#include "gpuvis/core/parallel.hpp"
#include "filters/filter_backends.hpp"

namespace gpuvis::filters {
namespace {

namespace rules = mean_shift_rules;

template <int C, class T>
void run(HostView<const T> src, HostView<T> dst, const mean_shift_detail::Job& job, const MeanShiftParams& params,
         std::vector<float>* modes_out, const mean_shift_detail::Tuning& tuning) {
  constexpr int L = rules::lanes<C>;
  const rules::Space& g = job.space;
  const long long n = job.voxels(), rows = job.rows();
  const int w = g.width;
  std::vector<float> feature(static_cast<std::size_t>(n) * L);
  parallel_for(0, rows, 1, [&](std::ptrdiff_t r0, std::ptrdiff_t r1) {
    for (std::ptrdiff_t r = r0; r < r1; ++r) {
      const T* s = src.row(static_cast<int>(r));
      for (int x = 0; x < w; ++x) rules::to_features<C>(s + static_cast<std::ptrdiff_t>(x) * C, job.conversion, &feature[(r * w + x) * L]);
    }
  });
  std::vector<float> modes(static_cast<std::size_t>(n) * L, 0.0f);
  // Batches of voxels, each climbed in parallel; progress between batches.
  const long long batches = params.progress ? std::clamp<long long>(n / 65536, 1, 100) : 1;
  rules::with_variant(job.gaussian, g, [&](auto gaussian, auto dims) {
    constexpr bool G = decltype(gaussian)::value;
    constexpr int D = decltype(dims)::value;
    for (long long b = 0; b < batches; ++b) {
      const long long i0 = n * b / batches, i1 = n * (b + 1) / batches;
      parallel_for(i0, i1, 64, [&](std::ptrdiff_t a, std::ptrdiff_t e) {
        if (tuning.lanes && cpu_lanes::climb(C, G, g, job.eps, job.max_iter, feature.data(), a, e, modes.data())) return;
        for (std::ptrdiff_t i = a; i < e; ++i) {
          rules::Point<C> p = rules::start<C>(i, g, &feature[i * L]);
          while (p.steps < job.max_iter && !rules::step<C, G, D>(p, g, job.eps, feature.data())) {
          }
          for (int c = 0; c < C; ++c) modes[i * L + c] = p.r[c];
        }
      });
      if (params.progress) params.progress(static_cast<double>(i1) / static_cast<double>(n));
    }
  });
  parallel_for(0, rows, 1, [&](std::ptrdiff_t r0, std::ptrdiff_t r1) {
    for (std::ptrdiff_t r = r0; r < r1; ++r) {
      T* d = dst.row(static_cast<int>(r));
      for (int x = 0; x < w; ++x) rules::to_samples<C>(&modes[(r * w + x) * L], job.conversion, d + static_cast<std::ptrdiff_t>(x) * C);
    }
  });
  if (modes_out) *modes_out = std::move(modes);
}

}  // namespace

template <class T>
void mean_shift_filter_cpu(HostView<const T> src, HostView<T> dst, VolumeShape shape, const MeanShiftParams& params,
                           std::vector<float>* modes, const mean_shift_detail::Tuning& tuning) {
  const auto job = mean_shift_detail::prepare(src, dst, shape, params);
  switch (src.channels) {
    case 1: run<1>(src, dst, job, params, modes, tuning); break;
    case 2: run<2>(src, dst, job, params, modes, tuning); break;
    case 3: run<3>(src, dst, job, params, modes, tuning); break;
    default: run<4>(src, dst, job, params, modes, tuning); break;
  }
}

#define GPUVIS_MEAN_SHIFT_CPU(T)                                                                                      \
  template void mean_shift_filter_cpu<T>(HostView<const T>, HostView<T>, VolumeShape, const MeanShiftParams&,        \
                                         std::vector<float>*, const mean_shift_detail::Tuning&);
GPUVIS_MEAN_SHIFT_CPU(std::uint8_t)
GPUVIS_MEAN_SHIFT_CPU(std::uint16_t)
GPUVIS_MEAN_SHIFT_CPU(float)
#undef GPUVIS_MEAN_SHIFT_CPU

}  // namespace gpuvis::filters

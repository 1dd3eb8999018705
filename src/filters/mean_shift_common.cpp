// Mean shift: parameter checks, the public colour conversions and the backend choice.
#include <algorithm>
#include <cmath>
#include <string>

#include "gpuvis/cuda/runtime.hpp"
#include "gpuvis/core/error.hpp"
#include "gpuvis/filters/mean_shift.hpp"
#include "filters/filter_backends.hpp"
#include "filters/mean_shift_common.hpp"
#include "filters/opencl/filters_opencl.hpp"
#include "gpuvis/opencl/devices.hpp"
#include "cuda/built.hpp"

namespace gpuvis::filters {

void validate(const MeanShiftParams& p) {
  require(std::isfinite(p.spatial) && p.spatial > 0 && p.spatial <= 256, "mean shift --spatial must lie in (0, 256] pixels");
  require(std::isfinite(p.range) && p.range > 0, "mean shift --range must be > 0");
  for (float r : p.channel_range)
    require(std::isfinite(r) && r >= 0, "mean shift: a per-channel range bandwidth must be > 0 (0: use --range)");
  require(std::isfinite(p.axial) && p.axial >= 0 && p.axial <= 256, "mean shift --axial must lie in [0, 256] slices (0: --spatial)");
  require(std::isfinite(p.time) && p.time >= 0 && p.time <= 256, "mean shift --time must lie in [0, 256] frames (0: --spatial)");
  require(std::isfinite(p.eps) && p.eps > 0 && p.eps < 1, "mean shift --eps must lie in (0, 1)");
  require(p.max_iter >= 1 && p.max_iter <= 100000, "mean shift --max-iter must lie in 1..100000");
}

void rgb_to_luv(const std::uint8_t rgb[3], float luv[3]) {
  const float v[3] = {static_cast<float>(rgb[0]), static_cast<float>(rgb[1]), static_cast<float>(rgb[2])};
  mean_shift_rules::rgb_to_luv(v, 255.0f, luv);
}

void luv_to_rgb(const float luv[3], std::uint8_t rgb[3]) {
  float v[3];
  mean_shift_rules::luv_to_rgb(luv, 255.0f, v);
  for (int c = 0; c < 3; ++c) rgb[c] = mean_shift_rules::to_sample<std::uint8_t>(v[c], 255.0f);
}

template <class T>
void mean_shift_filter(HostView<const T> src, HostView<T> dst, const MeanShiftParams& params) {
  mean_shift_filter_volume(src, dst, VolumeShape{}, params);
}

template <class T>
void mean_shift_filter_any(HostView<const T> src, HostView<T> dst, VolumeShape shape, const MeanShiftParams& params,
                           std::vector<float>* modes) {
  const Backend backend = opencl::prefer_opencl_gpu(params.backend, resolve_backend(params.backend));
  if (backend == Backend::cuda) {
    if constexpr (cuda::kBuilt) mean_shift_filter_cuda(src, dst, shape, params, modes);
    else cuda::not_built("CUDA mean shift");
  } else if (backend == Backend::opencl) {
    mean_shift_filter_opencl(src, dst, shape, params, modes);
  } else {
    mean_shift_filter_cpu(src, dst, shape, params, modes);
  }
}

template <class T>
void mean_shift_filter_volume(HostView<const T> stacked, HostView<T> dst, VolumeShape shape, const MeanShiftParams& params) {
  mean_shift_filter_any(stacked, dst, shape, params);
}

#define GPUVIS_MEAN_SHIFT(T)                                                                                          \
  template void mean_shift_filter<T>(HostView<const T>, HostView<T>, const MeanShiftParams&);                        \
  template void mean_shift_filter_volume<T>(HostView<const T>, HostView<T>, VolumeShape, const MeanShiftParams&);       \
  template void mean_shift_filter_any<T>(HostView<const T>, HostView<T>, VolumeShape, const MeanShiftParams&, std::vector<float>*);
GPUVIS_MEAN_SHIFT(std::uint8_t)
GPUVIS_MEAN_SHIFT(std::uint16_t)
GPUVIS_MEAN_SHIFT(float)
#undef GPUVIS_MEAN_SHIFT

namespace mean_shift_detail {

Job prepare(int width, int height, int channels, float full, VolumeShape shape, const MeanShiftParams& p) {
  validate(p);
  require(channels >= 1 && channels <= 4, "mean shift takes images of 1 to 4 channels, got " + std::to_string(channels));
  require(shape.depth >= 1 && shape.frames >= 1, "mean shift: a volume needs at least one slice and one frame");
  const long long slices = static_cast<long long>(shape.depth) * shape.frames;
  require(height % slices == 0, "mean shift: the stacked image's " + std::to_string(height) + " rows are not " +
                                    std::to_string(slices) + " slices of one height");
  Job job{};
  const float hz = p.axial > 0 ? p.axial : p.spatial, ht = p.time > 0 ? p.time : p.spatial;
  job.space = {width, static_cast<int>(height / slices), shape.depth, shape.frames, p.spatial, hz, ht};
  auto& k = job.conversion;
  k.channels = channels;
  k.luv = channels >= 3 && p.colour == MeanShiftColour::luv;
  k.full = full;
  for (int c = 0; c < 4; ++c) {
    k.range[c] = p.range_of(c);
    k.inv_range[c] = 1.0f / k.range[c];
  }
  job.gaussian = p.kernel == MeanShiftKernel::gaussian;
  job.eps = p.eps;
  job.max_iter = p.max_iter;
  return job;
}

}  // namespace mean_shift_detail

}  // namespace gpuvis::filters

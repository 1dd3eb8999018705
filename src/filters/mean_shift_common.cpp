// Mean shift: parameter checks, colour conversions and the backend choice.
#include <algorithm>
#include <cmath>

#include "gpuvis/cuda/runtime.hpp"
#include "gpuvis/core/error.hpp"
#include "gpuvis/filters/mean_shift.hpp"
#include "filters/filter_backends.hpp"
#include "mean_shift_common.hpp"

namespace gpuvis::filters {
namespace {

// EDISON's constants: sRGB primaries with D65 white, no gamma (the study's conversion).
constexpr float to_xyz[3][3] = {{0.4125f, 0.3576f, 0.1804f}, {0.2125f, 0.7154f, 0.0721f}, {0.0193f, 0.1192f, 0.9502f}};
constexpr float from_xyz[3][3] = {{3.2405f, -1.5371f, -0.4985f}, {-0.9693f, 1.8760f, 0.0416f}, {0.0556f, -0.2040f, 1.0573f}};
constexpr float un = 0.19784977571475f, vn = 0.46834507665248f, l_threshold = 0.008856f;

std::uint8_t to_u8(float v) { return static_cast<std::uint8_t>(std::clamp(std::lround(v), 0L, 255L)); }

}  // namespace

void validate(const MeanShiftParams& p) {
  require(std::isfinite(p.spatial) && p.spatial > 0 && p.spatial <= 256, "mean shift --spatial must lie in (0, 256] pixels");
  require(std::isfinite(p.range) && p.range > 0, "mean shift --range must be > 0");
  require(std::isfinite(p.axial) && p.axial >= 0 && p.axial <= 256, "mean shift --axial must lie in [0, 256] slices (0: --spatial)");
  require(std::isfinite(p.eps) && p.eps > 0 && p.eps < 1, "mean shift --eps must lie in (0, 1)");
  require(p.max_iter >= 1 && p.max_iter <= 100000, "mean shift --max-iter must lie in 1..100000");
}

void rgb_to_luv(const std::uint8_t rgb[3], float luv[3]) {
  float xyz[3];
  for (int i = 0; i < 3; ++i) xyz[i] = (to_xyz[i][0] * rgb[0] + to_xyz[i][1] * rgb[1] + to_xyz[i][2] * rgb[2]) / 255.0f;
  const float y = xyz[1];
  const float l = y > l_threshold ? 116.0f * std::cbrt(y) - 16.0f : 903.3f * y;
  const float den = xyz[0] + 15.0f * xyz[1] + 3.0f * xyz[2];
  if (den <= 0.0f) {
    luv[0] = l, luv[1] = 0, luv[2] = 0;
    return;
  }
  luv[0] = l;
  luv[1] = 13.0f * l * (4.0f * xyz[0] / den - un);
  luv[2] = 13.0f * l * (9.0f * xyz[1] / den - vn);
}

void luv_to_rgb(const float luv[3], std::uint8_t rgb[3]) {
  const float l = luv[0];
  if (l <= 0.0f) {
    rgb[0] = rgb[1] = rgb[2] = 0;
    return;
  }
  const float y = l > 8.0f ? std::pow((l + 16.0f) / 116.0f, 3.0f) : l / 903.3f;
  const float up = luv[1] / (13.0f * l) + un, vp = luv[2] / (13.0f * l) + vn;
  const float x = 9.0f * up * y / (4.0f * vp);
  const float z = (12.0f - 3.0f * up - 20.0f * vp) * y / (4.0f * vp);
  for (int i = 0; i < 3; ++i) rgb[i] = to_u8(255.0f * (from_xyz[i][0] * x + from_xyz[i][1] * y + from_xyz[i][2] * z));
}

void mean_shift_filter(HostView<const std::uint8_t> src, HostView<std::uint8_t> dst, const MeanShiftParams& params) {
  if (resolve_backend(params.backend) == Backend::cuda) mean_shift_filter_cuda(src, dst, params);
  else mean_shift_filter_cpu(src, dst, params);
}

void mean_shift_filter_volume(HostView<const std::uint8_t> slices, HostView<std::uint8_t> dst, int depth,
                              const MeanShiftParams& params) {
  if (resolve_backend(params.backend) == Backend::cuda) mean_shift_filter_cuda(slices, dst, params, depth);
  else mean_shift_filter_cpu(slices, dst, params, depth);
}

namespace mean_shift_detail {

void check(HostView<const std::uint8_t> src, HostView<std::uint8_t> dst, const MeanShiftParams& p, int depth) {
  validate(p);
  require(!src.empty() && same_shape(src, dst), "mean shift needs a non-empty input and an output of the same shape");
  require(src.channels == 1 || src.channels == 3, "mean shift takes grey or RGB images (1 or 3 channels)");
  require(depth >= 1 && src.height % depth == 0, "mean shift: a volume's stacked slices must all have the same height");
}

mean_shift_rules::Grid grid(HostView<const std::uint8_t> src, const MeanShiftParams& p, int depth) {
  return {src.width, src.height / depth, depth, p.spatial, p.axial > 0 ? p.axial : p.spatial};
}

std::vector<float> features(HostView<const std::uint8_t> src, const MeanShiftParams& p) {
  const int w = src.width, h = src.height, channels = src.channels;
  const bool luv = channels == 3 && p.colour == MeanShiftColour::luv;
  const float inv_hr = 1.0f / p.range;
  std::vector<float> f(static_cast<std::size_t>(w) * h * channels);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      float* v = &f[(static_cast<std::size_t>(y) * w + x) * channels];
      const std::uint8_t* s = src.row(y) + static_cast<std::ptrdiff_t>(x) * channels;
      if (luv) rgb_to_luv(s, v);
      else
        for (int c = 0; c < channels; ++c) v[c] = s[c];
      for (int c = 0; c < channels; ++c) v[c] *= inv_hr;
    }
  return f;
}

void write_modes(const std::vector<float>& modes, HostView<std::uint8_t> dst, const MeanShiftParams& p) {
  const int w = dst.width, channels = dst.channels;
  const bool luv = channels == 3 && p.colour == MeanShiftColour::luv;
  for (int y = 0; y < dst.height; ++y)
    for (int x = 0; x < w; ++x) {
      float m[3];
      for (int c = 0; c < channels; ++c) m[c] = modes[(static_cast<std::size_t>(y) * w + x) * channels + c] * p.range;
      std::uint8_t* d = dst.row(y) + static_cast<std::ptrdiff_t>(x) * channels;
      if (luv) luv_to_rgb(m, d);
      else
        for (int c = 0; c < channels; ++c) d[c] = to_u8(m[c]);
    }
}

}  // namespace mean_shift_detail

}  // namespace gpuvis::filters

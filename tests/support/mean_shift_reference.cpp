#include "mean_shift_reference.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "filters/mean_shift_common.hpp"  // full_scale<T>
#include "filters/mean_shift_rules.hpp"   // the colour conversion both backends use

namespace gpuvis::test {

template <class T>
Image<T> mean_shift_reference(HostView<const T> src, const filters::MeanShiftParams& p, VolumeShape shape) {
  const int w = src.width, C = src.channels, depth = shape.depth, frames = shape.frames;
  const int slice = src.height / (depth * frames);
  const double hs = p.spatial, hz = p.axial > 0 ? p.axial : p.spatial, ht = p.time > 0 ? p.time : p.spatial;
  const bool luv = C >= 3 && p.colour == filters::MeanShiftColour::luv;
  const float full = filters::mean_shift_detail::full_scale<T>();
  // Every voxel as a point of the joint space (x / h_s, y / h_s, z / h_z, t / h_t, value / h_r).
  std::vector<std::vector<double>> points;
  for (int row = 0; row < src.height; ++row)
    for (int x = 0; x < w; ++x) {
      const int y = row % slice, z = (row / slice) % depth, t = row / slice / depth;
      std::vector<double> f{x / hs, y / hs, z / hz, t / ht};
      float v[4];
      for (int c = 0; c < C; ++c) v[c] = static_cast<float>(src(x, row, c));
      if (luv) {
        float l[3];
        filters::mean_shift_rules::rgb_to_luv(v, full, l);
        std::copy(l, l + 3, v);
      }
      for (int c = 0; c < C; ++c) f.push_back(v[c] / static_cast<double>(p.range_of(c)));
      points.push_back(f);
    }
  Image<T> out(w, src.height, C);
  for (std::size_t i = 0; i < points.size(); ++i) {
    std::vector<double> y = points[i];
    for (int step = 0; step < p.max_iter; ++step) {
      std::vector<double> sum(y.size(), 0.0);
      double wsum = 0;
      for (const auto& q : points) {
        double d2 = 0;
        for (std::size_t k = 0; k < y.size(); ++k) d2 += (q[k] - y[k]) * (q[k] - y[k]);
        if (d2 > 1.0) continue;
        const double wt = p.kernel == filters::MeanShiftKernel::gaussian ? std::exp(-2.0 * d2) : 1.0;
        wsum += wt;
        for (std::size_t k = 0; k < y.size(); ++k) sum[k] += wt * q[k];
      }
      if (wsum == 0) break;
      double shift2 = 0;
      for (std::size_t k = 0; k < y.size(); ++k) {
        const double n = sum[k] / wsum;
        shift2 += (n - y[k]) * (n - y[k]);
        y[k] = n;
      }
      if (shift2 < static_cast<double>(p.eps) * p.eps) break;
    }
    float mode[4];
    for (int c = 0; c < C; ++c) mode[c] = static_cast<float>(y[4 + c] * p.range_of(c));
    if (luv) {
      float rgb[3];
      filters::mean_shift_rules::luv_to_rgb(mode, full, rgb);
      std::copy(rgb, rgb + 3, mode);
    }
    T* d = out.row(static_cast<int>(i / w)) + (i % w) * C;
    for (int c = 0; c < C; ++c) d[c] = filters::mean_shift_rules::to_sample<T>(mode[c], full);
  }
  return out;
}

template Image<std::uint8_t> mean_shift_reference<std::uint8_t>(HostView<const std::uint8_t>, const filters::MeanShiftParams&, VolumeShape);
template Image<std::uint16_t> mean_shift_reference<std::uint16_t>(HostView<const std::uint16_t>, const filters::MeanShiftParams&, VolumeShape);
template Image<float> mean_shift_reference<float>(HostView<const float>, const filters::MeanShiftParams&, VolumeShape);

}  // namespace gpuvis::test

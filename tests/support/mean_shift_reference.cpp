#include "mean_shift_reference.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace gpuvis::test {

Image<std::uint8_t> mean_shift_reference(HostView<const std::uint8_t> src, const filters::MeanShiftParams& p, int depth) {
  const int w = src.width, h = src.height, C = src.channels;
  const int slice = h / depth;
  const double hz = p.axial > 0 ? p.axial : p.spatial;
  const bool luv = C == 3 && p.colour == filters::MeanShiftColour::luv;
  // Every voxel as a point of the joint space (x / h_s, y / h_s, z / h_z, value / h_r).
  std::vector<std::vector<double>> points;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      std::vector<double> f{x / static_cast<double>(p.spatial), (y % slice) / static_cast<double>(p.spatial), (y / slice) / hz};
      float v[3];
      if (luv) filters::rgb_to_luv(src.row(y) + 3 * x, v);
      else
        for (int c = 0; c < C; ++c) v[c] = src(x, y, c);
      for (int c = 0; c < C; ++c) f.push_back(v[c] / static_cast<double>(p.range));
      points.push_back(f);
    }
  Image<std::uint8_t> out(w, h, C);
  for (int i = 0; i < w * h; ++i) {
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
    float mode[3];
    for (int c = 0; c < C; ++c) mode[c] = static_cast<float>(y[3 + c] * p.range);
    std::uint8_t* d = out.row(i / w) + (i % w) * C;
    if (luv) filters::luv_to_rgb(mode, d);
    else
      for (int c = 0; c < C; ++c) d[c] = static_cast<std::uint8_t>(std::clamp(std::lround(mode[c]), 0L, 255L));
  }
  return out;
}

}  // namespace gpuvis::test

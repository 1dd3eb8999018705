// Mean shift filtering on the CPU: the range values are converted (and divided by h_r) once, then
// every pixel climbs on its own, rows in parallel; the result does not depend on the thread count.
#include <algorithm>
#include <cmath>
#include <vector>

#include "../mean_shift_common.hpp"
#include "../mean_shift_rules.hpp"
#include "gpuvis/core/error.hpp"
#include "gpuvis/core/parallel.hpp"
#include "gpuvis/filters/mean_shift.hpp"
#include "filters/filter_backends.hpp"

namespace gpuvis::filters {
namespace {

// Every voxel's climb; the features are the stacked slices' pixels in row order, so voxel
// (x, y, z) is pixel (x, z * height + y).
template <int C>
void climb_all(const std::vector<float>& feature, std::vector<float>& modes, const mean_shift_rules::Grid& g,
               const MeanShiftParams& p) {
  const std::size_t w = static_cast<std::size_t>(g.width), h = static_cast<std::size_t>(g.height);
  const auto value = [&](int x, int y, int z, int c) { return feature[((z * h + y) * w + x) * C + c]; };
  const bool gaussian = p.kernel == MeanShiftKernel::gaussian;
  parallel_for(0, static_cast<std::ptrdiff_t>(h) * g.depth, 1, [&](std::ptrdiff_t r0, std::ptrdiff_t r1) {
    for (std::ptrdiff_t row = r0; row < r1; ++row) {
      const int y = static_cast<int>(row % static_cast<std::ptrdiff_t>(h)), z = static_cast<int>(row / static_cast<std::ptrdiff_t>(h));
      for (int x = 0; x < g.width; ++x) {
        const std::size_t at = (static_cast<std::size_t>(row) * w + x) * C;
        mean_shift_rules::climb<C>(x, y, z, &feature[at], g, gaussian, p.eps, p.max_iter, value, &modes[at]);
      }
    }
  });
}

}  // namespace

void mean_shift_filter_cpu(HostView<const std::uint8_t> src, HostView<std::uint8_t> dst, const MeanShiftParams& params,
                           int depth) {
  mean_shift_detail::check(src, dst, params, depth);
  const std::vector<float> feature = mean_shift_detail::features(src, params);
  std::vector<float> modes(feature.size());
  const mean_shift_rules::Grid g = mean_shift_detail::grid(src, params, depth);
  if (src.channels == 1) climb_all<1>(feature, modes, g, params);
  else climb_all<3>(feature, modes, g, params);
  mean_shift_detail::write_modes(modes, dst, params);
}

}  // namespace gpuvis::filters

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

template <int C>
void climb_all(const std::vector<float>& feature, std::vector<float>& modes, int w, int h, const MeanShiftParams& p) {
  const auto value = [&](int x, int y, int c) { return feature[(static_cast<std::size_t>(y) * w + x) * C + c]; };
  const bool gaussian = p.kernel == MeanShiftKernel::gaussian;
  parallel_for(0, h, 1, [&](std::ptrdiff_t y0, std::ptrdiff_t y1) {
    for (int y = static_cast<int>(y0); y < y1; ++y)
      for (int x = 0; x < w; ++x) {
        const std::size_t at = (static_cast<std::size_t>(y) * w + x) * C;
        mean_shift_rules::climb<C>(x, y, &feature[at], w, h, p.spatial, gaussian, p.eps, p.max_iter, value, &modes[at]);
      }
  });
}

}  // namespace

void mean_shift_filter_cpu(HostView<const std::uint8_t> src, HostView<std::uint8_t> dst, const MeanShiftParams& params) {
  mean_shift_detail::check(src, dst, params);
  const std::vector<float> feature = mean_shift_detail::features(src, params);
  std::vector<float> modes(feature.size());
  if (src.channels == 1) climb_all<1>(feature, modes, src.width, src.height, params);
  else climb_all<3>(feature, modes, src.width, src.height, params);
  mean_shift_detail::write_modes(modes, dst, params);
}

}  // namespace gpuvis::filters

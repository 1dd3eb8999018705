#pragma once
// Mean shift filtering as written in docs/meanshift.md, literally: every step visits every pixel of
// the image (no window bounds) and sums in double. The reference the CPU backend is compared with.
#include <cstdint>

#include "gpuvis/core/image.hpp"
#include "gpuvis/filters/mean_shift.hpp"

namespace gpuvis::test {

// `depth` > 1: a volume of that many slices stacked in src (filters::mean_shift_filter_volume).
Image<std::uint8_t> mean_shift_reference(HostView<const std::uint8_t> src, const filters::MeanShiftParams& p, int depth = 1);

}  // namespace gpuvis::test

#pragma once
// Mean shift filtering as written in docs/meanshift.md, literally: every step visits every voxel
// of the image or volume (no window bounds, no neighbour structure, no queue) and sums in double.
// The reference the CPU backend is compared with.
#include <cstdint>

#include "gpuvis/core/image.hpp"
#include "gpuvis/filters/mean_shift.hpp"

namespace gpuvis::test {

// Any sample type and 1 to 4 channels; `shape`: a volume or sequence stacked in src
// (filters::mean_shift_filter_volume).
template <class T>
Image<T> mean_shift_reference(HostView<const T> src, const filters::MeanShiftParams& p, VolumeShape shape = {});

}  // namespace gpuvis::test

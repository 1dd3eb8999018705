#pragma once
// The host steps both mean shift backends share: the range features (colour converted, divided by
// h_r) before the climbs, and the output values from the modes after them.
#include <cstdint>
#include <vector>

#include "gpuvis/filters/mean_shift.hpp"
#include "mean_shift_rules.hpp"

namespace gpuvis::filters::mean_shift_detail {

// Checks the parameters and the images, `depth` slices stacked in src (throws
// ErrorCode::invalid_argument).
void check(HostView<const std::uint8_t> src, HostView<std::uint8_t> dst, const MeanShiftParams& p, int depth = 1);
// The climb's grid for `depth` slices stacked in src.
mean_shift_rules::Grid grid(HostView<const std::uint8_t> src, const MeanShiftParams& p, int depth);
// width x height x channels floats, pixel-interleaved.
std::vector<float> features(HostView<const std::uint8_t> src, const MeanShiftParams& p);
// `modes` as features (the range part of each pixel's mode, divided by h_r) into 8-bit values.
void write_modes(const std::vector<float>& modes, HostView<std::uint8_t> dst, const MeanShiftParams& p);

}  // namespace gpuvis::filters::mean_shift_detail

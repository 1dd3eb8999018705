#pragma once
// The host steps both mean shift backends share: checking a call and turning its parameters into
// the climb's space and the samples' conversion.
#include <cstdint>
#include <string>
#include <vector>

#include "gpuvis/core/error.hpp"
#include "gpuvis/filters/mean_shift.hpp"
#include "filters/mean_shift_rules.hpp"

namespace gpuvis::filters::mean_shift_detail {

// What the benchmarks change to measure what the queue buys; results are the same either way. The
// defaults are what measured fastest (docs/benchmarks/meanshift.md).
struct Tuning {
  int round_steps = 8;  // CUDA: steps per round before unfinished climbs are gathered into the next queue (0: no queue)
  bool ordered = true;  // CUDA: the queue keeps voxel order (a stream compaction) rather than atomic append order
  bool lanes = true;    // CPU: climbs in vector lanes where the build and the CPU have them (filters/cpu/mean_shift_lanes.hpp)
};

// One call, checked: its space, conversion and stopping rule.
struct Job {
  mean_shift_rules::Space space;
  mean_shift_rules::Conversion conversion;
  bool gaussian;
  float eps;
  int max_iter;
  long long voxels() const { return static_cast<long long>(space.width) * space.height * space.depth * space.frames; }
  long long rows() const { return static_cast<long long>(space.height) * space.depth * space.frames; }
};

// The sample value of full intensity for T (luv's white).
template <class T>
constexpr float full_scale() {
  if constexpr (std::is_same_v<T, std::uint8_t>) return 255.0f;
  else if constexpr (std::is_same_v<T, std::uint16_t>) return 65535.0f;
  else return 1.0f;
}

// Checks the parameters and the images (throws ErrorCode::invalid_argument) and describes the call.
Job prepare(int width, int height, int channels, float full, VolumeShape shape, const MeanShiftParams& p);

template <class SrcView, class DstView>
Job prepare(const SrcView& src, const DstView& dst, VolumeShape shape, const MeanShiftParams& p) {
  using T = std::remove_const_t<typename SrcView::value_type>;
  require(!src.empty() && same_shape(src, dst), "mean shift needs a non-empty input and an output of the same shape");
  return prepare(src.width, src.height, src.channels, full_scale<T>(), shape, p);
}

}  // namespace gpuvis::filters::mean_shift_detail

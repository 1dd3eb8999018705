#pragma once
// Drawing detections onto a frame for people to look at (gpuvis detect --annotate).
#include <cstdint>

#include "gpuvis/core/image.hpp"
#include "gpuvis/pipeline/detector.hpp"

namespace gpuvis::cli {

// A colour copy of `grey` with each fiducial's centre, ID and direction arrow drawn on it
// (green for valid IDs, orange for fuzzy candidates).
Image<std::uint8_t> annotate(HostView<const std::uint8_t> grey, const pipeline::Detections& detections);

}  // namespace gpuvis::cli

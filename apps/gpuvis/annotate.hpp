#pragma once
// Drawing detections onto a frame for people to look at (gpuvis detect --annotate).
#include <cstdint>
#include <string>

#include "gpuvis/core/image.hpp"
#include "gpuvis/pipeline/detector.hpp"

namespace gpuvis::cli {

// A colour copy of `grey` with each fiducial's centre, ID and direction arrow drawn on it
// (green for valid IDs, orange for fuzzy candidates).
Image<std::uint8_t> annotate(HostView<const std::uint8_t> grey, const pipeline::Detections& detections);

// Digits (and '-', '?') in a 3x5 pixel font scaled by `scale`, top left at (x, y), onto an RGB image.
void draw_digits(Image<std::uint8_t>& img, int x, int y, const std::string& s, const std::uint8_t colour[3], int scale = 1);

}  // namespace gpuvis::cli

#pragma once
// A slow, obvious, pixel-by-pixel implementation of docs/segmentation.md's definitions (flood fill,
// then every statistic straight from its definition), and a field-by-field comparison of two region
// trees. The fast CPU segmentation and the GPU segmentation are both checked against it.
#include <gtest/gtest.h>

#include "gpuvis/segment/region_tree.hpp"

namespace gpuvis::test {

segment::RegionTree segment_reference(HostView<const std::uint8_t> binary, int cap);

// Adds a test failure naming the first differing field and region, and returns false, unless the
// trees are equal. With `up_to_renumbering`, regions may be numbered differently in `b`: they are
// matched by their first pixel, and parents and neighbours are compared through that matching.
::testing::AssertionResult same_region_tree(const segment::RegionTree& a, const segment::RegionTree& b,
                                            bool up_to_renumbering = false);

// Binary test frames of every kind a camera (or an attacker) can produce: white noise at a given
// density of white, blocky noise, checkerboards, stripes, nested rings.
Image<std::uint8_t> binary_noise(int width, int height, double white_fraction, int block, std::uint32_t seed);
// Adversarial patterns, kind 0..6: all black, all white, checkerboard, horizontal one-pixel
// stripes, vertical one-pixel stripes, concentric square rings 2 px wide, 3-px checkerboard.
constexpr int kBinaryPatterns = 7;
Image<std::uint8_t> binary_pattern(int width, int height, int kind);

}  // namespace gpuvis::test

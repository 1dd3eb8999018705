#pragma once
// Equality of two backends' detection results, in the terms the GPU issue states: the same
// fiducial IDs, roots, leaf counts, root candidates, fingers and blobs, centres within 1e-3 px and
// angles within 1e-4 rad. The largest differences seen are kept for the test log.
#include <gtest/gtest.h>

#include <vector>

#include "gpuvis/decode/fiducial.hpp"
#include "gpuvis/decode/root_candidates.hpp"
#include "gpuvis/pipeline/detector.hpp"

namespace gpuvis::test {

struct DetectionDeltas {
  double centre_px = 0, angle_rad = 0;  // largest |difference| so far
  long long fiducials = 0;              // fiducials compared
  double blob_px = 0, blob_angle_rad = 0;  // fingers and blobs: centre and sides, long-side direction
  long long blobs = 0;                     // fingers and blobs compared
};
DetectionDeltas& detection_deltas();  // accumulated over the process

::testing::AssertionResult same_fiducials(const std::vector<decode::Fiducial>& cpu,
                                          const std::vector<decode::Fiducial>& gpu);
::testing::AssertionResult same_roots(const std::vector<decode::RootCandidate>& cpu,
                                      const std::vector<decode::RootCandidate>& gpu);
::testing::AssertionResult same_stats(const decode::DecodeStats& cpu, const decode::DecodeStats& gpu);
// Everything above, plus region counts, fingers, blobs and object blobs (boxes within 1e-3 px,
// directions within 1e-4 rad).
::testing::AssertionResult same_detections(const pipeline::Detections& cpu, const pipeline::Detections& gpu);

}  // namespace gpuvis::test

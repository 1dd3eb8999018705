#pragma once
// What detection finds in one frame: fiducials, root candidates, fingers and blobs, with the
// frame's size and stage times. The tracker consumes it; the detector (pipeline/) produces it on
// either backend.
#include <vector>

#include "gpuvis/decode/blobs.hpp"
#include "gpuvis/decode/fiducial.hpp"
#include "gpuvis/decode/root_candidates.hpp"
#include "gpuvis/segment/region_tree.hpp"

namespace gpuvis::decode {

// Where a frame's time went, in microseconds.
struct StageTimes {
  // CPU: host time of each stage. CUDA: threshold_us is the upload and the threshold kernels (GPU
  // time), segment_us the device segmentation, decode_us the device decoding and the results'
  // download. With CUDA graphs (the default) a frame's device stages run as one graph and only
  // device_us, the whole frame on the device from upload to results copied back, is measured; the
  // stages are timed on frames launched eagerly (the first of each size, or GPUVIS_CUDA_GRAPH=0).
  double threshold_us = 0, segment_us = 0, decode_us = 0, blobs_us = 0;
  double second_look_us = 0;  // host time of the second looks (both backends)
  double device_us = 0;
};

// A symbol the tracker follows, where it should be in the next frame (constant velocity). The
// detector's second look looks at its place when the symbol did not decode there, and a symbol of
// another ID that the first pass read there gives way to it when the deblurred patch is it. With a
// key, the second look also remembers how the print looked when it last decoded and, where it no
// longer decodes, finds it by that appearance (smeared along its motion, turned to its angle).
struct ExpectedSymbol {
  int id = -1;
  double x = 0, y = 0;  // predicted centre, pixels
  int root_size = 0;    // its root region's size, pixels
  int key = -1;         // the tracker's session ID (which print this is from frame to frame), or -1
  double vx = 0, vy = 0;  // its motion, pixels per frame
  double angle = 0;       // its predicted angle, radians (as Fiducial::angle)
  double spin = 0;        // its turn, radians per frame (as Fiducial::angle turns: clockwise, y down)
};

// One second look (DetectorParams::second_look): a candidate that did not decode, looked at again
// in the grey frame with its motion blur estimated and taken out. For `gpuvis detect --debug`.
struct SecondLook {
  double x = 0, y = 0;  // the candidate's centre, pixels
  int size = 0;         // its root region's size (max of width and height), pixels
  // "fuzzy" or "root" candidate, "place" (where an expected symbol should be), "verify" (a first
  // pass's symbol in a frame with motion) or "appearance" (an expected symbol found by its look)
  const char* kind = "";
  int expected = -1;    // the ID of the tracked symbol expected there, or -1
  double angle = 0, length = 0, anisotropy = 0;  // the estimated blur (MotionEstimate)
  double travel = -1;   // the direction (radians, [0, pi)) it moved in from a candidate of the last frame, or -1
  double score = 0;     // "appearance": how well the print's last decoded appearance matched (1 = exactly)
  int id = -1;          // the symbol found, or -1
  const char* outcome = "";  // what became of it
  double us = 0;             // how long the look took, microseconds (on one of the looks' threads)
};

struct Detections {
  int width = 0, height = 0;
  std::vector<Fiducial> fiducials;  // valid IDs first, then fuzzy candidates (id -1)
  std::vector<Finger> fingers;
  std::vector<Blob> blobs;
  // Regions that may be the root of a symbol whose inside no longer decodes, in the size band of
  // the symbols of the last frame that had any (root sizes / 1.2 .. * 1.2, spec §6.2); before the
  // first such frame, 24-160 px (kFirstRootBandMin/Max).
  std::vector<RootCandidate> roots;
  // With BlobParams::object_blobs: the blob of each fiducial's root region and of each root
  // candidate, index for index (spec §7.6); empty otherwise.
  std::vector<Blob> fiducial_blobs, root_blobs;
  // This frame's regions (valid until the next detect() or receive()): on the CPU backend always,
  // on CUDA (which keeps them on the device) with the detector's regions tap, else null.
  const segment::RegionTree* tree = nullptr;
  // This frame's binary frame, with the detector's threshold tap (else empty; valid likewise).
  HostView<const std::uint8_t> binary;
  bool object_blobs = false, finger_blobs = false;  // the tracker attaches blobs to objects / cursors
  // The second looks of this frame, in the order they were taken.
  std::vector<SecondLook> second_looks;
  DecodeStats decode_stats;
  int regions = 0;
  StageTimes times;
};

}  // namespace gpuvis::decode

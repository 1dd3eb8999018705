#pragma once
// Fingers and plain blobs (spec §6.2, §7.1-§7.3), from the region tree of a frame, with the blob
// geometry defined soundly (docs/decoding.md): an oriented box from the region's convex hull and
// its perimeter moments, sizes in whole pixels, the angle of the long side in [0, π).
#include <cstdint>
#include <vector>

#include "gpuvis/core/image.hpp"
#include "gpuvis/decode/fiducial.hpp"
#include "gpuvis/segment/region_tree.hpp"

namespace gpuvis::decode {

struct BlobGeometry {
  bool ok = false;       // false for degenerate regions (one pixel, one straight line)
  double x = 0, y = 0;   // centre of the oriented box, pixels
  double width = 0;      // long side, pixels (pixel edges to pixel edges)
  double height = 0;     // short side
  double angle = 0;      // long side's direction, radians in [0, π), clockwise from +x (y down)
  double extent_long = 0, extent_short = 0;  // the same sides between pixel centres (hull extent)
  double axis_x = 1, axis_y = 0;  // unit vector along the long side (cos, sin of angle up to sign)
};

BlobGeometry blob_geometry(const segment::RegionTree& tree, int region);

// reacTIVision's ellipse-fit score of a region (spec §7.3): 1000 when its fill ratio is outside
// [0.5, 1.5], otherwise the mean (scaled) deviation of its boundary pixels from the ellipse of its
// oriented box, divided by sqrt(a b). Round blobs score near 0.
double finger_score(const segment::RegionTree& tree, int region, const BlobGeometry& g);

struct FingerParams {
  int size = 0;              // average finger size in pixels; 0 disables finger detection
  double sensitivity = 0.75; // reacTIVision's sensitivity/100 (shipped 75)
  int contrast = 16;         // minimum grey-level contrast inside the finger
};

struct BlobParams {
  int min_size = 0, max_size = 0;  // blobs are reported when max_size > 0
  // reacTIVision's obj_blob / cur_blob (spec §7.6): every symbol's root region and every finger is
  // also sent as a /tuio/2Dblb blob with the session ID of its object or cursor.
  bool object_blobs = false, finger_blobs = false;
};

// Fingers or plain blobs asked for: find_fingers_and_blobs has something to do.
inline bool finds_fingers_or_blobs(const FingerParams& fingers, const BlobParams& blobs) {
  return fingers.size > 0 || blobs.max_size > 0;
}
// Anything blob-like asked for (fingers, plain blobs or object blobs): the regions' runs are
// needed, and the CUDA decoder runs its stage 4.
inline bool measures_blobs(const FingerParams& fingers, const BlobParams& blobs) {
  return finds_fingers_or_blobs(fingers, blobs) || blobs.object_blobs;
}

struct Finger {
  double x = 0, y = 0, width = 0, height = 0, angle = 0, score = 0;
  int area = 0;  // pixels
  int region = -1;
};

struct Blob {
  double x = 0, y = 0, width = 0, height = 0, angle = 0;
  int area = 0;     // pixels
  int region = -1;  // -1: no geometry (a degenerate region)
  bool ok() const { return region >= 0; }
};

// The blob of any region (a symbol's root, a root candidate): its oriented box and area, or a
// Blob with region -1 when the region is degenerate.
Blob region_blob(const segment::RegionTree& tree, int region);

// What a detector reports beside the fiducials: the fingers and blobs of a frame and, with
// BlobParams::object_blobs, the blob of each fiducial's root and each root candidate (index for
// index with the fiducials and the root candidates).
struct BlobResults {
  std::vector<Finger> fingers;
  std::vector<Blob> blobs;
  std::vector<Blob> fiducial_blobs, root_blobs;
};

// Classifies the white regions of `tree` into fingers and blobs. `fiducials` are this frame's
// decoded symbols (valid and fuzzy): their roots and leaves never become fingers or blobs.
void find_fingers_and_blobs(const segment::RegionTree& tree, HostView<const std::uint8_t> grey,
                            const std::vector<Fiducial>& fiducials, const FingerParams& fingers, const BlobParams& blobs,
                            std::vector<Finger>& finger_out, std::vector<Blob>& blob_out);

}  // namespace gpuvis::decode

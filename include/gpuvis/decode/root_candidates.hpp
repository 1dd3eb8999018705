#pragma once
// Root candidates (spec §6.2 A, §6.5): regions that may be the root of a tracked symbol whose inside
// no longer decodes (motion blur, a finger over it). The tracker keeps such an object alive and
// moves it with its root instead of dropping it.
#include <cstdint>
#include <vector>

#include "gpuvis/core/image.hpp"  // GPUVIS_HD
#include "gpuvis/decode/fiducial.hpp"
#include "gpuvis/segment/region_tree.hpp"

namespace gpuvis::decode {

struct RootCandidate {
  double x = 0, y = 0;  // centroid, pixels
  int size = 0;         // max(width, height) of the bounding box, like Fiducial::root_size
  std::uint8_t colour = 255;
  int region = -1;
};

// Regions off the border with at least one neighbour (and not saturated), roughly square
// (|width - height| < min(width, height)), with size in [min_size, max_size], that are neither a
// decoded symbol's root (valid or fuzzy) nor a neighbour of one (its leaves and enclosing region).
// Unlike reacTIVision (Q21) both colours qualify and blob tracking need not be on. At most `limit`
// candidates, in region order.
void find_root_candidates(const segment::RegionTree& tree, const std::vector<Fiducial>& fiducials, int min_size,
                          int max_size, std::vector<RootCandidate>& out, std::size_t limit = 1024);

// The band before the first frame with valid symbols: root sizes of any symbol a 640x480-class
// camera shows (above the finger sizes), so that the second look has candidates in a session whose
// first frames decode nothing (dim prints: docs/decoding.md). reacTIVision has no band then.
inline constexpr int kFirstRootBandMin = 24, kFirstRootBandMax = 160;

// The root-candidate stage of the CPU backend (the CUDA decoder's stage 3 keeps the same band on
// the device): each frame's candidates in the band that the last frame with valid symbols set,
// which then moves on to this frame's symbols (next_root_band); the first band until then.
class RootCandidateFinder {
 public:
  void find(const segment::RegionTree& tree, const std::vector<Fiducial>& fiducials, std::vector<RootCandidate>& out);

 private:
  int min_size_ = kFirstRootBandMin, max_size_ = kFirstRootBandMax;
};

// The size band of the next frame's root candidates (reacTIVision's object band) from the smallest
// and largest root size of this frame's valid symbols. One rule for RootCandidateFinder and the CUDA
// decoder, which keeps the band on the device.
struct RootSizeBand {
  int min_size, max_size;
};
GPUVIS_HD inline RootSizeBand next_root_band(int smallest, int largest) {
  return {static_cast<int>(smallest / 1.2), static_cast<int>(largest * 1.2)};
}

}  // namespace gpuvis::decode

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

// The band before the first frame with valid symbols: root sizes of any symbol a 640x480-class
// camera shows (above the finger sizes), so that the second look has candidates in a session whose
// first frames decode nothing (dim prints: docs/decoding.md). reacTIVision has no band then.
inline constexpr int kFirstRootBandMin = 24, kFirstRootBandMax = 160;

// Whether a region may be a symbol's root: off the border, roughly square (|width - height| <
// min(width, height)), its size (max of width and height) in [min_size, max_size], neither a decoded
// symbol's root (valid or fuzzy) nor a neighbour of one (`taken`: its leaves and enclosing region),
// and with at least one neighbour, or white and saturated (more neighbours than the tree set's
// cap). A white saturated square is the paper of a dim print: where the table is darker than its
// ink, the threshold turns the outline and much of the ink white, and the paper holds the rest as
// dozens of specks (docs/decoding.md). (A black saturated square is ink smeared into one blob with
// specks of paper in it, of no use as a place: its size is not the symbol's.) reacTIVision never
// takes a saturated region for a root. One rule for find_root_candidates and the CUDA decoder's
// stage 3, evaluated without a branch.
//
// Such a paper, a white region that lost neighbours to one (fragmented), and any white region with
// three neighbours or more (the paper of a dim print whose ink the threshold kept in part: the
// region around it and pieces of its ink) is a candidate at any
// size of the first band, and up to 8/5 of the band's largest outline: its box is 1.11 times its
// symbol's outline, and up to 1.41 times that when the print is turned by 45 degrees, and the band
// follows the symbols of the frame before, which may be smaller or larger than a dim print. (With
// the band alone, 4 of the 8 dim prints lost on the camera table's frames at seed base 9000 had no
// candidate; with saturated and fragmented papers alone, 6 of the 8 lost at seed base 17000, white
// papers with 5-19 neighbours each.) A white blob with one neighbour, a fingertip, is no paper: with
// any white region with a neighbour taken for one (2026-11-29 to 2026-12-01), every fingertip of
// the first band's sizes was a candidate, and its look, deblurring a smear it does not have, cost
// 13-24 ms of a 640x480 frame with 3 fingers (H200, bench_pipeline: 13.3 ms against 0.10 ms
// without the second look). The second look takes the candidates outside the band last, so that a
// smeared print's paper does not take the place of its outline as the centre of its look.
GPUVIS_HD inline bool qualifies_as_root(int width, int height, int colour, int flags, int degree, bool taken, int min_size,
                                        int max_size) {
  const int larger = width > height ? width : height, smaller = width < height ? width : height;
  const int difference = width > height ? width - height : height - width;
  const bool saturated = (flags & segment::kSaturated) != 0;
  const bool paper = (((flags & (segment::kSaturated | segment::kFragmented)) != 0) | (degree >= 3)) & (colour != 0);
  const int paper_max = max_size * 8 / 5 > kFirstRootBandMax ? max_size * 8 / 5 : kFirstRootBandMax;
  const int paper_min = min_size < kFirstRootBandMin ? min_size : kFirstRootBandMin;
  const int least = paper ? paper_min : min_size, largest = paper ? paper_max : max_size;
  return !taken & ((flags & segment::kBorder) == 0) & ((degree >= 1) | (paper & saturated)) & (larger >= least) &
         (larger <= largest) & (difference < smaller);
}

// The regions that qualify as roots (qualifies_as_root), in region order, at most `limit`. Unlike
// reacTIVision (Q21) both colours qualify, and saturated squares, and blob tracking need not be on.
void find_root_candidates(const segment::RegionTree& tree, const std::vector<Fiducial>& fiducials, int min_size,
                          int max_size, std::vector<RootCandidate>& out, std::size_t limit = 1024);

// The size band of the next frame's root candidates (reacTIVision's object band) from the smallest
// and largest root size of this frame's valid symbols. One rule for RootCandidateFinder and the CUDA
// decoder, which keeps the band on the device.
struct RootSizeBand {
  int min_size = kFirstRootBandMin, max_size = kFirstRootBandMax;
};
GPUVIS_HD inline RootSizeBand next_root_band(int smallest, int largest) {
  return {static_cast<int>(smallest / 1.2), static_cast<int>(largest * 1.2)};
}

// The band after a frame whose first pass decoded `fiducials`: next_root_band of its valid
// symbols, or `band` unchanged where it has none. The CPU backend's band (RootCandidateFinder), and
// the second look's copy of the band both backends keep.
RootSizeBand band_after(const std::vector<Fiducial>& fiducials, RootSizeBand band);

// The root-candidate stage of the CPU backend (the CUDA decoder's stage 3 keeps the same band on
// the device): each frame's candidates in the band that the last frame with valid symbols set,
// which then moves on to this frame's symbols (band_after); the first band until then.
class RootCandidateFinder {
 public:
  void find(const segment::RegionTree& tree, const std::vector<Fiducial>& fiducials, std::vector<RootCandidate>& out);

 private:
  RootSizeBand band_;
};

}  // namespace gpuvis::decode

#pragma once
// Stage 3 of the tracker: amoeba fiducial decoding from the region tree (spec §4–§5, with the
// statistics defined soundly as in docs/decoding.md).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gpuvis/core/image.hpp"
#include "gpuvis/decode/tree_set.hpp"
#include "gpuvis/segment/region_tree.hpp"

namespace gpuvis::decode {

namespace cpu {
struct DecoderScratch;
struct SymbolOutcome;
}

struct Fiducial {
  int id = -1;          // fiducial ID, or -1 for a fuzzy candidate (a damaged symbol)
  double x = 0, y = 0;  // centre in pixels (weighted leaf centroids, sub-pixel)
  double angle = 0;     // radians in [0, 2π): reacTIVision's convention (y down, clockwise positive)
  int root = -1;        // region index of the symbol's root region
  int root_size = 0;    // max(width, height) of the root region's bounding box
  double root_x = 0, root_y = 0;  // the root region's centroid in pixels (root-region tracking, §6.5)
  std::uint8_t root_colour = 255;
  int leaves = 0;       // leaf regions used
  int gated_leaves = 0; // leaves larger than the size gate ((w-1)+(h-1) > 2)
  int leaf_begin = 0;   // this fiducial's leaves are Decoder::leaves()[leaf_begin .. leaf_begin + leaves)
  // Not decoded in this frame: a tracked print found by its appearance where the tracker expected
  // it (the second look); its ID and root are those of its last decoding, it has no leaves.
  bool followed = false;
  // Decoded with one leaf region restored (Decoder::set_repair_lost_leaf): the print's tree lacked
  // one leaf directly on its root. Its centre and angle are those of the leaves it has.
  bool repaired = false;
  bool fuzzy() const { return id < 0; }
};

// A leaf region of a decoded symbol with the weight its centroid has in the centre and angle.
struct LeafRef {
  int region;
  double weight;  // π (depth + 0.5)²
};

// What became of one candidate root (a region whose subtree has a symbol's height and size), for
// people finding out why a symbol was missed: Decoder::set_explain(true), gpuvis detect --debug.
// Regions nested like a symbol that never became candidates are reported too (candidate false),
// with the reason.
struct CandidateReport {
  int region = -1;
  bool candidate = true;
  int descendants = 0, height = 0;  // the root's in the region tree (height -1: not reached)
  int leaves = 0, gated_black = 0, gated_white = 0;  // leaves, and those above the size gate by colour
  std::string key;     // the subtree's key as tree files write it ("w0122..."); empty when the walk was cut off
  int id = -1;         // the symbol's ID, or -1
  bool fuzzy = false;  // reported as a fuzzy candidate (a damaged symbol)
  std::string reason;  // "decoded", or the gate that refused an ID
};

struct DecodeStats {
  int candidates = 0, valid = 0, fuzzy = 0, invalid = 0;
};

// Decodes every symbol in `tree`, which must have been segmented with cap = set.cap(). Valid
// fiducials come first in discovery order, then fuzzy candidates (which can update tracked objects
// but never create them). Per-region scratch lives in the Decoder and is reused between frames.
// The phases are the CUDA decoder's (src/decode/cpu, src/decode/cuda): 1. propagation from the
// leaves up finds the candidate roots; 2. each candidate's subtree gives its key, gates and pose
// (2b. a yamaarashi ring). Root candidates (3, RootCandidateFinder) and fingers and blobs (4,
// find_fingers_and_blobs) follow on the same tree.
class Decoder {
 public:
  explicit Decoder(TreeSet set);
  ~Decoder();
  Decoder(Decoder&&) noexcept;
  Decoder& operator=(Decoder&&) noexcept;
  const TreeSet& tree_set() const { return set_; }
  void decode(const segment::RegionTree& tree, std::vector<Fiducial>& out, DecodeStats* stats = nullptr);
  // The same with the frame's binary image, which yamaarashi symbols need (their ring of bits is
  // read there; TreeSet::yamaarashi). The tree must then hold its regions' runs.
  void decode(const segment::RegionTree& tree, HostView<const std::uint8_t> binary, std::vector<Fiducial>& out,
              DecodeStats* stats = nullptr);
  // The leaves of the last decode() call's fiducials (see Fiducial::leaf_begin).
  const std::vector<LeafRef>& leaves() const { return leaves_; }
  // With explain on, decode() also reports every candidate root and what became of it, then the
  // regions nested like a symbol that did not become candidates.
  void set_explain(bool on) { explain_ = on; }
  // With repair on, a candidate root one region short of the set's symbols whose key, with one
  // more leaf directly on the root, is a symbol's key decodes as that symbol (Fiducial::repaired).
  // Deblurring a print smeared over 7 px loses one region in most prints that do not decode, and
  // nearly always a lone leaf on the root: one of its small dots, merged into the region around
  // it. Off by default (reacTIVision decodes exact keys only); the second look turns it on for its
  // deblurred patches, whose reads it confirms by votes (docs/decoding.md).
  void set_repair_lost_leaf(bool on) { repair_ = on; }
  const std::vector<CandidateReport>& reports() const { return reports_; }

 private:
  // Adds what became of the candidate `root` to reports().
  void report(const segment::RegionTree& t, int root, const cpu::SymbolOutcome& symbol);
  TreeSet set_;
  std::unique_ptr<cpu::DecoderScratch> scratch_;  // the phases' per-region arrays (src/decode/cpu/phases.hpp)
  std::vector<LeafRef> leaves_;
  bool explain_ = false;
  bool repair_ = false;
  std::vector<CandidateReport> reports_;
};

}  // namespace gpuvis::decode

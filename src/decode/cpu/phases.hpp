#pragma once
// The CPU decoder's phases, the CUDA decoder's stages on the host (src/decode/cuda/decode_cuda.hpp):
//   1. propagate (propagate.cpp): from the clean leaves up in synchronous rounds, each region's
//      descendants and height; the regions with a symbol's height and size become candidate roots;
//   2. symbols (symbols.cpp): per candidate root, its subtree's canonical key and leaf sums, the
//      gates and the tree-set lookup, the centre and angle (2b: a yamaarashi ring, yamaarashi.cpp);
//   explain (explain.cpp): for `gpuvis detect --debug`, the regions nested like a symbol that never
//      became candidates, and why.
// Decoder::decode (decoder.cpp) runs them and collects the fiducials and reports.
#include <cstdint>
#include <string>
#include <vector>

#include "decode/rules.hpp"
#include "gpuvis/decode/fiducial.hpp"

namespace gpuvis::decode::cpu {

// Per-region arrays shared by the phases, reused from frame to frame.
struct DecoderScratch {
  std::vector<std::int32_t> desc, height, cvc, node_depth, visit_round, parent;
  std::vector<std::uint8_t> blocked, fuzzy_root;
  std::vector<std::int32_t> candidates, frontier, next;  // candidates: ascending region numbers
  std::vector<std::int32_t> found, chunk_counts;          // a round's candidates; per chunk, its counts
};

// Phase 1: fills desc, height, parent and visit_round of every region reached, and the candidate
// roots (fuzzy_root marks those with fewer descendants than any symbol).
void propagate(const segment::RegionTree& t, const TreeSet& set, DecoderScratch& s);

// What phase 2 made of one candidate root.
struct SymbolOutcome {
  enum class Kind { invalid, fuzzy, valid } kind = Kind::invalid;
  Fiducial fiducial;  // valid and fuzzy ones (id -1 for fuzzy)
  rules::LeafSums sums;
  std::string key;     // the subtree's key without its colour letter; empty when the walk left the tree
  // "decoded", or the gate that refused an ID; `and_few_leaves`: and too few leaves above the size
  // gate for a fuzzy candidate. (Text only, joined when explaining: the decoder does not allocate
  // for it.)
  const char* reason = "";
  bool and_few_leaves = false;
};

// Phase 2 for `root`: its leaves are appended to `leaves` (kept by the caller for valid and fuzzy
// symbols only). `binary` is read for yamaarashi rings. `repair`: Decoder::set_repair_lost_leaf.
SymbolOutcome read_symbol(const segment::RegionTree& t, HostView<const std::uint8_t> binary, const TreeSet& set, int root,
                          DecoderScratch& s, std::vector<LeafRef>& leaves, bool repair = false);

// The regions nested like a symbol that did not become candidates, with the reason (appended).
void explain_misses(const segment::RegionTree& t, const TreeSet& set, const DecoderScratch& s, std::vector<CandidateReport>& reports);

}  // namespace gpuvis::decode::cpu

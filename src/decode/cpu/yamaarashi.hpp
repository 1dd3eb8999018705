#pragma once
// Yamaarashi decoding on the CPU (spec §6.10, yamaarashi_rules.hpp): the ring of a candidate whose
// core looked up as w012211.
#include <cstdint>

#include "gpuvis/core/image.hpp"
#include "gpuvis/decode/fiducial.hpp"
#include "gpuvis/segment/region_tree.hpp"

namespace gpuvis::decode {

// Decodes the symbol whose core root is `root` in the frame's binary image: its ID (0-65535), or
// rules::kFuzzy when the ring does not check out, lies partly outside the frame or the root has
// no oriented box. Sets f's centre and angle (f holds the core's amoeba pose on entry).
// `visit_round` and `desc` are the decoder's propagation marks (a child is a traversed neighbour
// with fewer descendants). The tree must hold its regions' runs.
int decode_yamaarashi(const segment::RegionTree& tree, HostView<const std::uint8_t> binary, int root,
                      const std::int32_t* visit_round, const std::int32_t* desc, bool mirror, Fiducial& f);

}  // namespace gpuvis::decode

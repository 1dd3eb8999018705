// Run-based two-colour connected components with union-find, then region statistics, the §3.3
// adjacency pairs, saturation and the parent forest, all in flat arrays (docs/segmentation.md), in
// the CUDA segmenter's stages (phases.hpp).
#include "segment/cpu/segment.hpp"

#include "gpuvis/core/error.hpp"
#include "segment/cpu/phases.hpp"

namespace gpuvis::segment {

void segment_cpu(HostView<const std::uint8_t> binary, int cap, RegionTree& t, SegmentParams options) {
  require(binary.channels == 1, "segment: the binary frame must have one channel");
  check_image_shape(binary.width, binary.height, 1);
  require(cap >= 1, "segment: adjacency cap must be at least 1");
  t.width = binary.width;
  t.height = binary.height;
  t.cap = cap;
  static thread_local cpu::Scratch scratch;
  cpu::Scratch& s = scratch;
  const int nregions = cpu::label_runs(binary, s);
  const int npairs = cpu::number_and_measure(nregions, s);
  cpu::write_regions(nregions, binary.width, binary.height, s, t);
  cpu::write_runs(nregions, options.runs, s, t);
  cpu::build_adjacency(nregions, npairs, cap, s, t);  // finishing: adjacency lists and saturation
}

}  // namespace gpuvis::segment

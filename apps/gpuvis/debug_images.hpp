#pragma once
// gpuvis detect --debug DIR: one image per detection stage, as the AprilTag detector writes them,
// for people tuning light and settings: the binary frame, the regions, the candidates, the result.
#include <string>
#include <vector>

#include "gpuvis/core/image.hpp"
#include "gpuvis/decode/tree_set.hpp"
#include "gpuvis/pipeline/detector.hpp"

namespace gpuvis::cli {

// The files write_debug_images writes per frame, after DIR/STEM (the images with extension `ext`).
std::vector<std::string> debug_outputs(const std::string& ext);

// Writes DIR/STEM_1_threshold, _2_regions, _3_candidates, _4_detections (extension `ext`) and
// _5_candidates.txt from what the backend computed: `d` must come from a detector with the
// threshold and regions taps on (DetectorParams::taps), so the binary frame and regions are the
// CUDA backend's own on CUDA. The candidates are explained by decoding that tree again on the host
// (the decoders agree on every tree), so region indices match `d`'s. `set` is the tree set as the
// detector uses it (max_id, yamaarashi, mirror applied). Candidates (regions whose subtree has a
// symbol's height and size) are numbered in the image and listed in the text file with what
// became of each: decoded, or the gate that refused it.
void write_debug_images(const std::string& dir, const std::string& stem, const std::string& ext, HostView<const std::uint8_t> grey,
                        const decode::TreeSet& set, const pipeline::Detections& d);

}  // namespace gpuvis::cli

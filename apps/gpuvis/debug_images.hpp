#pragma once
// gpuvis detect --debug DIR: one image per detection stage, as the AprilTag detector writes them,
// for people tuning light and settings: the binary frame, the regions, the candidates, the result.
#include <string>

#include "gpuvis/core/image.hpp"
#include "gpuvis/pipeline/detector.hpp"

namespace gpuvis::cli {

// Writes DIR/STEM_1_threshold, _2_regions, _3_candidates and _4_detections (extension `ext`). The
// stages are recomputed on the CPU from `config`'s threshold; their results are those of either
// backend (the CUDA threshold and region tree equal the CPU's), so region indices match `d`'s.
// `cap` is the tree set's adjacency cap (decode::TreeSet::cap()), as the detector segments with it.
void write_debug_images(const std::string& dir, const std::string& stem, const std::string& ext, HostView<const std::uint8_t> grey,
                        const pipeline::DetectorConfig& config, int cap, const pipeline::Detections& d);

}  // namespace gpuvis::cli

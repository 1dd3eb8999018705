#pragma once
// The scene generator (gpuvis synth) as a frame source, for demos, latency measurements and tests
// without a camera.
#include <memory>
#include <string>

#include "gpuvis/source/frame_source.hpp"
#include "gpuvis/synth/scene.hpp"

namespace gpuvis::synth {

// One moving sequence of `params` (speed, spin), `count` frames, or endless (0), running forth and
// back so that symbols stay on the table.
std::unique_ptr<source::FrameSource> make_synth_source(const std::string& symbols_dir, const SceneParams& params, int count);

}  // namespace gpuvis::synth

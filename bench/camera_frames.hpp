#pragma once
// The frames of bench_detect's camera table, shared with the probes that explain its rows: frame
// `i` of a kind is 640x480 with 8 of the printed symbols 48-80 px wide (print sides 1.11 times
// that), its own seed; each kind then sets its effect on top.
#include <cstdint>

#include "gpuvis/synth/scene.hpp"

namespace gpuvis::bench {

inline synth::SceneParams camera_frame(int i) {
  synth::SceneParams q;
  q.symbols = 8;
  q.min_size = 48 * 1.11;
  q.max_size = 80 * 1.11;
  q.seed = 5000 + static_cast<std::uint32_t>(i) * 7919u;
  return q;
}

}  // namespace gpuvis::bench

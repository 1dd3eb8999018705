#pragma once
// Printable yamaarashi symbols (spec §6.10), drawn from their geometry instead of bundled prints:
// a white disc (the core's root) holding two black dots and a black blob with two white dots,
// inside a black ring with 24 spike positions, 16 data bits and 8 CRC bits (the decoder's rules,
// src/decode/yamaarashi_rules.hpp). Used by `gpuvis synth --set yamaarashi` and
// `gpuvis symbols --set yamaarashi`.
#include <cstdint>
#include <string>

#include "gpuvis/core/image.hpp"

namespace gpuvis::synth {

inline constexpr int kYamaarashiIds = 65536;

// One symbol's design in units of its core's radius: the core disc has radius 1 and is centred on
// (0, 0), y points down, the symbol is upright (angle 0). The print is the square
// [-kHalfSide, kHalfSide]² on white paper.
struct YamaarashiDesign {
  static constexpr double kHalfSide = 2.1;
  static constexpr double kRingOuter = 1.22;  // black ring around the core disc, from radius 1
  static constexpr double kSpikeOuter = 1.9;  // spikes reach from the ring to here
  static constexpr double kSpikeHalfWidth = 0.096;  // radians (5.5 degrees of the 7.5 between samples)
  unsigned spikes = 0;  // bit i * 4 + q set: the spike at sample (i, q) is printed

  explicit YamaarashiDesign(int id);
  // Whether point (u, v) of the design is black.
  bool black(double u, double v) const;
  // SVG elements drawing the design into the square at (x, y) of side `side` (any unit).
  std::string svg(double x, double y, double side) const;
};

// The print as an 8-bit grey image of `pixels` x `pixels` (white 255, black 0), anti-aliased by
// 4 x 4 supersampling.
Image<std::uint8_t> render_yamaarashi(int id, int pixels);

}  // namespace gpuvis::synth

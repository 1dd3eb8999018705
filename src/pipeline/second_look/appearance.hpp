#pragma once
// Following a tracked print by its appearance. A print smeared over a fifth of its size no longer
// decodes, deblurred or not, but the tracker knows which print it is, where it should be and how it
// moves, and the frame it last decoded in shows what it looks like. That picture, turned by the
// print's spin since and smeared along its motion, is searched for around the expected place by
// normalised cross-correlation; a close match is the print, moved (the second look, second_look.hpp).
#include <cstdint>

#include "gpuvis/core/image.hpp"
#include "gpuvis/decode/detections.hpp"

namespace gpuvis::pipeline::second_look {

// How a print looked when it last decoded.
struct Appearance {
  Image<float> grey;          // the frame around its root's centre, 1.5 root sizes and 4 px wide
  double cx = 0, cy = 0;      // the root's centre in `grey`
  decode::Fiducial symbol;    // that decoding, in frame pixels
  decode::Blob blob;          // its root's blob then (object blobs, spec §7.6), when measured
  double speed = 0;           // how fast it moved then, pixels per frame (its smear grows with it)
  // The smear taken out of a deblurred picture (Restoration): its direction (radians) and length.
  double smear_angle = 0, smear_length = 0;
  long frame = 0;             // the number of the frame it was taken from
};

// A patch of a frame with its motion blur taken out (the second look's deconvolution, which then
// decoded), and its corner in the frame.
struct Restoration {
  Image<float> grey;
  int x0 = 0, y0 = 0;
  double smear_angle = 0, smear_length = 0;  // the smear taken out: direction (radians) and pixels
};

// The appearance of `symbol`, decoded in `frame` (frame number `index`) while moving at `speed`
// pixels per frame; false when that picture is not wholly inside the frame. With `sharp`, the
// patch it decoded from after deblurring, the picture is that patch where it reaches (the frame
// beyond) and counts as still (speed 0): a print smeared when it decoded would otherwise carry its
// smear into every later match, along the direction it moved then and turned with the print's
// spin, where the frame smears it along its motion now.
bool capture(HostView<const std::uint8_t> frame, const decode::Fiducial& symbol, double speed, long index, Appearance& out,
             const Restoration* sharp = nullptr);

struct AppearanceMatch {
  double x = 0, y = 0;  // where the root's centre is now, frame pixels
  double turn = 0;      // how far the print turned since the appearance, radians
  double smear = 0;     // the smear along its motion added to the appearance, pixels
  double score = -1;    // normalised cross-correlation of the match, -1..1
};

// The best match of `a` in `frame` within reach of where `e` expects it: the appearance turned to
// the expected angle, smeared along (e.vx, e.vy) by a
// fraction 0, 1/3, 2/3 or 1 of the motion (the shutter's unknown share of the frame interval),
// or, where `e` has no motion yet (a print the tracker has just started) and the picture had a
// smear taken out, along that smear by as much, within reach of twice its length,
// searched over whole pixels, then to a tenth of a pixel. Where no match reaches `least_score`,
// the smear's direction is estimated from the frame there (estimate_motion) and searched too: a
// print that changed course is smeared along its new motion. Score -1 when no part of the reach
// lies in the frame.
AppearanceMatch find_appearance(HostView<const std::uint8_t> frame, const Appearance& a, const decode::ExpectedSymbol& e,
                                double least_score);

// The symbol a match stands for: a's decoding moved to the match and turned by it, marked followed;
// and its root's blob, moved and turned the same way.
decode::Fiducial followed_symbol(const Appearance& a, const AppearanceMatch& m);
decode::Blob followed_blob(const Appearance& a, const AppearanceMatch& m);

// Whether a print followed to `m` lies wholly in a frame of width x height: half its root's size
// (as when it decoded) and a pixel from the frame's edge, both its root's centre and its own, as a
// root must be to decode (a print leaving the frame is let go as it would be if it were sharp).
bool inside_frame(const Appearance& a, const AppearanceMatch& m, int width, int height);

}  // namespace gpuvis::pipeline::second_look

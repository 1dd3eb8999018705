#pragma once
// Dim prints on a dark table: a print whose ink is grey (worn, glossy, or an ink the infrared
// camera sees through) may be lighter than the table around it. Near the print's edge the
// threshold's window then holds the table, whose level pulls the local midpoint below the ink,
// and the symbol's outline merges with the paper. Painting the table out of the patch with the
// paper's level leaves the window paper and ink alone, and the outline comes back.
#include <cstdint>
#include <vector>

#include "gpuvis/core/image.hpp"

namespace gpuvis::pipeline::second_look {

// The table in a patch around a print: the black pixels of its thresholded image that reach the
// patch's border without crossing white, grown by `grow` pixels (the blurred edge between the
// table and the paper) and painted in `grey` with the level of the rest's brightest tenth (the
// paper). False, and nothing painted, when there is no table, nothing but table, or the pixel
// (print_x, print_y), where the print should be, is table: a candidate on the table itself (a
// piece of table beside a print, a hand) is no dim print, and its decoding would cost the most.
bool paint_out_table(HostView<const std::uint8_t> binary, HostView<std::uint8_t> grey, int print_x, int print_y, int grow = 2);

// `grey` smoothed in place by the 3x3 binomial filter (1 2 1 by 1 2 1, / 16, rounded; the border
// repeated), which leaves 0.375 of white noise's sigma. A dim print spans 30-80 grey levels
// between ink and paper; at noise sigma 3 its painted patch's threshold made specks of the paper
// and broke leaves, and a small print did not decode.
void smooth_binomial_3x3(HostView<std::uint8_t> grey);

}  // namespace gpuvis::pipeline::second_look

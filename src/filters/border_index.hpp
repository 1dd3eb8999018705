#pragma once
// filters::border_index: the border rule of border_rule.h for the C++ and CUDA filters.
#include "gpuvis/core/image.hpp"  // GPUVIS_HD
#include "gpuvis/filters/convolve.hpp"

#define GPUVIS_RULE GPUVIS_HD static inline
#include "filters/border_rule.h"
#undef GPUVIS_RULE

namespace gpuvis::filters {

static_assert(static_cast<int>(BorderMode::constant) == GPUVIS_BORDER_CONSTANT &&
                  static_cast<int>(BorderMode::replicate) == GPUVIS_BORDER_REPLICATE &&
                  static_cast<int>(BorderMode::reflect) == GPUVIS_BORDER_REFLECT &&
                  static_cast<int>(BorderMode::reflect101) == GPUVIS_BORDER_REFLECT101 && static_cast<int>(BorderMode::wrap) == GPUVIS_BORDER_WRAP,
              "border_rule.h numbers the modes as BorderMode");

// Maps a coordinate outside [0, n) into it according to the mode; -1 means "use the constant".
GPUVIS_HD inline int border_index(int i, int n, BorderMode mode) { return gpuvis_border_index(i, n, static_cast<int>(mode)); }

}  // namespace gpuvis::filters

#pragma once
// A filter's view of its input on the device: either a strip of staged rows (the vertical border
// already applied by mapping rows on the host, cuda::StripPipeline) or the whole image (the device
// API), and the source value at a global position with the border applied.
#include <cstddef>

#include "filters/convolve_common.hpp"
#include "gpuvis/core/image.hpp"

namespace gpuvis::filters {

// The staged strip: `rows` rows of the source, row r holding global row y0 - ry + r (mapped).
template <class T>
struct Strip {
  const T* data;
  std::size_t pitch;  // elements
  int width, channels, rows;
  int y0, ry, height;  // first output row, vertical radius, full image height
  bool map_rows;       // true: `data` is the whole image and rows are mapped here (device API)
};

// The strip of a host image that cuda::StripPipeline staged: `in` holds global rows y0 - halo on.
template <class T>
Strip<T> staged_strip(DeviceView<const T> in, int y0, int halo, int image_height) {
  return {in.data, static_cast<std::size_t>(in.stride) / sizeof(T), in.width, in.channels, in.height, y0, halo, image_height, false};
}

template <class T>
__device__ inline float strip_value(const Strip<T>& s, int gx, int gy, int ch, Border b) {
  // gy: global row; rows outside the image use the constant in constant mode, otherwise the
  // staged (already mapped) row.
  if (b.mode == BorderMode::constant && (gy < 0 || gy >= s.height)) return b.value;
  const int xx = border_index(gx, s.width, b.mode);
  if (xx < 0) return b.value;
  // Tiles at the end of a strip also load rows below it that no valid output uses; clamping keeps
  // those reads inside the staged rows.
  int local = s.map_rows ? border_index(gy, s.height, b.mode) : gy - (s.y0 - s.ry);
  local = local < s.rows ? local : s.rows - 1;
  return static_cast<float>(s.data[static_cast<std::size_t>(local) * s.pitch + static_cast<std::size_t>(xx) * s.channels + ch]);
}

}  // namespace gpuvis::filters

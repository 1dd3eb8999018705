#pragma once
// Reading a one-byte frame four pixels at a time, for the Bernsen kernels.
#include <cstdint>

#include "gpuvis/core/image.hpp"

namespace gpuvis::threshold::cuda_impl {

// Four source bytes starting at column x of row y (columns clamped to the image), packed little-endian.
__device__ inline unsigned load4(const DeviceView<const std::uint8_t>& src, int x, int y) {
  const std::uint8_t* row = src.row(y);
  if (x + 3 < src.width && (reinterpret_cast<std::uintptr_t>(row + x) & 3) == 0)
    return *reinterpret_cast<const unsigned*>(row + x);
  const int last = src.width - 1;
  return row[min(x, last)] | row[min(x + 1, last)] << 8 | row[min(x + 2, last)] << 16 |
         static_cast<unsigned>(row[min(x + 3, last)]) << 24;
}

}  // namespace gpuvis::threshold::cuda_impl

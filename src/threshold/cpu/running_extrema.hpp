#pragma once
// Running max and min over a window of fixed length k = 2h+1 with the van Herk / Gil-Werman
// algorithm: about three comparisons per element per extremum, whatever k is.
//
// The input is conceptually padded with h neutral elements on both sides (0 for max, 255 for min),
// which makes every window exactly k long and so handles the truncated windows at the image edge
// without special cases. The padded sequence is cut into blocks of k; the window starting at padded
// index y covers the suffix of block j that starts at y and the prefix of block j+1 that ends at
// y+2h. Only one block of suffix values is stored.
#include <algorithm>
#include <cstdint>
#include <vector>

namespace gpuvis::threshold::detail {

// Vector form: each "element" is a row of `lanes` bytes; `row(i)` returns padded row i (the pad rows
// are provided by the caller); `emit(y, max_row, min_row)` receives output y in [0, n). Scratch is
// reused between calls. Used for the vertical pass, vectorised across columns.
template <class RowMax, class RowMin, class Emit>
void running_extrema_rows(int n, int h, int lanes, RowMax&& row_max, RowMin&& row_min, Emit&& emit,
                          std::vector<std::uint8_t>& scratch) {
  const int k = 2 * h + 1;
  scratch.resize(static_cast<std::size_t>(lanes) * (2 * k + 4));
  std::uint8_t* smax = scratch.data();                         // k rows
  std::uint8_t* smin = smax + static_cast<std::size_t>(k) * lanes;  // k rows
  std::uint8_t* gmax = smin + static_cast<std::size_t>(k) * lanes;
  std::uint8_t* gmin = gmax + lanes;
  std::uint8_t* omax = gmin + lanes;
  std::uint8_t* omin = omax + lanes;
  for (int b = 0; b < n; b += k) {
    // Suffix extrema of block j = padded rows [b, b+k).
    {
      const std::uint8_t* a = row_max(b + k - 1);
      const std::uint8_t* c = row_min(b + k - 1);
      std::copy_n(a, lanes, smax + static_cast<std::size_t>(k - 1) * lanes);
      std::copy_n(c, lanes, smin + static_cast<std::size_t>(k - 1) * lanes);
    }
    for (int r = k - 2; r >= 0; --r) {
      const std::uint8_t* a = row_max(b + r);
      const std::uint8_t* c = row_min(b + r);
      std::uint8_t* sm = smax + static_cast<std::size_t>(r) * lanes;
      std::uint8_t* sn = smin + static_cast<std::size_t>(r) * lanes;
      const std::uint8_t* sm1 = sm + lanes;
      const std::uint8_t* sn1 = sn + lanes;
      for (int i = 0; i < lanes; ++i) {
        sm[i] = std::max(a[i], sm1[i]);
        sn[i] = std::min(c[i], sn1[i]);
      }
    }
    emit(b, smax, smin);  // the window starting at b is exactly block j
    // Prefix extrema of block j+1 complete the windows starting at b+1 .. b+k-1.
    for (int t = 0; t < k - 1 && b + t + 1 < n; ++t) {
      const std::uint8_t* a = row_max(b + k + t);
      const std::uint8_t* c = row_min(b + k + t);
      const std::uint8_t* sm = smax + static_cast<std::size_t>(t + 1) * lanes;
      const std::uint8_t* sn = smin + static_cast<std::size_t>(t + 1) * lanes;
      if (t == 0) {
        std::copy_n(a, lanes, gmax);
        std::copy_n(c, lanes, gmin);
      } else {
        for (int i = 0; i < lanes; ++i) {
          gmax[i] = std::max(gmax[i], a[i]);
          gmin[i] = std::min(gmin[i], c[i]);
        }
      }
      for (int i = 0; i < lanes; ++i) {
        omax[i] = std::max(sm[i], gmax[i]);
        omin[i] = std::min(sn[i], gmin[i]);
      }
      emit(b + t + 1, omax, omin);
    }
  }
}

// One line of n values (by doubling, see the .cpp): out_max[x] = max of in_max over the window [x-h, x+h]
// truncated to [0, n), out_min[x] likewise the min of in_min. `pad` is scratch, reused between calls.
void running_extrema_line(const std::uint8_t* in_max, const std::uint8_t* in_min, int n, int h,
                          std::uint8_t* out_max, std::uint8_t* out_min, std::vector<std::uint8_t>& pad);

}  // namespace gpuvis::threshold::detail

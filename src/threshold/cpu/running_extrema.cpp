#include "running_extrema.hpp"

namespace gpuvis::threshold::detail {

void running_extrema_line(const std::uint8_t* in_max, const std::uint8_t* in_min, int n, int h,
                          std::uint8_t* out_max, std::uint8_t* out_min, std::vector<std::uint8_t>& pad) {
  const int k = 2 * h + 1;
  // Padded copies (neutral values outside), rounded up to whole blocks so no index is clipped.
  const int len = ((n + 2 * h) / k + 2) * k;
  pad.resize(static_cast<std::size_t>(len) * 4);
  std::uint8_t* pmax = pad.data();
  std::uint8_t* pmin = pmax + len;
  std::uint8_t* smax = pmin + len;
  std::uint8_t* smin = smax + len;
  std::fill_n(pmax, len, std::uint8_t{0});
  std::fill_n(pmin, len, std::uint8_t{255});
  std::copy_n(in_max, n, pmax + h);
  std::copy_n(in_min, n, pmin + h);
  // Suffix extrema within each block.
  for (int b = 0; b < len; b += k) {
    smax[b + k - 1] = pmax[b + k - 1];
    smin[b + k - 1] = pmin[b + k - 1];
    for (int i = b + k - 2; i >= b; --i) {
      smax[i] = std::max(pmax[i], smax[i + 1]);
      smin[i] = std::min(pmin[i], smin[i + 1]);
    }
  }
  // Prefix extrema within each block, combined on the fly: window x = [x, x+2h] in padded indices.
  std::uint8_t gmax = 0, gmin = 255;
  for (int i = 0; i < n + 2 * h; ++i) {
    if (i % k == 0) {
      gmax = pmax[i];
      gmin = pmin[i];
    } else {
      gmax = std::max(gmax, pmax[i]);
      gmin = std::min(gmin, pmin[i]);
    }
    const int x = i - 2 * h;
    if (x >= 0) {
      out_max[x] = std::max(smax[x], gmax);
      out_min[x] = std::min(smin[x], gmin);
    }
  }
}

}  // namespace gpuvis::threshold::detail

#include "running_extrema.hpp"

namespace gpuvis::threshold::detail {

// Same block structure as running_extrema_rows, one lane: suffix extrema of a block, then the
// prefix extrema of the next block complete the windows that straddle them. The inner loops have
// no division and no branches; max and min are interleaved so their dependency chains overlap.
void running_extrema_line(const std::uint8_t* in_max, const std::uint8_t* in_min, int n, int h,
                          std::uint8_t* out_max, std::uint8_t* out_min, std::vector<std::uint8_t>& pad) {
  const int k = 2 * h + 1;
  const int len = n + 2 * h + k;  // padded input, long enough that no block is clipped
  pad.resize(static_cast<std::size_t>(len) * 2 + static_cast<std::size_t>(k) * 2);
  std::uint8_t* pmax = pad.data();
  std::uint8_t* pmin = pmax + len;
  std::uint8_t* smax = pmin + len;
  std::uint8_t* smin = smax + k;
  std::fill_n(pmax, h, std::uint8_t{0});
  std::fill_n(pmin, h, std::uint8_t{255});
  std::copy_n(in_max, n, pmax + h);
  std::copy_n(in_min, n, pmin + h);
  std::fill(pmax + h + n, pmax + len, std::uint8_t{0});
  std::fill(pmin + h + n, pmin + len, std::uint8_t{255});
  for (int b = 0; b < n; b += k) {
    const std::uint8_t* bmax = pmax + b;
    const std::uint8_t* bmin = pmin + b;
    std::uint8_t am = bmax[k - 1], an = bmin[k - 1];
    smax[k - 1] = am;
    smin[k - 1] = an;
    for (int r = k - 2; r >= 0; --r) {
      am = std::max(am, bmax[r]);
      an = std::min(an, bmin[r]);
      smax[r] = am;
      smin[r] = an;
    }
    out_max[b] = am;
    out_min[b] = an;
    const int m = std::min(k - 1, n - 1 - b);
    const std::uint8_t* nmax = bmax + k;
    const std::uint8_t* nmin = bmin + k;
    std::uint8_t gm = 0, gn = 255;
    for (int t = 0; t < m; ++t) {
      gm = std::max(gm, nmax[t]);
      gn = std::min(gn, nmin[t]);
      out_max[b + t + 1] = std::max(smax[t + 1], gm);
      out_min[b + t + 1] = std::min(smin[t + 1], gn);
    }
  }
}

}  // namespace gpuvis::threshold::detail

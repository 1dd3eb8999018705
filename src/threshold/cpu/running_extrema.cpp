#include "threshold/cpu/running_extrema.hpp"

namespace gpuvis::threshold::detail {

namespace {
// a[i] = max(a[i], a[i + span]) (min for kMax = false) for i in [0, n): in place, reading ahead of
// what it writes, so each a[i] becomes the extremum of a[i .. i + 2·span) of the previous span's
// values. Plain loops the compiler vectorises (byte max/min).
template <bool kMax>
void widen(std::uint8_t* a, int n, int span) {
  for (int i = 0; i < n; ++i) a[i] = kMax ? std::max(a[i], a[i + span]) : std::min(a[i], a[i + span]);
}
}  // namespace

// By doubling: after log2(p) passes (p the largest power of two <= k) each padded element holds the
// extremum of the p elements from it on, and a window of k is two such runs that overlap:
// [x, x + p) and [x + k - p, x + k). Every pass runs along the whole line as vector operations,
// where van Herk's running extremum along a line is one dependent chain of scalar steps; measured
// 4-8x faster for the windows the tracker uses (docs/benchmarks/threshold.md).
void running_extrema_line(const std::uint8_t* in_max, const std::uint8_t* in_min, int n, int h,
                          std::uint8_t* out_max, std::uint8_t* out_min, std::vector<std::uint8_t>& pad) {
  const int k = 2 * h + 1;
  int p = 1;
  while (2 * p <= k) p *= 2;
  const int len = n + 2 * h + p;  // padded input; the passes read up to p - 1 beyond n + 2h
  pad.resize(static_cast<std::size_t>(len) * 2);
  std::uint8_t* pmax = pad.data();
  std::uint8_t* pmin = pmax + len;
  std::fill_n(pmax, h, std::uint8_t{0});
  std::fill_n(pmin, h, std::uint8_t{255});
  std::copy_n(in_max, n, pmax + h);
  std::copy_n(in_min, n, pmin + h);
  std::fill(pmax + h + n, pmax + len, std::uint8_t{0});
  std::fill(pmin + h + n, pmin + len, std::uint8_t{255});
  int valid = len;  // elements whose run is still inside the padded line
  for (int span = 1; span < p; span *= 2) {
    valid -= span;
    widen<true>(pmax, valid, span);
    widen<false>(pmin, valid, span);
  }
  const std::uint8_t* far_max = pmax + (k - p);
  const std::uint8_t* far_min = pmin + (k - p);
  for (int x = 0; x < n; ++x) {
    out_max[x] = std::max(pmax[x], far_max[x]);
    out_min[x] = std::min(pmin[x], far_min[x]);
  }
}

}  // namespace gpuvis::threshold::detail

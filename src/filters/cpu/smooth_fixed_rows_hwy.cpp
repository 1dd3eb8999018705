// Fixed-point smoothing rows (smooth_fixed_rows.hpp) with Google Highway: 16-bit lanes, twice as
// many as a float vector holds, one pmulhuw-like MulHigh and two adds per pair of taps. Compiled
// once per x86 vector target, the best one the running CPU supports chosen at the first call
// (filters/cpu/hwy_targets.hpp). Integer arithmetic: every lane computes the scalar rule's value.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "filters/cpu/smooth_fixed_rows_hwy.cpp"
#include "hwy/foreach_target.h"  // re-includes this file once per target

#include <cstdint>

#include "hwy/highway.h"

#include "filters/cpu/hwy_targets.hpp"
#include "filters/cpu/smooth_fixed_rows.hpp"

HWY_BEFORE_NAMESPACE();
namespace gpuvis::filters::fixed_rows::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void ToSamples(const std::uint8_t* src, std::size_t n, std::uint16_t* dst) {
  const hn::ScalableTag<std::uint16_t> d;
  const hn::Rebind<std::uint8_t, decltype(d)> d8;
  const std::size_t N = hn::Lanes(d);
  std::size_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(hn::ShiftLeft<GPUVIS_SMOOTH_FRACTION_BITS>(hn::PromoteTo(d, hn::LoadU(d8, src + i))), d, dst + i);
  scalar::to_samples(src + i, n - i, dst + i);
}

// Four vectors of outputs at a time: independent sums, so the adds of one tap do not wait for
// the last; `sample(k, i)` is vector i's pair (or centre) sum at offset k.
template <class D, class Sample, class Store>
HWY_INLINE void Pass4(D d, const std::uint16_t* w, int m, Sample&& sample, Store&& store) {
  const auto bias = hn::Set(d, static_cast<std::uint16_t>(gpuvis_smooth_bias(m)));
  const auto w0 = hn::Set(d, w[0]);
  auto a0 = hn::Add(bias, hn::MulHigh(sample(0, 0), w0)), a1 = hn::Add(bias, hn::MulHigh(sample(0, 1), w0));
  auto a2 = hn::Add(bias, hn::MulHigh(sample(0, 2), w0)), a3 = hn::Add(bias, hn::MulHigh(sample(0, 3), w0));
  for (int k = 1; k <= m; ++k) {
    const auto wk = hn::Set(d, w[k]);
    a0 = hn::Add(a0, hn::MulHigh(sample(k, 0), wk));
    a1 = hn::Add(a1, hn::MulHigh(sample(k, 1), wk));
    a2 = hn::Add(a2, hn::MulHigh(sample(k, 2), wk));
    a3 = hn::Add(a3, hn::MulHigh(sample(k, 3), wk));
  }
  store(0, a0), store(1, a1), store(2, a2), store(3, a3);
}

void RowPass(const std::uint16_t* centre, std::ptrdiff_t step, const std::uint16_t* w, int m, std::size_t n, std::uint16_t* out) {
  const hn::ScalableTag<std::uint16_t> d;
  const std::size_t N = hn::Lanes(d);
  std::size_t x = 0;
  for (; x + 4 * N <= n; x += 4 * N) {
    const std::uint16_t* c = centre + x;
    auto sample = [&](int k, std::size_t i) {
      if (k == 0) return hn::LoadU(d, c + i * N);
      return hn::Add(hn::LoadU(d, c + i * N - k * step), hn::LoadU(d, c + i * N + k * step));
    };
    Pass4(d, w, m, sample, [&](std::size_t i, auto v) { hn::StoreU(v, d, out + x + i * N); });
  }
  scalar::row_pass(centre, step, w, m, x, n, out);
}

void ColumnPass(const std::uint16_t* const* rows, const std::uint16_t* w, int m, std::size_t n, std::uint8_t* out) {
  const hn::ScalableTag<std::uint16_t> d;
  const hn::RebindToSigned<decltype(d)> di;
  const hn::Rebind<std::uint8_t, decltype(di)> d8;
  const std::size_t N = hn::Lanes(d);
  const auto half = hn::Set(d, static_cast<std::uint16_t>(1u << (GPUVIS_SMOOTH_FRACTION_BITS - 1)));
  std::size_t x = 0;
  for (; x + 4 * N <= n; x += 4 * N) {
    auto sample = [&](int k, std::size_t i) {
      const std::size_t at = x + i * N;
      if (k == 0) return hn::LoadU(d, rows[m] + at);
      return hn::Add(hn::LoadU(d, rows[m - k] + at), hn::LoadU(d, rows[m + k] + at));
    };
    // Rounded to grey levels (at most 256 here: a signed 16-bit value), narrowed with saturation.
    auto store = [&](std::size_t i, auto v) {
      const auto grey = hn::ShiftRight<GPUVIS_SMOOTH_FRACTION_BITS>(hn::Add(v, half));
      hn::StoreU(hn::DemoteTo(d8, hn::BitCast(di, grey)), d8, out + x + i * N);
    };
    Pass4(d, w, m, sample, store);
  }
  scalar::column_pass(rows, w, m, x, n, out);
}

}  // namespace gpuvis::filters::fixed_rows::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gpuvis::filters::fixed_rows {
namespace {

struct Target {
  decltype(&HWY_STATIC_DISPATCH(ToSamples)) to_samples;
  decltype(&HWY_STATIC_DISPATCH(RowPass)) row_pass;
  decltype(&HWY_STATIC_DISPATCH(ColumnPass)) column_pass;
  const char* name;
};
#define GPUVIS_TARGET(NS, NAME) \
  Target { &NS::ToSamples, &NS::RowPass, &NS::ColumnPass, NAME }

// The best compiled target the running CPU supports, chosen once.
const Target& chosen() {
  static const Target best = []() -> Target {
#if HWY_ARCH_X86
    using namespace cpu_targets;
#if HWY_TARGETS & HWY_AVX3
    if (has_avx3()) return GPUVIS_TARGET(N_AVX3, "highway AVX3");
#endif
#if HWY_TARGETS & HWY_AVX2
    if (has_avx2()) return GPUVIS_TARGET(N_AVX2, "highway AVX2");
#endif
#if HWY_TARGETS & HWY_SSE4
    if (has_sse4()) return GPUVIS_TARGET(N_SSE4, "highway SSE4");
#endif
#if HWY_TARGETS & HWY_SSSE3
    if (has_ssse3()) return GPUVIS_TARGET(N_SSSE3, "highway SSSE3");
#endif
#endif
    return Target{&HWY_STATIC_DISPATCH(ToSamples), &HWY_STATIC_DISPATCH(RowPass), &HWY_STATIC_DISPATCH(ColumnPass),
                  hwy::TargetName(HWY_STATIC_TARGET)};
  }();
  return best;
}
#undef GPUVIS_TARGET

}  // namespace

void to_samples(const std::uint8_t* src, std::size_t n, std::uint16_t* dst) { chosen().to_samples(src, n, dst); }
void row_pass(const std::uint16_t* centre, std::ptrdiff_t step, const std::uint16_t* w, int m, std::size_t n, std::uint16_t* out) {
  chosen().row_pass(centre, step, w, m, n, out);
}
void column_pass(const std::uint16_t* const* rows, const std::uint16_t* w, int m, std::size_t n, std::uint8_t* out) {
  chosen().column_pass(rows, w, m, n, out);
}
const char* implementation() { return chosen().name; }

}  // namespace gpuvis::filters::fixed_rows
#endif  // HWY_ONCE

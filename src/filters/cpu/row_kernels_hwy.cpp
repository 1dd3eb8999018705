// The row kernels with Google Highway: compiled once per x86 vector target that Highway knows, the
// best one the running CPU supports chosen at the first call. Vectors run along the row, so each
// lane is one output element and the taps' order within a lane is the scalar one.
//
// Highway is used from its headers only: the choice of target is made here (kernels(), from the
// CPU's feature flags, filters/cpu/hwy_targets.hpp).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "filters/cpu/row_kernels_hwy.cpp"
#include "hwy/foreach_target.h"  // re-includes this file once per target

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <limits>
#include <vector>
#include <string>

#include "hwy/highway.h"

#include "filters/bilateral_rules.hpp"
#include "filters/cpu/hwy_targets.hpp"
#include "filters/cpu/row_kernels_scalar.hpp"

HWY_BEFORE_NAMESPACE();
namespace gpuvis::filters::cpu_rows::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Outputs x .. x + 8N - 1 of correlate(): eight vectors of outputs stay in registers across all
// the taps, eight independent sums, enough to keep two fused multiply-add units busy.
template <class D>
HWY_INLINE void CorrelateBlock8(D d, const float* const* taps, const float* weights, int tap_count, std::size_t x, float* out) {
  const std::size_t N = hn::Lanes(d);
  auto a0 = hn::Zero(d), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
  for (int t = 0; t < tap_count; ++t) {
    const auto w = hn::Set(d, weights[t]);
    const float* p = taps[t] + x;
    a0 = hn::MulAdd(w, hn::LoadU(d, p), a0);
    a1 = hn::MulAdd(w, hn::LoadU(d, p + N), a1);
    a2 = hn::MulAdd(w, hn::LoadU(d, p + 2 * N), a2);
    a3 = hn::MulAdd(w, hn::LoadU(d, p + 3 * N), a3);
    a4 = hn::MulAdd(w, hn::LoadU(d, p + 4 * N), a4);
    a5 = hn::MulAdd(w, hn::LoadU(d, p + 5 * N), a5);
    a6 = hn::MulAdd(w, hn::LoadU(d, p + 6 * N), a6);
    a7 = hn::MulAdd(w, hn::LoadU(d, p + 7 * N), a7);
  }
  hn::StoreU(a0, d, out + x), hn::StoreU(a1, d, out + x + N), hn::StoreU(a2, d, out + x + 2 * N), hn::StoreU(a3, d, out + x + 3 * N);
  hn::StoreU(a4, d, out + x + 4 * N), hn::StoreU(a5, d, out + x + 5 * N), hn::StoreU(a6, d, out + x + 6 * N), hn::StoreU(a7, d, out + x + 7 * N);
}

// Outputs x0 .. n - 1 of correlate().
HWY_INLINE void CorrelateFrom(const float* const* taps, const float* weights, int tap_count, std::size_t x0, std::size_t n, float* out) {
  const hn::ScalableTag<float> d;
  const std::size_t N = hn::Lanes(d);
  std::size_t x = x0;
  for (; x + 8 * N <= n; x += 8 * N) CorrelateBlock8(d, taps, weights, tap_count, x, out);
  for (; x + N <= n; x += N) {
    auto a = hn::Zero(d);
    for (int t = 0; t < tap_count; ++t) a = hn::MulAdd(hn::Set(d, weights[t]), hn::LoadU(d, taps[t] + x), a);
    hn::StoreU(a, d, out + x);
  }
  // The last outputs with one-lane vectors of this target, so that every output is the same
  // multiply-add sequence wherever it falls in the row (a scalar tail would round differently
  // where the vectors fuse), and images cut into tiles (Dask) give the whole image's values.
  const hn::CappedTag<float, 1> d1;
  for (; x < n; ++x) {
    auto a = hn::Zero(d1);
    for (int t = 0; t < tap_count; ++t) a = hn::MulAdd(hn::Set(d1, weights[t]), hn::LoadU(d1, taps[t] + x), a);
    hn::StoreU(a, d1, out + x);
  }
}

void Correlate(const float* const* taps, const float* weights, int tap_count, std::size_t n, float* out) {
  CorrelateFrom(taps, weights, tap_count, 0, n, out);
}

// One input vector of correlate_rows(): where it starts (an input row at a kernel column's offset)
// and its weight in each output row j of the call (bit j of `rows` set where it is a tap of j).
static_assert(kRowsAtOnce == 4, "CorrelateRowsBlock keeps four output rows");
struct RowTap {
  const float* src;
  float weight[kRowsAtOnce];
  unsigned rows;
};

// Outputs x .. x + 2N - 1 of up to four output rows: each input vector is loaded once and
// multiplied into every output row it is a tap of, eight independent sums (enough to keep two
// fused multiply-add units busy). For each output the taps come in the order of `taps`, which is
// by input row, then kernel column, as correlate()'s.
template <class D>
HWY_INLINE void CorrelateRowsBlock(D d, const RowTap* taps, std::size_t tap_count, std::size_t x, float* const* out, int count) {
  const std::size_t N = hn::Lanes(d);
  auto a00 = hn::Zero(d), a01 = a00, a10 = a00, a11 = a00, a20 = a00, a21 = a00, a30 = a00, a31 = a00;
  for (std::size_t t = 0; t < tap_count; ++t) {
    const RowTap& tap = taps[t];
    const auto v0 = hn::LoadU(d, tap.src + x), v1 = hn::LoadU(d, tap.src + x + N);
    auto add = [&](int j, auto& s0, auto& s1) {
      const auto w = hn::Set(d, tap.weight[j]);
      s0 = hn::MulAdd(w, v0, s0);
      s1 = hn::MulAdd(w, v1, s1);
    };
    if (tap.rows == 0xF) {
      add(0, a00, a01), add(1, a10, a11), add(2, a20, a21), add(3, a30, a31);
    } else {
      if (tap.rows & 1) add(0, a00, a01);
      if (tap.rows & 2) add(1, a10, a11);
      if (tap.rows & 4) add(2, a20, a21);
      if (tap.rows & 8) add(3, a30, a31);
    }
  }
  hn::StoreU(a00, d, out[0] + x), hn::StoreU(a01, d, out[0] + x + N);
  if (count > 1) hn::StoreU(a10, d, out[1] + x), hn::StoreU(a11, d, out[1] + x + N);
  if (count > 2) hn::StoreU(a20, d, out[2] + x), hn::StoreU(a21, d, out[2] + x + N);
  if (count > 3) hn::StoreU(a30, d, out[3] + x), hn::StoreU(a31, d, out[3] + x + N);
}

// Several output rows at once. Each (input row, kernel column) pair is one RowTap, loaded once per
// block of x for all the output rows it serves: a 13-row column pass over four output rows loads
// 16 vectors per block instead of 52. Per output, the taps and their order are correlate()'s.
void CorrelateRows(const float* const* rows, const float* weights, int kernel_rows, int kernel_cols, const std::ptrdiff_t* offsets, int count,
                   std::size_t n, float* const* out) {
  const hn::ScalableTag<float> d;
  const std::size_t N = hn::Lanes(d);
  static thread_local std::vector<const float*> pointers;
  static thread_local std::vector<float> tap_weights;
  std::size_t x = 0;
  if (count == 1) {  // no other output row shares its loads (a separable filter's horizontal pass)
    pointers.clear();
    tap_weights.clear();
    append_row_taps(rows, weights, kernel_rows, kernel_cols, offsets, 0, pointers, &tap_weights);
    CorrelateFrom(pointers.data(), tap_weights.data(), static_cast<int>(tap_weights.size()), 0, n, out[0]);
    return;
  }
  static thread_local std::vector<RowTap> row_taps;
  row_taps.clear();
  for (int i = 0; i < kernel_rows + count - 1; ++i)
    for (int o = 0; o < kernel_cols; ++o) {
      RowTap tap{rows[i] + offsets[o], {}, 0};
      for (int j = std::max(0, i - kernel_rows + 1); j <= std::min(count - 1, i); ++j)
        if (const float w = weights[(i - j) * kernel_cols + o]; w != 0.0f) tap.weight[j] = w, tap.rows |= 1u << j;
      if (tap.rows != 0) row_taps.push_back(tap);
    }
  for (; x + 2 * N <= n; x += 2 * N) CorrelateRowsBlock(d, row_taps.data(), row_taps.size(), x, out, count);
  for (int j = 0; j < count; ++j) {  // the rest, one output row at a time
    pointers.clear();
    tap_weights.clear();
    append_row_taps(rows, weights, kernel_rows, kernel_cols, offsets, j, pointers, &tap_weights);
    CorrelateFrom(pointers.data(), tap_weights.data(), static_cast<int>(tap_weights.size()), x, n, out[j]);
  }
}

// detail::weight_exp (../bilateral_rules.hpp) on a vector, operation for operation, so that each
// lane's weight is the scalar's and the CUDA kernel's to the last bit (this file is built without
// FMA contraction).
template <class D, class V>
HWY_INLINE V WeightExp(D d, V x) {
  using K = detail::WeightExpConstants;
  const hn::RebindToSigned<D> di;
  x = hn::Max(x, hn::Set(d, K::kMin));
  const auto n = hn::Round(hn::Mul(x, hn::Set(d, K::kLog2e)));
  const auto r = hn::Sub(hn::Sub(x, hn::Mul(n, hn::Set(d, K::kLn2Hi))), hn::Mul(n, hn::Set(d, K::kLn2Lo)));
  auto p = hn::Set(d, K::kC6);
  p = hn::Add(hn::Mul(p, r), hn::Set(d, K::kC5));
  p = hn::Add(hn::Mul(p, r), hn::Set(d, K::kC4));
  p = hn::Add(hn::Mul(p, r), hn::Set(d, K::kC3));
  p = hn::Add(hn::Mul(p, r), hn::Set(d, K::kC2));
  p = hn::Add(hn::Mul(p, r), hn::Set(d, 1.0f));
  p = hn::Add(hn::Mul(p, r), hn::Set(d, 1.0f));
  const auto scale = hn::BitCast(d, hn::ShiftLeft<23>(hn::Add(hn::ConvertTo(di, n), hn::Set(di, 127))));
  return hn::Mul(p, scale);
}

// C channels; kPerChannel: each channel weighs by its own difference (so does grey); kL1: (Σ|d|)²
// for colour. A tap's weight is its spatial weight times WeightExp(d² · range_coeff); computing it
// beat gathering from a table of the 760 KB of colour distances on every CPU measured
// (docs/benchmarks/filters.md). Products and sums are not fused, as in the scalar loops and the
// CUDA kernel.
// kLookup (per-channel 8-bit rows with r.abs_table): the range weight is found by |d| in the table
// instead of computed, gathered (kGather) or from registers (kRegisters, AbsTableInRegisters); the
// table holds the computed values, so the result is the same.
constexpr int kCompute = 0, kGather = 1, kRegisters = 2;

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
constexpr bool kHaveRegisterTable = true;
// The 256 floats of abs_table in sixteen 16-lane registers. A lookup is eight two-table permutes
// (each covers 32 entries by the index's low five bits) and seven selects by its bits 5-7: about
// 18 register operations instead of a 16-lane gather (on an AMD EPYC the grey filter took 70 ms
// this way, 142 ms gathering; on an H100 host's Xeon the two tie, docs/benchmarks/filters.md).
// Highway 1.0.3 has no two-table lookup (TwoTablesLookupLanes came in 1.1), so the permute is the
// AVX-512 intrinsic.
struct AbsTableInRegisters {
  hn::Vec512<float> t[16];
  explicit AbsTableInRegisters(const float* table) {
    const hn::Full512<float> d;
    for (int i = 0; i < 16; ++i) t[i] = hn::LoadU(d, table + 16 * i);
  }
  HWY_INLINE hn::Vec512<float> operator()(hn::Vec512<std::int32_t> index) const {
    const hn::Full512<float> d;
    const hn::Full512<std::int32_t> di;
    auto pair = [&](int i) { return hn::Vec512<float>{_mm512_permutex2var_ps(t[2 * i].raw, index.raw, t[2 * i + 1].raw)}; };
    auto bit = [&](int b) { return hn::RebindMask(d, hn::TestBit(index, hn::Set(di, 1 << b))); };
    const auto b5 = bit(5), b6 = bit(6), b7 = bit(7);
    const auto q0 = hn::IfThenElse(b5, pair(1), pair(0)), q1 = hn::IfThenElse(b5, pair(3), pair(2));
    const auto q2 = hn::IfThenElse(b5, pair(5), pair(4)), q3 = hn::IfThenElse(b5, pair(7), pair(6));
    return hn::IfThenElse(b7, hn::IfThenElse(b6, q3, q2), hn::IfThenElse(b6, q1, q0));
  }
};
#else
constexpr bool kHaveRegisterTable = false;
#endif

// One tap of a row as BilateralRows walks it: where its neighbours start in each channel's plane
// (the tap's offset folded in), its spatial weight, and its stored or reused weights (null: none).
// Built once per row, so the loop over the taps of each vector of pixels reads one small record
// per tap instead of six arrays and the row's fields, and does no address arithmetic of its own.
struct BilateralTap {
  const float* planes[4];
  float space;
  const float* reuse;
  float* store;
};

template <int C, bool kPerChannel, bool kL1, int kLookup = kCompute>
HWY_INLINE void BilateralRows(const BilateralRow& r, int width, float* out) {
  const hn::ScalableTag<float> d;
  const hn::RebindToSigned<decltype(d)> di;
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
  const auto table_in_registers = [&] {
    if constexpr (kLookup == kRegisters) return AbsTableInRegisters(r.abs_table);
    else return 0;  // not used
  }();
#endif
  const auto coeff = hn::Set(d, r.range_coeff);
  const int N = static_cast<int>(hn::Lanes(d));
  constexpr int kCompared = C == 4 ? 3 : C;
  const float* const* centre_rows = r.rows + r.radius * C;
  auto load = [&](const float* const* planes, int c, std::size_t at) {
    return C > c ? hn::LoadU(d, planes[c] + at) : hn::Zero(d);
  };
  static thread_local std::vector<BilateralTap> taps;
  taps.resize(static_cast<std::size_t>(r.tap_count));
  for (int t = 0; t < r.tap_count; ++t) {
    BilateralTap& tap = taps[static_cast<std::size_t>(t)];
    const float* const* row = r.rows + (r.tap_dy[t] + r.radius) * C;
    const std::ptrdiff_t offset = r.radius + r.tap_dx[t];
    for (int c = 0; c < 4; ++c) tap.planes[c] = c < C ? row[c] + offset : nullptr;
    tap.space = r.tap_weight[t];
    tap.reuse = r.reuse && r.reuse[t] ? r.reuse[t] + r.tap_dx[t] : nullptr;
    tap.store = r.store ? r.store[t] : nullptr;
  }
  // Pixels in whole vectors: those whose weights are stored for later rows (BilateralRow::store).
  const int body = width - width % N;
  int x = 0;
  for (; x + N <= width; x += N) {
    const std::size_t at = static_cast<std::size_t>(x + r.radius), a = static_cast<std::size_t>(x);  // centre, taps
    const auto c0 = load(centre_rows, 0, at), c1 = load(centre_rows, 1, at), c2 = load(centre_rows, 2, at),
               c3 = load(centre_rows, 3, at);
    auto s0 = hn::Zero(d), s1 = s0, s2 = s0, s3 = s0, w0 = s0, w1 = s0, w2 = s0, w3 = s0;
    // Stored weights cover pixels [0, body): these pixels' taps above can read theirs.
    const bool can_reuse = r.reuse && x >= r.radius && x + N + r.radius <= body;
    for (const BilateralTap& tap : taps) {
      const auto space = hn::Set(d, tap.space);
      auto weight = [&](auto d2) { return hn::Mul(space, WeightExp(d, hn::Mul(d2, coeff))); };
      const auto v0 = load(tap.planes, 0, a), v1 = load(tap.planes, 1, a), v2 = load(tap.planes, 2, a), v3 = load(tap.planes, 3, a);
      const float* reused = can_reuse && tap.reuse ? tap.reuse + x : nullptr;
      float* stored = tap.store ? tap.store + x : nullptr;
      if constexpr (kPerChannel) {
        auto add = [&](int ch, auto v, auto c, auto& s, auto& w) {
          hn::Vec<decltype(d)> wt;
          if (reused) {
            wt = hn::LoadU(d, reused + ch * r.weight_stride);
          } else {
            const auto dd = hn::Sub(v, c);
            if constexpr (kLookup == kGather) wt = hn::Mul(space, hn::GatherIndex(d, r.abs_table, hn::ConvertTo(di, hn::Abs(dd))));
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
            else if constexpr (kLookup == kRegisters) wt = hn::Mul(space, table_in_registers(hn::ConvertTo(di, hn::Abs(dd))));
#endif
            else wt = weight(hn::Mul(dd, dd));
            if (stored) hn::StoreU(wt, d, stored + ch * r.weight_stride);
          }
          s = hn::Add(s, hn::Mul(wt, v));
          w = hn::Add(w, wt);
        };
        add(0, v0, c0, s0, w0);
        if constexpr (C > 1) add(1, v1, c1, s1, w1);
        if constexpr (C > 2) add(2, v2, c2, s2, w2);
        if constexpr (C > 3) add(3, v3, c3, s3, w3);
      } else {
        auto term = [&](auto v, auto c) {
          const auto dd = hn::Sub(v, c);
          return kL1 ? hn::Abs(dd) : hn::Mul(dd, dd);
        };
        hn::Vec<decltype(d)> wt;
        if (reused) {
          wt = hn::LoadU(d, reused);
        } else {
          auto d2 = term(v0, c0);
          if constexpr (kCompared > 1) d2 = hn::Add(d2, term(v1, c1));
          if constexpr (kCompared > 2) d2 = hn::Add(d2, term(v2, c2));
          if constexpr (kL1) d2 = hn::Mul(d2, d2);
          wt = weight(d2);
          if (stored) hn::StoreU(wt, d, stored);
        }
        s0 = hn::Add(s0, hn::Mul(wt, v0));
        if constexpr (C > 1) s1 = hn::Add(s1, hn::Mul(wt, v1));
        if constexpr (C > 2) s2 = hn::Add(s2, hn::Mul(wt, v2));
        if constexpr (C > 3) s3 = hn::Add(s3, hn::Mul(wt, v3));
        w0 = hn::Add(w0, wt);
      }
    }
    hn::StoreU(hn::Div(s0, w0), d, out + x);
    if constexpr (C > 1) hn::StoreU(hn::Div(s1, kPerChannel ? w1 : w0), d, out + width + x);
    if constexpr (C > 2) hn::StoreU(hn::Div(s2, kPerChannel ? w2 : w0), d, out + 2 * width + x);
    if constexpr (C > 3) hn::StoreU(hn::Div(s3, kPerChannel ? w3 : w0), d, out + 3 * width + x);
  }
  for (; x < width; ++x) scalar::bilateral_at<C, kPerChannel, kL1>(r, width, x, out);
}

// lookup (kCompute, kGather or kRegisters): how per-channel 8-bit rows find their weights when
// r.abs_table is given (see fastest_lookup below). Callers ask for kRegisters only where
// HasRegisterTable(); on other targets BilateralRows would compute instead.
template <int kLookup>
HWY_INLINE bool BilateralLookingUp(const BilateralRow& r, int width, float* out) {
  if (!r.abs_table || !(r.per_channel || r.channels == 1)) return false;
  switch (r.channels) {
    case 1: BilateralRows<1, true, false, kLookup>(r, width, out); break;
    case 3: BilateralRows<3, true, false, kLookup>(r, width, out); break;
    default: BilateralRows<4, true, false, kLookup>(r, width, out);
  }
  return true;
}

void Bilateral(const BilateralRow& r, int width, float* out, int lookup) {
  if (lookup == kRegisters && BilateralLookingUp<kRegisters>(r, width, out)) return;
  if (lookup == kGather && BilateralLookingUp<kGather>(r, width, out)) return;
  switch (r.channels) {
    case 1: return BilateralRows<1, true, false>(r, width, out);
    case 3:
      if (r.per_channel) return BilateralRows<3, true, false>(r, width, out);
      if (r.l1) return BilateralRows<3, false, true>(r, width, out);
      return BilateralRows<3, false, false>(r, width, out);
    default:
      if (r.per_channel) return BilateralRows<4, true, false>(r, width, out);
      if (r.l1) return BilateralRows<4, false, true>(r, width, out);
      return BilateralRows<4, false, false>(r, width, out);
  }
}

bool HasRegisterTable() { return kHaveRegisterTable; }

template <class T>
HWY_INLINE void ToFloat(const T* src, std::size_t n, float* dst) {
  const hn::ScalableTag<float> d;
  const hn::Rebind<T, decltype(d)> dt;
  const hn::RebindToSigned<decltype(d)> di;
  const std::size_t N = hn::Lanes(d);
  std::size_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(hn::ConvertTo(d, hn::PromoteTo(di, hn::LoadU(dt, src + i))), d, dst + i);
  scalar::to_float(src + i, n - i, dst + i);
}

// Clamped to the type's range first, so that rounding to int32 cannot overflow; then rounded to
// nearest even (NearestInt) and narrowed.
template <class T>
HWY_INLINE void FromFloat(const float* src, std::size_t n, T* dst) {
  const hn::ScalableTag<float> d;
  const hn::Rebind<T, decltype(d)> dt;
  const std::size_t N = hn::Lanes(d);
  const auto lo = hn::Zero(d), hi = hn::Set(d, static_cast<float>(std::numeric_limits<T>::max()));
  std::size_t i = 0;
  for (; i + N <= n; i += N) {
    const auto v = hn::Min(hn::Max(hn::LoadU(d, src + i), lo), hi);
    hn::StoreU(hn::DemoteTo(dt, hn::NearestInt(v)), dt, dst + i);
  }
  scalar::from_float(src + i, n - i, dst + i);
}

void ToFloatU8(const std::uint8_t* src, std::size_t n, float* dst) { ToFloat(src, n, dst); }
void ToFloatU16(const std::uint16_t* src, std::size_t n, float* dst) { ToFloat(src, n, dst); }
void FromFloatU8(const float* src, std::size_t n, std::uint8_t* dst) { FromFloat(src, n, dst); }
void FromFloatU16(const float* src, std::size_t n, std::uint16_t* dst) { FromFloat(src, n, dst); }

}  // namespace gpuvis::filters::cpu_rows::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gpuvis::filters::cpu_rows {
namespace {

// One target's kernels.
struct Kernels {
  decltype(&HWY_STATIC_DISPATCH(Correlate)) correlate;
  decltype(&HWY_STATIC_DISPATCH(CorrelateRows)) correlate_rows;
  decltype(&HWY_STATIC_DISPATCH(Bilateral)) bilateral;
  decltype(&HWY_STATIC_DISPATCH(HasRegisterTable)) has_register_table;
  decltype(&HWY_STATIC_DISPATCH(ToFloatU8)) to_float_u8;
  decltype(&HWY_STATIC_DISPATCH(ToFloatU16)) to_float_u16;
  decltype(&HWY_STATIC_DISPATCH(FromFloatU8)) from_float_u8;
  decltype(&HWY_STATIC_DISPATCH(FromFloatU16)) from_float_u16;
  const char* name;
};
// A target's table from F(Name), F naming the function in that target's namespace.
#define GPUVIS_KERNELS(F, NAME)                                                                                      \
  Kernels {                                                                                                          \
    &F(Correlate), &F(CorrelateRows), &F(Bilateral), &F(HasRegisterTable), &F(ToFloatU8), &F(ToFloatU16),            \
        &F(FromFloatU8), &F(FromFloatU16), NAME                                                                      \
  }
#define GPUVIS_AVX3(name) N_AVX3::name
#define GPUVIS_AVX2(name) N_AVX2::name
#define GPUVIS_SSE4(name) N_SSE4::name
#define GPUVIS_SSSE3(name) N_SSSE3::name

// The best compiled target the running CPU supports, chosen once.
const Kernels& kernels() {
  static const Kernels chosen = [] {
#if HWY_ARCH_X86
    using namespace cpu_targets;
#if HWY_TARGETS & HWY_AVX3
    if (has_avx3()) return GPUVIS_KERNELS(GPUVIS_AVX3, "AVX3");
#endif
#if HWY_TARGETS & HWY_AVX2
    if (has_avx2()) return GPUVIS_KERNELS(GPUVIS_AVX2, "AVX2");
#endif
#if HWY_TARGETS & HWY_SSE4
    if (has_sse4()) return GPUVIS_KERNELS(GPUVIS_SSE4, "SSE4");
#endif
#if HWY_TARGETS & HWY_SSSE3
    if (has_ssse3()) return GPUVIS_KERNELS(GPUVIS_SSSE3, "SSSE3");
#endif
#endif
    return GPUVIS_KERNELS(HWY_STATIC_DISPATCH, hwy::TargetName(HWY_STATIC_TARGET));
  }();
  return chosen;
}
#undef GPUVIS_KERNELS
#undef GPUVIS_AVX3
#undef GPUVIS_AVX2
#undef GPUVIS_SSE4
#undef GPUVIS_SSSE3

}  // namespace

void to_float(const std::uint8_t* src, std::size_t n, float* dst) { kernels().to_float_u8(src, n, dst); }
void to_float(const std::uint16_t* src, std::size_t n, float* dst) { kernels().to_float_u16(src, n, dst); }
void from_float(const float* src, std::size_t n, std::uint8_t* dst) { kernels().from_float_u8(src, n, dst); }
void from_float(const float* src, std::size_t n, std::uint16_t* dst) { kernels().from_float_u16(src, n, dst); }

void correlate(const float* const* taps, const float* weights, int tap_count, std::size_t n, float* out) {
  kernels().correlate(taps, weights, tap_count, n, out);
}

void correlate_rows(const float* const* rows, const float* weights, int kernel_rows, int kernel_cols, const std::ptrdiff_t* offsets, int count,
                    std::size_t n, float* const* out) {
  kernels().correlate_rows(rows, weights, kernel_rows, kernel_cols, offsets, count, n, out);
}

namespace {
// The fastest way to find 8-bit range weights on this CPU: measured once, on generated rows of the
// kind the filter sees, a grey one and a three-channel per-channel one (on one Xeon, registers and
// gathers tie for grey and gathers win for three channels). Every way gives the same outputs.
WeightLookup fastest_lookup() {
  static const WeightLookup fastest = [] {
    constexpr int kWidth = 2048, kRadius = 3, kRows = 2 * kRadius + 1, kChannels = 3;
    const std::size_t plane = kWidth + 2 * kRadius;
    std::vector<float> rows(kRows * kChannels * plane), out(kWidth * kChannels), table(256);
    std::uint32_t state = 12345;
    for (float& v : rows) v = static_cast<float>((state = state * 1664525u + 1013904223u) >> 24);
    for (int i = 0; i < 256; ++i) table[i] = detail::weight_exp(static_cast<float>(i * i) * (-0.5f / (30.0f * 30.0f)));
    std::vector<const float*> planes;
    for (int j = 0; j < kRows * kChannels; ++j) planes.push_back(rows.data() + j * plane);
    std::vector<int> tap_dx, tap_dy;
    std::vector<float> tap_weight;
    for (int dy = -kRadius; dy <= kRadius; ++dy)
      for (int dx = -kRadius; dx <= kRadius; ++dx)
        if (dx * dx + dy * dy <= kRadius * kRadius) tap_dx.push_back(dx), tap_dy.push_back(dy), tap_weight.push_back(0.5f);
    auto row = [&](int channels) {
      return BilateralRow{planes.data(), channels, kRadius, tap_dx.data(), tap_dy.data(), tap_weight.data(), static_cast<int>(tap_weight.size()),
                          true, false, table.data(), nullptr, -0.5f / (30.0f * 30.0f)};
    };
    const BilateralRow grey = row(1), colour = row(kChannels);
    auto time = [&](WeightLookup lookup) {
      double shortest = 1e30;
      for (int i = 0; i < 5; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        kernels().bilateral(grey, kWidth, out.data(), static_cast<int>(lookup));
        kernels().bilateral(colour, kWidth, out.data(), static_cast<int>(lookup));
        shortest = std::min(shortest, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      }
      return shortest;
    };
    std::vector<WeightLookup> ways{WeightLookup::compute, WeightLookup::gather};
    if (kernels().has_register_table()) ways.push_back(WeightLookup::registers);
    WeightLookup best = ways[0];
    double best_time = 1e30;
    for (WeightLookup way : ways)
      if (const double t = time(way); t < best_time) best = way, best_time = t;
    return best;
  }();
  return fastest;
}

std::atomic<int> lookup_choice{static_cast<int>(WeightLookup::fastest)};
}  // namespace

WeightLookup bilateral_lookup() {
  const auto choice = static_cast<WeightLookup>(lookup_choice.load(std::memory_order_relaxed));
  if (choice == WeightLookup::fastest) return fastest_lookup();
  if (choice == WeightLookup::registers && !kernels().has_register_table()) return WeightLookup::gather;
  return choice;
}

const char* bilateral_lookup_name() {
  switch (bilateral_lookup()) {
    case WeightLookup::compute: return "computed";
    case WeightLookup::registers: return "registers";
    default: return "gathered";
  }
}

void bilateral(const BilateralRow& row, int width, float* out) {
  kernels().bilateral(row, width, out, static_cast<int>(row.abs_table ? bilateral_lookup() : WeightLookup::compute));
}

bool bilateral_uses_colour_table() { return false; }

bool bilateral_reuses_weights() { return true; }

void set_bilateral_lookup(WeightLookup choice) { lookup_choice.store(static_cast<int>(choice), std::memory_order_relaxed); }

const char* implementation() {
  static const std::string name = std::string("highway ") + kernels().name;
  return name.c_str();
}

}  // namespace gpuvis::filters::cpu_rows
#endif

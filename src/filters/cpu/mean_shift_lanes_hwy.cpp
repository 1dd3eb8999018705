// Mean shift climbs in vector lanes (filters/cpu/mean_shift_lanes.hpp) with Google Highway:
// compiled once per x86 vector target, the best one the running CPU supports chosen at the first
// call (filters/cpu/hwy_targets.hpp). Each lane is one climb: it runs mean_shift_step.h's step
// with the same operations in the same order (no fused multiply-add: this file is built with
// -ffp-contract=off), a voxel outside its window adding +0 to its sums.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "filters/cpu/mean_shift_lanes_hwy.cpp"
#include "hwy/foreach_target.h"  // re-includes this file once per target

#include <cstdint>
#include <limits>

#include "hwy/highway.h"

#include "filters/cpu/hwy_targets.hpp"
#include "filters/cpu/mean_shift_lanes.hpp"

HWY_BEFORE_NAMESPACE();
namespace gpuvis::filters::cpu_lanes::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
namespace rules = mean_shift_rules;

constexpr int kMaxLanes = 64;  // the widest vector of floats any target has

// The climbs in the lanes, one array element per lane: position relative to the start (x, y, z, t),
// the start (ox, ..), range features, steps taken, the voxel climbing (-1: the lane is idle) and
// `live` (all bits set while the lane climbs).
struct Climbs {
  alignas(64) float x[kMaxLanes], y[kMaxLanes], z[kMaxLanes], t[kMaxLanes];
  alignas(64) float r[4][kMaxLanes];
  alignas(64) std::int32_t ox[kMaxLanes], oy[kMaxLanes], oz[kMaxLanes], ot[kMaxLanes];
  alignas(64) std::int32_t steps[kMaxLanes], live[kMaxLanes], ended[kMaxLanes];
  long long voxel[kMaxLanes];
};

// rules::exp_minus_2 on a vector: the same multiplications and additions.
template <class DF, class VF>
HWY_INLINE VF ExpMinus2(DF df, VF d2) {
  const VF u = hn::Mul(hn::Set(df, -0.5f), d2);
  VF e = hn::Set(df, 1.0f / 5040.0f);
  e = hn::Add(hn::Mul(e, u), hn::Set(df, 1.0f / 720.0f));
  e = hn::Add(hn::Mul(e, u), hn::Set(df, 1.0f / 120.0f));
  e = hn::Add(hn::Mul(e, u), hn::Set(df, 1.0f / 24.0f));
  e = hn::Add(hn::Mul(e, u), hn::Set(df, 1.0f / 6.0f));
  e = hn::Add(hn::Mul(e, u), hn::Set(df, 0.5f));
  e = hn::Add(hn::Mul(e, u), hn::Set(df, 1.0f));
  e = hn::Add(hn::Mul(e, u), hn::Set(df, 1.0f));
  const VF e2 = hn::Mul(e, e);
  return hn::Mul(e2, e2);
}

template <class V>
HWY_INLINE V Sq(V v) {
  return hn::Mul(v, v);
}

// A step's sums over its window: the weights, the weighted positions and range features.
template <class VF, int C>
struct Sums {
  VF wsum, mx, my, mz, mt, mr[C];
};

// The end of a step: each live climb moves to its window's mean where the window held any voxel;
// ended[l] is set where lane l's climb has ended (an empty window, or a move shorter than eps).
template <int C, int D, class DF, class VF, class Live>
HWY_INLINE void MoveToMean(DF df, Climbs& s, const Sums<VF, C>& m, Live live, VF px, VF py, VF pz, VF pt, const VF (&r)[C],
                           VF inv_hs2, VF inv_hz2, VF inv_ht2, float eps) {
  const hn::RebindToSigned<DF> di;
  const auto moves = hn::And(live, hn::Gt(m.wsum, hn::Zero(df)));
  const VF nx = hn::Div(m.mx, m.wsum), ny = hn::Div(m.my, m.wsum);
  VF shift2 = hn::Mul(hn::Add(Sq(hn::Sub(nx, px)), Sq(hn::Sub(ny, py))), inv_hs2);
  if constexpr (D >= 3) {
    const VF nz = hn::Div(m.mz, m.wsum);
    shift2 = hn::Add(shift2, hn::Mul(Sq(hn::Sub(nz, pz)), inv_hz2));
    hn::Store(hn::IfThenElse(moves, nz, pz), df, s.z);
  }
  if constexpr (D >= 4) {
    const VF nt = hn::Div(m.mt, m.wsum);
    shift2 = hn::Add(shift2, hn::Mul(Sq(hn::Sub(nt, pt)), inv_ht2));
    hn::Store(hn::IfThenElse(moves, nt, pt), df, s.t);
  }
  for (int c = 0; c < C; ++c) {
    const VF nr = hn::Div(m.mr[c], m.wsum);
    shift2 = hn::Add(shift2, Sq(hn::Sub(nr, r[c])));
    hn::Store(hn::IfThenElse(moves, nr, r[c]), df, s.r[c]);
  }
  hn::Store(hn::IfThenElse(moves, nx, px), df, s.x);
  hn::Store(hn::IfThenElse(moves, ny, py), df, s.y);
  const auto ended = hn::And(live, hn::Or(hn::Not(moves), hn::Lt(shift2, hn::Set(df, eps * eps))));
  hn::Store(hn::VecFromMask(di, hn::RebindMask(di, ended)), di, s.ended);
}

// One step of every live climb (mean_shift_step.h's, lane by lane); ended[l] set where lane l's
// climb has ended (a step shorter than eps, or an empty window).
template <int C, bool G, int D, class DF>
HWY_INLINE void StepLanes(DF df, Climbs& s, const rules::Space& g, float eps, const float* HWY_RESTRICT f) {
  const hn::RebindToSigned<DF> di;
  using VF = hn::Vec<DF>;
  using VI = hn::Vec<decltype(di)>;
  constexpr int L = rules::lanes<C>;
  const VF one = hn::Set(df, 1.0f), zero = hn::Zero(df);
  const VI one_i = hn::Set(di, 1), zero_i = hn::Zero(di);
  const VF hs = hn::Set(df, g.hs), hz = hn::Set(df, g.hz), ht = hn::Set(df, g.ht);
  const VF inv_hs2 = hn::Set(df, 1.0f / (g.hs * g.hs)), inv_hz2 = hn::Set(df, 1.0f / (g.hz * g.hz)), inv_ht2 = hn::Set(df, 1.0f / (g.ht * g.ht));
  const auto live_i = hn::Ne(hn::Load(di, s.live), zero_i);
  const auto live = hn::RebindMask(df, live_i);
  const VF px = hn::Load(df, s.x), py = hn::Load(df, s.y), pz = hn::Load(df, s.z), pt = hn::Load(df, s.t);
  const VI ox = hn::Load(di, s.ox), oy = hn::Load(di, s.oy), oz = hn::Load(di, s.oz), ot = hn::Load(di, s.ot);
  VF r[C];
  for (int c = 0; c < C; ++c) r[c] = hn::Load(df, s.r[c]);

  // The window's box along each axis: o + ceil(p - h) .. o + floor(p + h), within the grid.
  const auto low = [&](VI o, VF p, VF h) { return hn::Max(zero_i, hn::Add(o, hn::ConvertTo(di, hn::Ceil(hn::Sub(p, h))))); };
  const auto high = [&](VI o, VF p, VF h, int n) { return hn::Min(hn::Set(di, n - 1), hn::Add(o, hn::ConvertTo(di, hn::Floor(hn::Add(p, h))))); };
  // The most voxels b - a + 1 of any live lane (0 where none has any).
  const auto span = [&](VI a, VI b) { return hn::GetLane(hn::MaxOfLanes(di, hn::IfThenElse(live_i, hn::Sub(b, a), hn::Set(di, -1)))) + 1; };
  const auto at_most = [&](VI a, VI b) { return hn::Not(hn::Gt(a, b)); };
  const VI x0 = low(ox, px, hs), x1 = high(ox, px, hs, g.width);
  const VI y0 = low(oy, py, hs), y1 = high(oy, py, hs, g.height);
  const VI z0 = D >= 3 ? low(oz, pz, hz) : zero_i, z1 = D >= 3 ? high(oz, pz, hz, g.depth) : zero_i;
  const VI t0 = D >= 4 ? low(ot, pt, ht) : zero_i, t1 = D >= 4 ? high(ot, pt, ht, g.frames) : zero_i;

  Sums<VF, C> m;
  m.wsum = m.mx = m.my = m.mz = m.mt = zero;
  for (int c = 0; c < C; ++c) m.mr[c] = zero;
  const int nt = D >= 4 ? span(t0, t1) : 1, nz = D >= 3 ? span(z0, z1) : 1, ny = span(y0, y1);
  for (int kt = 0; kt < nt; ++kt) {
    const VI t = hn::Add(t0, hn::Set(di, kt));
    const auto t_ok = D >= 4 ? hn::And(live_i, at_most(t, t1)) : live_i;
    const VF ft = hn::ConvertTo(df, hn::Sub(t, ot));
    const VF dt2 = D >= 4 ? hn::Mul(Sq(hn::Sub(ft, pt)), inv_ht2) : zero;
    for (int kz = 0; kz < nz; ++kz) {
      const VI z = hn::Add(z0, hn::Set(di, kz));
      const auto z_ok = D >= 3 ? hn::And(t_ok, at_most(z, z1)) : t_ok;
      const VF fz = hn::ConvertTo(df, hn::Sub(z, oz));
      const VF dz2 = D >= 3 ? hn::Mul(Sq(hn::Sub(fz, pz)), inv_hz2) : zero;
      for (int ky = 0; ky < ny; ++ky) {
        const VI y = hn::Add(y0, hn::Set(di, ky));
        const VF fy = hn::ConvertTo(df, hn::Sub(y, oy));
        const VF dy = hn::Sub(fy, py), dy2 = hn::Mul(dy, dy);
        VF rest_d2 = hn::Mul(dy2, inv_hs2);
        if constexpr (D >= 3) rest_d2 = hn::Add(rest_d2, dz2);
        if constexpr (D >= 4) rest_d2 = hn::Add(rest_d2, dt2);
        const VF rest = hn::Sub(one, rest_d2);
        const auto row_ok = hn::And(hn::And(z_ok, at_most(y, y1)), hn::RebindMask(di, hn::Ge(rest, zero)));
        if (hn::AllFalse(di, row_ok)) continue;
        // The row's voxels within the spatial ball, as mean_shift_step.h cuts them.
        const VF reach =
            hn::Add(hn::Mul(hn::Mul(hn::Sqrt(hn::IfThenElseZero(hn::RebindMask(df, row_ok), rest)), hs), hn::Set(df, 1.0001f)), hn::Set(df, 0.01f));
        const VI xa = hn::Max(x0, hn::Add(ox, hn::ConvertTo(di, hn::Ceil(hn::Sub(px, reach)))));
        const VI xb = hn::IfThenElse(row_ok, hn::Min(x1, hn::Add(ox, hn::ConvertTo(di, hn::Floor(hn::Add(px, reach))))), hn::Sub(xa, one_i));
        VI row = y;
        if constexpr (D >= 3) row = hn::Add(hn::Mul(hn::Add(hn::Mul(t, hn::Set(di, g.depth)), z), hn::Set(di, g.height)), y);
        const VI first = hn::Mul(hn::Add(hn::Mul(row, hn::Set(di, g.width)), xa), hn::Set(di, L));
        const int nx = span(xa, xb);
        for (int j = 0; j < nx; ++j) {
          const VI x = hn::Add(xa, hn::Set(di, j));
          const VF fx = hn::ConvertTo(df, hn::Sub(x, ox));
          const VF dx = hn::Sub(fx, px);
          VF d2 = hn::Mul(hn::Add(hn::Mul(dx, dx), dy2), inv_hs2);
          if constexpr (D >= 3) d2 = hn::Add(d2, dz2);
          if constexpr (D >= 4) d2 = hn::Add(d2, dt2);
          auto in = hn::And(hn::RebindMask(df, at_most(x, xb)), hn::Le(d2, one));
          if (hn::AllFalse(df, in)) continue;
          const VI index = hn::IfThenElseZero(hn::RebindMask(di, in), hn::Add(first, hn::Set(di, j * L)));
          VF v[C];
          for (int c = 0; c < C; ++c) {
            v[c] = hn::GatherIndex(df, f + c, index);
            const VF d = hn::Sub(v[c], r[c]);
            d2 = hn::Add(d2, hn::Mul(d, d));
          }
          in = hn::And(in, hn::Le(d2, one));
          if constexpr (G) {
            const VF w = ExpMinus2(df, d2);
            m.wsum = hn::Add(m.wsum, hn::IfThenElseZero(in, w));
            m.mx = hn::Add(m.mx, hn::IfThenElseZero(in, hn::Mul(w, fx)));
            m.my = hn::Add(m.my, hn::IfThenElseZero(in, hn::Mul(w, fy)));
            if constexpr (D >= 3) m.mz = hn::Add(m.mz, hn::IfThenElseZero(in, hn::Mul(w, fz)));
            if constexpr (D >= 4) m.mt = hn::Add(m.mt, hn::IfThenElseZero(in, hn::Mul(w, ft)));
            for (int c = 0; c < C; ++c) m.mr[c] = hn::Add(m.mr[c], hn::IfThenElseZero(in, hn::Mul(w, v[c])));
          } else {
            m.wsum = hn::Add(m.wsum, hn::IfThenElseZero(in, one));
            m.mx = hn::Add(m.mx, hn::IfThenElseZero(in, fx));
            m.my = hn::Add(m.my, hn::IfThenElseZero(in, fy));
            if constexpr (D >= 3) m.mz = hn::Add(m.mz, hn::IfThenElseZero(in, fz));
            if constexpr (D >= 4) m.mt = hn::Add(m.mt, hn::IfThenElseZero(in, ft));
            for (int c = 0; c < C; ++c) m.mr[c] = hn::Add(m.mr[c], hn::IfThenElseZero(in, v[c]));
          }
        }
      }
    }
  }
  hn::Store(hn::Add(hn::Load(di, s.steps), hn::IfThenElseZero(live_i, one_i)), di, s.steps);
  MoveToMean<C, D>(df, s, m, live, px, py, pz, pt, r, inv_hs2, inv_hz2, inv_ht2, eps);
}

// Lane l takes the next voxel of [next, last), or idles.
template <int C>
HWY_INLINE void Take(Climbs& s, int l, long long& next, long long last, const rules::Space& g, const float* f) {
  if (next >= last) {
    s.live[l] = 0, s.voxel[l] = -1;
    s.x[l] = s.y[l] = s.z[l] = s.t[l] = 0.0f;
    s.ox[l] = s.oy[l] = s.oz[l] = s.ot[l] = 0;
    for (int c = 0; c < 4; ++c) s.r[c][l] = 0.0f;
    return;
  }
  const long long i = next++;
  const rules::Point<C> p = rules::start<C>(i, g, f + i * rules::lanes<C>);
  s.x[l] = p.x, s.y[l] = p.y, s.z[l] = p.z, s.t[l] = p.t;
  s.ox[l] = p.ox, s.oy[l] = p.oy, s.oz[l] = p.oz, s.ot[l] = p.ot;
  for (int c = 0; c < 4; ++c) s.r[c][l] = p.r[c];
  s.steps[l] = 0, s.live[l] = -1, s.voxel[l] = i;
}

template <int C, bool G, int D>
void ClimbVariant(const rules::Space& g, float eps, int max_iter, const float* f, long long first, long long last, float* modes) {
  const hn::ScalableTag<float> df;
  const int lanes = static_cast<int>(hn::Lanes(df));
  Climbs s;
  long long next = first;
  for (int l = 0; l < lanes; ++l) Take<C>(s, l, next, last, g, f);
  for (int busy = lanes; busy > 0;) {
    StepLanes<C, G, D>(df, s, g, eps, f);
    busy = 0;
    for (int l = 0; l < lanes; ++l) {
      if (!s.live[l]) continue;
      if (s.ended[l] || s.steps[l] >= max_iter) {
        for (int c = 0; c < C; ++c) modes[s.voxel[l] * rules::lanes<C> + c] = s.r[c][l];
        Take<C>(s, l, next, last, g, f);
      }
      busy += s.live[l] != 0;
    }
  }
}

void Climb(int channels, bool gaussian, const rules::Space& g, float eps, int max_iter, const float* f, long long first, long long last,
           float* modes) {
  const auto by_variant = [&](auto c) {
    rules::with_variant(gaussian, g, [&](auto gauss, auto dims) {
      ClimbVariant<decltype(c)::value, decltype(gauss)::value, decltype(dims)::value>(g, eps, max_iter, f, first, last, modes);
    });
  };
  switch (channels) {
    case 1: by_variant(std::integral_constant<int, 1>{}); break;
    case 2: by_variant(std::integral_constant<int, 2>{}); break;
    case 3: by_variant(std::integral_constant<int, 3>{}); break;
    default: by_variant(std::integral_constant<int, 4>{}); break;
  }
}

}  // namespace gpuvis::filters::cpu_lanes::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gpuvis::filters::cpu_lanes {
namespace {

struct Target {
  decltype(&HWY_STATIC_DISPATCH(Climb)) climb;
  const char* name;
};

// The best compiled target the running CPU supports, chosen once; none where only the scalar
// fallback was compiled (one lane: the caller's own loop is as good).
const Target& chosen() {
  static const Target best = []() -> Target {
#if HWY_ARCH_X86
    using namespace cpu_targets;
#if HWY_TARGETS & HWY_AVX3
    if (has_avx3()) return {&N_AVX3::Climb, "AVX3"};
#endif
#if HWY_TARGETS & HWY_AVX2
    if (has_avx2()) return {&N_AVX2::Climb, "AVX2"};
#endif
#if HWY_TARGETS & HWY_SSE4
    if (has_sse4()) return {&N_SSE4::Climb, "SSE4"};
#endif
#if HWY_TARGETS & HWY_SSSE3
    if (has_ssse3()) return {&N_SSSE3::Climb, "SSSE3"};
#endif
#endif
    return {nullptr, ""};
  }();
  return best;
}

}  // namespace

bool climb(int channels, bool gaussian, const mean_shift_rules::Space& g, float eps, int max_iter, const float* features, long long first,
           long long last, float* modes) {
  const Target& t = chosen();
  const long long voxels = static_cast<long long>(g.width) * g.height * g.depth * g.frames;
  const long long floats = voxels * GPUVIS_MS_LANES(channels);
  if (!t.climb || max_iter < 1 || floats > std::numeric_limits<std::int32_t>::max()) return false;
  t.climb(channels, gaussian, g, eps, max_iter, features, first, last, modes);
  return true;
}

const char* target() { return chosen().name; }

}  // namespace gpuvis::filters::cpu_lanes
#endif

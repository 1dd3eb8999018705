#include "pipeline/second_look/motion_blur.hpp"

#include "pipeline/second_look/deconvolve_rule.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <numbers>
#include <span>
#include <utility>

// The deconvolution's loops compiled for AVX2 too, chosen at run time where the CPU has it: twice
// the lanes of the baseline's SSE2, the same bits (no fused multiply-add, which AVX2 does not bring;
// correctly rounded square roots and divisions on both).
#if defined(__x86_64__) && defined(__GNUC__)
#define GPUVIS_WIDER_VECTORS __attribute__((target_clones("avx2", "default")))
#else
#define GPUVIS_WIDER_VECTORS
#endif

namespace gpuvis::pipeline::second_look {
namespace {

float sample(HostView<const float> p, double x, double y) {
  x = std::clamp(x, 0.0, p.width - 1.0);
  y = std::clamp(y, 0.0, p.height - 1.0);
  const int x0 = std::min(static_cast<int>(x), std::max(0, p.width - 2));
  const int y0 = std::min(static_cast<int>(y), std::max(0, p.height - 2));
  const int x1 = std::min(x0 + 1, p.width - 1), y1 = std::min(y0 + 1, p.height - 1);
  const double fx = x - x0, fy = y - y0;
  return static_cast<float>((1 - fy) * ((1 - fx) * p(x0, y0) + fx * p(x1, y0)) + fy * ((1 - fx) * p(x0, y1) + fx * p(x1, y1)));
}

// The autocorrelation of the derivative along `angle`, by lag 0..max_length + 1, over the rows of
// a grid turned to that direction (u along it, v across, the largest square that fits the patch at
// any angle), so that the derivative along it and its autocorrelation at every lag are plain
// shifts along the grid's rows. `side`: all rows (0), or only those on one side of the patch's
// centre across the direction (v > 0: +1, v < 0: -1); `offset`, where given, gets the mean |v| of
// those rows weighted by their gradients' energy (lag 0).
std::vector<double> derivative_autocorrelation(HostView<const float> p, double angle, int max_length, int side, double* offset) {
  const int w = p.width, h = p.height;
  const double ux = std::cos(angle), uy = std::sin(angle);
  const int half = (std::min(w, h) - 2) * 7 / 20;  // 0.7 of the half-side: the turned square stays inside
  const int n = 2 * half + 1;
  const double cx = (w - 1) / 2.0, cy = (h - 1) / 2.0;
  std::vector<float> row(static_cast<std::size_t>(n));
  std::vector<double> r(static_cast<std::size_t>(max_length) + 2, 0.0);  // autocorrelation by lag
  double energy = 0, weighted = 0;
  for (int v = -half; v <= half; ++v) {
    if ((side > 0 && v <= 0) || (side < 0 && v >= 0)) continue;
    for (int u = -half; u <= half; ++u) row[u + half] = sample(p, cx + u * ux - v * uy, cy + u * uy + v * ux);
    for (int k = 0; k <= max_length + 1; ++k) {
      double acc = 0;
      for (int u = 0; u + k + 1 < n; ++u) acc += static_cast<double>(row[u + 1] - row[u]) * (row[u + k + 1] - row[u + k]);
      r[k] += acc / (n - k - 1);
      if (k == 0) energy += acc, weighted += acc * std::abs(v);
    }
  }
  if (offset) *offset = energy > 0 ? weighted / energy : 0;
  return r;
}

// The most negative lag of 2..max_length (Yitzhaky and Kopeika's method: a box of length L turns
// each edge into a pair of opposite edges L apart), to a fraction of a pixel.
double most_negative_lag(const std::vector<double>& r, int max_length) {
  int best = 2;
  for (int k = 3; k <= max_length; ++k)
    if (r[k] < r[best]) best = k;
  // Sub-pixel: the parabola through the minimum and its neighbours.
  const double a = r[best - 1], b = r[best], c = r[best + 1], den = a - 2 * b + c;
  return best + (den > 0 ? std::clamp(0.5 * (a - c) / den, -0.5, 0.5) : 0.0);
}

// The smear's length along `angle`.
double smear_length_along(HostView<const float> p, double angle, int max_length) {
  return most_negative_lag(derivative_autocorrelation(p, angle, max_length, 0, nullptr), max_length);
}

}  // namespace

MotionEstimate estimate_motion(HostView<const float> p, int max_length, double min_anisotropy) {
  MotionEstimate m;
  const int w = p.width, h = p.height;
  if (w < 8 || h < 8) return m;
  double jxx = 0, jyy = 0, jxy = 0;
  for (int y = 1; y < h - 1; ++y)
    for (int x = 1; x < w - 1; ++x) {
      const double gx = 0.5 * (p(x + 1, y) - p(x - 1, y)), gy = 0.5 * (p(x, y + 1) - p(x, y - 1));
      jxx += gx * gx, jyy += gy * gy, jxy += gx * gy;
    }
  const double trace = jxx + jyy;
  if (trace <= 0) return m;
  m.anisotropy = std::sqrt((jxx - jyy) * (jxx - jyy) + 4 * jxy * jxy) / trace;
  // The strongest gradients run across the motion.
  double angle = 0.5 * std::atan2(2 * jxy, jxx - jyy) + std::numbers::pi / 2;
  angle = std::fmod(angle + std::numbers::pi, std::numbers::pi);
  m.angle = angle;
  if (m.anisotropy < min_anisotropy) return m;
  if (!lengths_measurable(w, h, max_length)) return m;
  m.length = smear_length_along(p, angle, max_length);
  return m;
}

// smear_length_along's turned grid is long enough for lags up to max_length.
bool lengths_measurable(int width, int height, int max_length) { return 2 * ((std::min(width, height) - 2) * 7 / 20) + 1 >= max_length + 4; }

double length_along(HostView<const float> patch, double angle, int max_length) {
  return lengths_measurable(patch.width, patch.height, max_length) ? smear_length_along(patch, angle, max_length) : 0.0;
}

double estimate_turn(HostView<const float> patch, double angle, int max_length) {
  if (!lengths_measurable(patch.width, patch.height, max_length)) return 0;
  double above = 0, below = 0;
  const double longer_above = most_negative_lag(derivative_autocorrelation(patch, angle, max_length, 1, &above), max_length);
  const double longer_below = most_negative_lag(derivative_autocorrelation(patch, angle, max_length, -1, &below), max_length);
  const double offset = 0.5 * (above + below);
  // A point at v across the travel moves (translation - turn * v) along it: the side below is
  // smeared longer by 2 * turn * offset.
  return offset > 1 ? (longer_below - longer_above) / (2 * offset) : 0.0;
}

std::vector<Tap> line_kernel(double angle, double length) {
  std::map<std::pair<int, int>, double> acc;
  const double ux = std::cos(angle), uy = std::sin(angle);
  const int samples = std::max(2, static_cast<int>(std::ceil(length * 8)));
  for (int i = 0; i < samples; ++i) {
    const double t = length * ((i + 0.5) / samples - 0.5);
    const double x = t * ux, y = t * uy;
    const int x0 = static_cast<int>(std::floor(x)), y0 = static_cast<int>(std::floor(y));
    const double fx = x - x0, fy = y - y0;
    acc[{x0, y0}] += (1 - fx) * (1 - fy);
    acc[{x0 + 1, y0}] += fx * (1 - fy);
    acc[{x0, y0 + 1}] += (1 - fx) * fy;
    acc[{x0 + 1, y0 + 1}] += fx * fy;
  }
  std::vector<Tap> taps;
  double sum = 0;
  for (const auto& [at, v] : acc)
    if (v > 1e-3 * samples) sum += v;
  for (const auto& [at, v] : acc)
    if (v > 1e-3 * samples) taps.push_back({at.first, at.second, static_cast<float>(v / sum)});
  return taps;
}

// The input is first copied into scratch.padded, each row with its edge pixels repeated as far as the
// kernel reaches, so that a tap is a plain pointer into a row; outputs are then summed kBlock at a
// time in registers across all the taps (the compiler vectorises the block's lanes). Summing each
// tap into the output row in turn, as before 2026-12-02, loaded and stored every output once per
// tap: this is 3 times faster for the same bits (bench_detect's 7 px frames, one thread).
namespace {
constexpr int kBlock = 16;
}  // namespace
GPUVIS_WIDER_VECTORS void convolve_taps(HostView<const float> in, const std::vector<Tap>& kernel, HostView<float> out,
                                        ConvolveScratch& scratch) {
  const int w = in.width, h = in.height;
  int reach_left = 0, reach_right = 0;  // how far left and right of x the taps read: x - dx
  for (const Tap& t : kernel) reach_left = std::max(reach_left, t.dx), reach_right = std::max(reach_right, -t.dx);
  const int pw = w + reach_left + reach_right;
  std::vector<float>& padded = scratch.padded;
  padded.resize(static_cast<std::size_t>(pw) * h);
  for (int y = 0; y < h; ++y) {
    const float* src = in.row(y);
    float* p = padded.data() + static_cast<std::size_t>(y) * pw;
    std::fill(p, p + reach_left, src[0]);
    std::copy(src, src + w, p + reach_left);
    std::fill(p + reach_left + w, p + pw, src[w - 1]);
  }
  const auto taps = static_cast<int>(kernel.size());
  std::vector<const float*>& from = scratch.from;
  from.resize(kernel.size());
  for (int y = 0; y < h; ++y) {
    for (int k = 0; k < taps; ++k)
      from[k] = padded.data() + static_cast<std::size_t>(std::clamp(y - kernel[k].dy, 0, h - 1)) * pw + reach_left - kernel[k].dx;
    float* o = out.row(y);
    if (w < kBlock) {  // rows narrower than a block: one output at a time
      for (int x = 0; x < w; ++x) {
        float acc = 0;
        for (int k = 0; k < taps; ++k) acc += kernel[k].weight * from[k][x];
        o[x] = acc;
      }
      continue;
    }
    // The last block ends at the row's end and may overlap the one before: its outputs are the
    // same sums again.
    for (int x = 0;; x += kBlock) {
      x = std::min(x, w - kBlock);
      float acc[kBlock] = {};
      for (int k = 0; k < taps; ++k) {
        const float* src = from[k] + x;
        const float weight = kernel[k].weight;
        for (int i = 0; i < kBlock; ++i) acc[i] += weight * src[i];
      }
      std::copy(acc, acc + kBlock, o + x);
      if (x == w - kBlock) break;
    }
  }
}

namespace {
// The 2nd and 98th percentiles of a histogram of n levels.
GreySpread spread_of(const std::array<int, 256>& histogram, long n) {
  if (n == 0) return {};
  auto at = [&](long percent) {  // the level of the element n * percent / 100 in sorted order
    const long index = n * percent / 100;
    int level = 0;
    for (long below = 0; below + histogram[static_cast<std::size_t>(level)] <= index;) below += histogram[static_cast<std::size_t>(level++)];
    return static_cast<float>(level);
  };
  return {at(2), at(98)};
}
}  // namespace

GreySpread grey_spread(HostView<const float> patch) {
  // A histogram of the levels (rounded into 0..255): the patches are a frame's grey levels.
  std::array<int, 256> histogram{};
  for (int y = 0; y < patch.height; ++y)
    for (const float v : std::span(patch.row(y), static_cast<std::size_t>(patch.width)))
      ++histogram[static_cast<std::size_t>(std::clamp(v, 0.0f, 255.0f) + 0.5f)];  // rounded: not lround, a call per pixel
  return spread_of(histogram, static_cast<long>(patch.width) * patch.height);
}

GreySpread grey_spread(HostView<const std::uint8_t> region) {
  std::array<int, 256> histogram{};
  for (int y = 0; y < region.height; ++y)
    for (const std::uint8_t v : std::span(region.row(y), static_cast<std::size_t>(region.width))) ++histogram[v];
  return spread_of(histogram, static_cast<long>(region.width) * region.height);
}

GreyBounds print_bounds(HostView<const float> patch) {
  const GreySpread s = grey_spread(patch);
  if (s.bright <= 0) return {};
  return {std::max(1.0f, s.dark - 0.5f * (s.bright - s.dark)), s.bright + 5.0f};
}

// The data term's gradient is 1-Lipschitz (the kernel's weights are positive and sum to 1), the
// smoothed total variation's 8 lambda / eps: the step is the inverse of their sum.
float deconvolve_step(float lambda) { return 1.0f / (1.0f + 8.0f * lambda / kTvEpsilon); }

std::vector<float> fista_momentum(int iterations) {
  std::vector<float> momenta;
  double t = 1;  // FISTA's sequence t_k
  for (int it = 0; it < iterations; ++it) {
    const double t_next = 0.5 * (1 + std::sqrt(1 + 4 * t * t));
    momenta.push_back(static_cast<float>((t - 1) / t_next));
    t = t_next;
  }
  return momenta;
}

Image<float> deconvolve(HostView<const float> blurred, const std::vector<Tap>& kernel, int iterations, double smoothness,
                        GreyBounds bounds) {
  Image<float> unused;
  return deconvolve(blurred, kernel, iterations, smoothness, bounds, 0, unused);
}

namespace {
// FISTA's loop (deconvolve), the blur and its adjoint given as `blur(in, out)` and `adjoint(in, out)`.
// Inlined into each caller, so that its loops are compiled for each caller's vector widths.
template <class Blur, class Adjoint>
[[gnu::always_inline]] inline Image<float> fista(HostView<const float> blurred, const Blur& blur, const Adjoint& adjoint, int iterations,
                                                 double smoothness, GreyBounds bounds, int early, Image<float>& at_early) {
  const int w = blurred.width, h = blurred.height;
  const float lo = std::max(bounds.lo, 1.0f), hi = std::max(bounds.hi, lo);
  // u: the estimate; v: the point the next step starts from (u pushed on along its last move);
  // gradient: of the data term at v, then with the smoothness term's.
  Image<float> u(w, h), v(w, h), residual(w, h), gradient(w, h), nx(w, h), ny(w, h);
  const std::vector<float> zeros(static_cast<std::size_t>(w), 0.0f);  // the row above the first, for the TV term
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) u(x, y) = v(x, y) = std::clamp(blurred(x, y), lo, hi);
  const auto lambda = static_cast<float>(smoothness);
  const float step = deconvolve_step(lambda);
  const std::vector<float> momenta = fista_momentum(iterations);
  for (int it = 0; it < iterations; ++it) {
    blur(HostView<const float>(v.view()), residual.view());
    for (int y = 0; y < h; ++y) {
      float* r = residual.row(y);
      const float* b = blurred.row(y);
      for (int x = 0; x < w; ++x) r[x] -= b[x];
    }
    adjoint(HostView<const float>(residual.view()), gradient.view());
    if (lambda > 0) {
      // The smoothed total variation's gradient, -div(grad v / sqrt(|grad v|^2 + eps^2)) (forward
      // differences, zero past the edges). The last column and the first row are written apart
      // from the rest, with the same arithmetic, so that the loops have no test per pixel and the
      // compiler vectorises them.
      constexpr float eps2 = kTvEpsilon * kTvEpsilon;
      for (int y = 0; y < h; ++y) {
        const float* p = v.row(y);
        const float* below = v.row(std::min(y + 1, h - 1));
        float *gx = nx.row(y), *gy = ny.row(y);
        for (int x = 0; x + 1 < w; ++x) {
          const float dx = p[x + 1] - p[x], dy = below[x] - p[x];
          const float inv = 1.0f / std::sqrt(dx * dx + dy * dy + eps2);
          gx[x] = dx * inv;
          gy[x] = dy * inv;
        }
        const float dy = below[w - 1] - p[w - 1];
        const float inv = 1.0f / std::sqrt(0.0f * 0.0f + dy * dy + eps2);
        gx[w - 1] = 0.0f * inv;
        gy[w - 1] = dy * inv;
      }
      for (int y = 0; y < h; ++y) {
        float* g = gradient.row(y);
        const float *gx = nx.row(y), *gy = ny.row(y), *gy_above = y > 0 ? ny.row(y - 1) : zeros.data();
        g[0] -= lambda * (gx[0] - 0.0f + gy[0] - gy_above[0]);
        for (int x = 1; x < w; ++x) g[x] -= lambda * (gx[x] - gx[x - 1] + gy[x] - gy_above[x]);
      }
    }
    const float momentum = momenta[static_cast<std::size_t>(it)];
    for (int y = 0; y < h; ++y) {
      float *e = u.row(y), *p = v.row(y);
      const float* g = gradient.row(y);
      for (int x = 0; x < w; ++x) {
        const float next = std::clamp(p[x] - step * g[x], lo, hi);
        p[x] = std::clamp(next + momentum * (next - e[x]), lo, hi);
        e[x] = next;
      }
    }
    if (it + 1 == early) {
      if (at_early.width() != w || at_early.height() != h) at_early = Image<float>(w, h);  // reused across a look's trials
      copy(HostView<const float>(u.view()), at_early.view());
    }
  }
  return u;
}
}  // namespace

GPUVIS_WIDER_VECTORS Image<float> deconvolve(HostView<const float> blurred, const std::vector<Tap>& kernel, int iterations, double smoothness,
                                             GreyBounds bounds, int early, Image<float>& at_early) {
  ConvolveScratch scratch;
  // The kernel's mirror image is its adjoint: it back-projects the residual.
  std::vector<Tap> mirrored = kernel;
  for (Tap& t : mirrored) t.dx = -t.dx, t.dy = -t.dy;
  return fista(
      blurred, [&](HostView<const float> in, HostView<float> out) { convolve_taps(in, kernel, out, scratch); },
      [&](HostView<const float> in, HostView<float> out) { convolve_taps(in, mirrored, out, scratch); }, iterations, smoothness, bounds,
      early, at_early);
}

Image<float> deconvolve(HostView<const float> blurred, const BlurMatrix& blur, const BlurMatrix& adjoint, int iterations,
                        double smoothness, GreyBounds bounds, int early, Image<float>& at_early) {
  std::vector<float> packed;
  return fista(
      blurred, [&](HostView<const float> in, HostView<float> out) { multiply(blur, in, out, packed); },
      [&](HostView<const float> in, HostView<float> out) { multiply(adjoint, in, out, packed); }, iterations, smoothness, bounds, early,
      at_early);
}

BlurMatrix rigid_blur(const RigidMotion& m, int width, int height) {
  BlurMatrix a;
  a.width = width, a.height = height;
  const int n = width * height;
  const double corner = std::hypot(std::max(m.cx, width - 1 - m.cx), std::max(m.cy, height - 1 - m.cy));
  const double reach = std::hypot(m.dx, m.dy) + std::fabs(m.turn) * corner;  // the longest path in the patch
  // Samples every half pixel of the longest path: bilinear sampling fills in between (a quarter
  // pixel restored the same prints in bench/probe_deblur's sequences, at twice the cost).
  const int samples = std::max(2, static_cast<int>(std::ceil(2 * reach)));
  // The point at p at time t (-1/2..1/2 of the exposure) was at c + R(-t turn)(p - c - t d) at mid-exposure.
  std::vector<double> cosines(samples), sines(samples), times(samples);
  for (int s = 0; s < samples; ++s) {
    times[s] = (s + 0.5) / samples - 0.5;
    cosines[s] = std::cos(-times[s] * m.turn), sines[s] = std::sin(-times[s] * m.turn);
  }
  // A row's weights are summed in `sum` over the pixels its path touches (`touched`, each once:
  // `stamp` holds the row that last touched a pixel).
  std::vector<double> sum(static_cast<std::size_t>(n), 0.0);
  std::vector<int> stamp(static_cast<std::size_t>(n), -1), touched;
  a.row_start.reserve(static_cast<std::size_t>(n) + 1);
  a.row_start.push_back(0);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const int row = y * width + x;
      touched.clear();
      auto add = [&](int at, double w) {
        if (stamp[static_cast<std::size_t>(at)] != row) stamp[static_cast<std::size_t>(at)] = row, sum[static_cast<std::size_t>(at)] = 0, touched.push_back(at);
        sum[static_cast<std::size_t>(at)] += w;
      };
      for (int s = 0; s < samples; ++s) {
        const double rx = x - m.cx - times[s] * m.dx, ry = y - m.cy - times[s] * m.dy;
        const double qx = std::clamp(m.cx + cosines[s] * rx - sines[s] * ry, 0.0, width - 1.0);
        const double qy = std::clamp(m.cy + sines[s] * rx + cosines[s] * ry, 0.0, height - 1.0);
        const int x0 = std::min(static_cast<int>(qx), std::max(0, width - 2)), y0 = std::min(static_cast<int>(qy), std::max(0, height - 2));
        const int x1 = std::min(x0 + 1, width - 1), y1 = std::min(y0 + 1, height - 1);
        const double fx = qx - x0, fy = qy - y0;
        add(y0 * width + x0, (1 - fx) * (1 - fy));
        add(y0 * width + x1, fx * (1 - fy));
        add(y1 * width + x0, (1 - fx) * fy);
        add(y1 * width + x1, fx * fy);
      }
      std::sort(touched.begin(), touched.end());
      double total = 0;
      const std::size_t first = a.weight.size();
      for (const int at : touched)  // weights under a thousandth of a sample dropped
        if (const double w = sum[static_cast<std::size_t>(at)]; w > 1e-3) a.column.push_back(at), a.weight.push_back(static_cast<float>(w)), total += w;
      for (std::size_t j = first; j < a.weight.size(); ++j) a.weight[j] = static_cast<float>(a.weight[j] / total);
      a.row_start.push_back(static_cast<int>(a.column.size()));
    }
  return a;
}

Blur Blur::rigid(const RigidMotion& m, int width, int height) {
  Blur b;
  auto matrix = std::make_shared<BlurMatrix>(rigid_blur(m, width, height));
  b.adjoint = std::make_shared<BlurMatrix>(transposed(*matrix));
  b.matrix = std::move(matrix);
  return b;
}

Image<float> deconvolve(HostView<const float> blurred, const Blur& blur, int iterations, double smoothness, GreyBounds bounds, int early,
                        Image<float>& at_early) {
  return blur.varies() ? deconvolve(blurred, *blur.matrix, *blur.adjoint, iterations, smoothness, bounds, early, at_early)
                       : deconvolve(blurred, blur.taps, iterations, smoothness, bounds, early, at_early);
}

BlurMatrix transposed(const BlurMatrix& a) {
  BlurMatrix t;
  t.width = a.width, t.height = a.height;
  const std::size_t n = static_cast<std::size_t>(a.width) * a.height;
  t.row_start.assign(n + 1, 0);
  for (const int c : a.column) ++t.row_start[static_cast<std::size_t>(c) + 1];
  for (std::size_t i = 0; i < n; ++i) t.row_start[i + 1] += t.row_start[i];
  t.column.resize(a.column.size());
  t.weight.resize(a.weight.size());
  std::vector<int> next(t.row_start.begin(), t.row_start.end() - 1);
  for (std::size_t i = 0; i < n; ++i)  // rows in order: each transposed row's entries come by column
    for (int j = a.row_start[i]; j < a.row_start[i + 1]; ++j) {
      const int at = next[static_cast<std::size_t>(a.column[static_cast<std::size_t>(j)])]++;
      t.column[static_cast<std::size_t>(at)] = static_cast<int>(i);
      t.weight[static_cast<std::size_t>(at)] = a.weight[static_cast<std::size_t>(j)];
    }
  return t;
}

void multiply(const BlurMatrix& a, HostView<const float> in, HostView<float> out, std::vector<float>& packed) {
  const int w = a.width;
  // The input's rows packed, so that a column is an index into it.
  packed.resize(static_cast<std::size_t>(w) * a.height);
  for (int y = 0; y < a.height; ++y) std::copy(in.row(y), in.row(y) + w, packed.begin() + static_cast<std::ptrdiff_t>(y) * w);
  for (int y = 0; y < a.height; ++y) {
    float* o = out.row(y);
    for (int x = 0; x < w; ++x) o[x] = rule::row_sum_at(packed.data(), a.row_start.data(), a.column.data(), a.weight.data(), y * w + x);
  }
}

}  // namespace gpuvis::pipeline::second_look

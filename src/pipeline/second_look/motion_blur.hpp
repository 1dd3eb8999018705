#pragma once
// Linear motion blur in a patch of a frame: how it is estimated and how it is undone. A symbol
// slid during the exposure is the sharp print convolved with a line segment (the path of one
// point while the shutter was open), which merges or erases its small leaves. The second look
// (second_look.hpp) estimates that segment from the patch around a symbol that did not decode
// and takes it back out before thresholding again.
#include <memory>
#include <numbers>
#include <vector>

#include "gpuvis/core/image.hpp"

namespace gpuvis::pipeline::second_look {

struct MotionEstimate {
  double angle = 0;       // direction of travel, radians (x right, y down), in [0, π)
  double length = 0;      // pixels one point travelled during the exposure
  double anisotropy = 0;  // 0: gradients in every direction alike (no motion blur) .. 1: all across one
};

// Direction from the patch's structure tensor (blur along a direction weakens the gradients
// along it), length from the autocorrelation of the derivative along that direction: a box of
// length L turns each edge into a pair of opposite edges L apart, so the autocorrelation has its
// most negative lag at L (Yitzhaky and Kopeika's method). Lengths 2..max_length are found. The
// length is left 0 when the anisotropy is under `min_anisotropy` (a still patch: not worth it).
MotionEstimate estimate_motion(HostView<const float> patch, int max_length = 24, double min_anisotropy = 0);

// The smear's length along a known direction `angle` (the autocorrelation of estimate_motion);
// 0 where the patch is too small for lags up to max_length.
double length_along(HostView<const float> patch, double angle, int max_length = 24);
// Whether a patch of width x height is large enough for those lags (length_along is 0 otherwise).
bool lengths_measurable(int width, int height, int max_length);

// The turn (radians over the exposure, RigidMotion's sign) of a print smeared along `angle` by a
// length L: with the translation L (cos angle, sin angle), a point at v across it
// (v (-sin angle, cos angle)) moves by L - turn * v along it, so the smears of the patch's two sides
// across the travel differ by 2 * turn times their mean distance from the centre (each side's
// autocorrelation length, the distance weighted by its edges). 0 where the patch is too small.
double estimate_turn(HostView<const float> patch, double angle, int max_length = 24);

// One tap of a blur kernel: offset in pixels and weight.
struct Tap {
  int dx, dy;
  float weight;
};
// The line segment of `length` pixels at `angle`, centred on the origin, as pixel taps (area
// sampled, weights sum to 1).
std::vector<Tap> line_kernel(double angle, double length);

// out = kernel * in (out[x, y] = Σ weight · in[x - dx, y - dy]), edges replicated, out as large as
// in. Each output is 0 + w0·in0 + w1·in1 + … in the taps' order, a multiply and an add each (no
// fused multiply-add), so its bits are the same on every machine and vector width. `scratch` is
// kept by callers that convolve often (a deconvolution's every step), so no call allocates.
struct ConvolveScratch {
  std::vector<float> padded;       // the input's rows, their edge pixels repeated as far as the taps reach
  std::vector<const float*> from;  // each tap's first input of the output row being summed
};
void convolve_taps(HostView<const float> in, const std::vector<Tap>& kernel, HostView<float> out, ConvolveScratch& scratch);

// A print's motion while the shutter was open, as a rigid motion of the patch: slid by (dx, dy)
// pixels and turned by `turn` radians about its centre (cx, cy) (patch coordinates, at mid-exposure;
// x right, y down, a positive turn takes x towards y). A print slid and spun by hand at once turns
// about a centre v / omega away from its own, so the smear's length and direction change across it
// (8 px a frame and 6 degrees: the smear 4.8-11.2 px and 21 degrees either side over a print 60 px
// wide), which no line kernel restores (bench/probe_deblur with PROBE_SPIN).
struct RigidMotion {
  double dx = 0, dy = 0, turn = 0, cx = 0, cy = 0;
};
// A blur that varies across a width x height patch (pixels in rows, i = y * width + x), as a sparse
// matrix: out[i] = the sum over j in [row_start[i], row_start[i + 1]) of weight[j] * in[column[j]],
// summed from 0 in that order. Its rows sum to 1.
struct BlurMatrix {
  int width = 0, height = 0;
  std::vector<int> row_start, column;
  std::vector<float> weight;
};
// The rigid motion's blur: each pixel the mean of the sharp patch along the path its point came by
// (sampled every half pixel of the longest path, bilinear, edges replicated).
BlurMatrix rigid_blur(const RigidMotion& m, int width, int height);
// The transpose (the adjoint, which back-projects a residual), its rows' entries by column.
BlurMatrix transposed(const BlurMatrix& a);
// out = a * in (in and out a.width x a.height); `packed` holds in's rows packed (kept by callers
// that multiply often, so that no call allocates).
void multiply(const BlurMatrix& a, HostView<const float> in, HostView<float> out, std::vector<float>& packed);

// A blur a deconvolution takes out: a kernel of taps, the same all over the patch (a line: the
// smear of a print slid without turning), or a blur that varies across it (a print slid and
// turned: rigid), with its transpose.
struct Blur {
  std::vector<Tap> taps;
  std::shared_ptr<const BlurMatrix> matrix, adjoint;  // where set, the blur (taps unused)
  Blur() = default;
  Blur(std::vector<Tap> kernel) : taps(std::move(kernel)) {}  // NOLINT: a kernel is a blur
  static Blur rigid(const RigidMotion& m, int width, int height);
  bool varies() const { return matrix != nullptr; }
};

// The grey levels a sharp print can take in a patch: a print is paper and ink, and blur only
// mixes them, so the sharp patch is no brighter than the patch's brightest paper (its 98th
// percentile, plus a few levels of noise) and no darker than its darkest smeared ink (2nd
// percentile) less half the range between the two (the ink of small leaves is never seen whole).
struct GreyBounds {
  float lo = 1, hi = 255;
};
GreyBounds print_bounds(HostView<const float> patch);

// The patch's 2nd and 98th percentiles: its darkest and brightest levels, a few noisy pixels aside
// (levels rounded into 0..255: a frame's patch).
struct GreySpread {
  float dark = 0, bright = 0;
};
GreySpread grey_spread(HostView<const float> patch);
GreySpread grey_spread(HostView<const std::uint8_t> region);  // the same of a frame's pixels, without a copy

// Deconvolution of `blurred` by `kernel` (edges replicated): the patch u within `bounds` that
// minimises 1/2 |kernel * u - blurred|^2 + smoothness * sum sqrt(|grad u|^2 + eps^2) (grey levels;
// eps = kTvEpsilon), by projected gradient steps with Nesterov's momentum (FISTA, Beck and Teboulle
// 2009). The bounds are the print's two levels relaxed (print_bounds): ringing past the paper's
// white or the ink's black is put back where the print can be. The smoothed total variation holds
// back the noise that the data term alone amplifies in the directions the smear erased (without it
// the table around a print turns into texture and no symbol decodes). Against the Richardson-Lucy
// deconvolution with a total-variation term used until 2026-12-01, on the 240 prints of the camera
// table's frames smeared over 7 px, with the true smear and 60 iterations (bench/probe_deblur): 225
// decoded against 182, the symbols 48-55 px wide 42 of 55 against 9; at 9 px 234 against 157. RL's
// multiplicative steps restore the frequencies the smear nearly erased only after hundreds of
// iterations (195 at 200).
inline constexpr float kTvEpsilon = 8;
// The deconvolution's step for a smoothness lambda, and FISTA's momentum at each of `iterations`
// steps: the numbers every deconvolver (deconvolver.hpp) steps with.
float deconvolve_step(float lambda);
std::vector<float> fista_momentum(int iterations);
Image<float> deconvolve(HostView<const float> blurred, const std::vector<Tap>& kernel, int iterations, double smoothness = 0,
                        GreyBounds bounds = {});
// The same, also keeping the estimate after `early` iterations (0 < early < iterations; 0: none)
// in `at_early`: the second look decodes it too in JPEG-compressed frames, whose blocks grow with
// every iteration.
Image<float> deconvolve(HostView<const float> blurred, const std::vector<Tap>& kernel, int iterations, double smoothness,
                        GreyBounds bounds, int early, Image<float>& at_early);

// The same deconvolution of a blur that varies across the patch (`blur` and its transpose `adjoint`).
Image<float> deconvolve(HostView<const float> blurred, const BlurMatrix& blur, const BlurMatrix& adjoint, int iterations,
                        double smoothness, GreyBounds bounds, int early, Image<float>& at_early);

// Either: the taps' deconvolution, or the varying blur's.
Image<float> deconvolve(HostView<const float> blurred, const Blur& blur, int iterations, double smoothness, GreyBounds bounds, int early,
                        Image<float>& at_early);

}  // namespace gpuvis::pipeline::second_look

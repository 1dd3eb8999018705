// The yamaarashi design: the core's shapes in core-radius units and the ring's spikes at the
// decoder's sample directions, coloured by the decoder's own bit rules.
#include "gpuvis/synth/yamaarashi_print.hpp"

#include <cmath>
#include <numbers>
#include <sstream>

#include "decode/yamaarashi_rules.hpp"
#include "gpuvis/core/error.hpp"

namespace gpuvis::synth {
namespace {

namespace y = decode::yamaarashi;
constexpr double kPi = std::numbers::pi;

// The core: black dots b0, b1 above a black blob holding white dots w0, w1 directly below them, so
// that both b -> w directions point "down" for an upright symbol (angle 0, spec §5.3).
struct Ellipse {
  double x, y, rx, ry;
  bool contains(double u, double v) const {
    const double a = (u - x) / rx, b = (v - y) / ry;
    return a * a + b * b <= 1;
  }
};
constexpr Ellipse kBlackDots[2] = {{-0.35, -0.42, 0.19, 0.19}, {0.35, -0.42, 0.19, 0.19}};
constexpr Ellipse kBlob{0, 0.36, 0.64, 0.34};
constexpr Ellipse kWhiteDots[2] = {{-0.35, 0.36, 0.13, 0.13}, {0.35, 0.36, 0.13, 0.13}};

// The direction of sample (i, q) of an upright symbol, screen angle clockwise from +x.
double spike_direction(int i, int q) { return y::sample_direction(0, i, q, false); }

}  // namespace

YamaarashiDesign::YamaarashiDesign(int id) {
  require(id >= 0 && id < kYamaarashiIds, "yamaarashi IDs are 0 to 65535, got " + std::to_string(id));
  for (int i = 0; i < 6; ++i)
    for (int q = 0; q < 4; ++q)
      if (y::printed_black(static_cast<unsigned>(id), i, q)) spikes |= 1u << y::sample_bit(i, q);
}

bool YamaarashiDesign::black(double u, double v) const {
  const double r = std::hypot(u, v);
  if (r <= 1) {
    for (const Ellipse& w : kWhiteDots)
      if (w.contains(u, v)) return false;
    if (kBlob.contains(u, v)) return true;
    for (const Ellipse& b : kBlackDots)
      if (b.contains(u, v)) return true;
    return false;
  }
  if (r <= kRingOuter) return true;
  if (r > kSpikeOuter) return false;
  // The nearest sample direction: 24 steps of pi/12 from "up" (-pi/2), sample k = q * 6 + i.
  double d = std::atan2(v, u) + kPi / 2;
  d = std::fmod(d + 2 * kPi, 2 * kPi);
  const int k = static_cast<int>(std::lround(d / (kPi / 12))) % 24;
  if (std::abs(d - k * (kPi / 12)) > kSpikeHalfWidth && std::abs(d - 2 * kPi - k * (kPi / 12)) > kSpikeHalfWidth) return false;
  return (spikes >> y::sample_bit(k % 6, k / 6)) & 1u;
}

std::string YamaarashiDesign::svg(double x, double y0, double side) const {
  const double s = side / (2 * kHalfSide), cx = x + side / 2, cy = y0 + side / 2;
  std::ostringstream o;
  o.precision(6);
  auto ellipse = [&](const Ellipse& e, const char* fill) {
    o << "<ellipse cx=\"" << cx + e.x * s << "\" cy=\"" << cy + e.y * s << "\" rx=\"" << e.rx * s << "\" ry=\"" << e.ry * s
      << "\" fill=\"" << fill << "\"/>";
  };
  o << "<g>";
  // Spikes first (each an annular sector reaching into the ring), then the ring, the disc, the core.
  const double r0 = 1.1 * s, r1 = kSpikeOuter * s;
  for (int i = 0; i < 6; ++i)
    for (int q = 0; q < 4; ++q) {
      if (!((spikes >> y::sample_bit(i, q)) & 1u)) continue;
      const double a0 = spike_direction(i, q) - kSpikeHalfWidth, a1 = spike_direction(i, q) + kSpikeHalfWidth;
      o << "<path d=\"M" << cx + r0 * std::cos(a0) << "," << cy + r0 * std::sin(a0) << " L" << cx + r1 * std::cos(a0) << ","
        << cy + r1 * std::sin(a0) << " A" << r1 << "," << r1 << " 0 0 1 " << cx + r1 * std::cos(a1) << "," << cy + r1 * std::sin(a1)
        << " L" << cx + r0 * std::cos(a1) << "," << cy + r0 * std::sin(a1) << " A" << r0 << "," << r0 << " 0 0 0 "
        << cx + r0 * std::cos(a0) << "," << cy + r0 * std::sin(a0) << " Z\" fill=\"black\"/>";
    }
  ellipse({0, 0, kRingOuter, kRingOuter}, "black");
  ellipse({0, 0, 1, 1}, "white");
  for (const Ellipse& b : kBlackDots) ellipse(b, "black");
  ellipse(kBlob, "black");
  for (const Ellipse& w : kWhiteDots) ellipse(w, "white");
  o << "</g>";
  return o.str();
}

Image<std::uint8_t> render_yamaarashi(int id, int pixels) {
  require(pixels >= 16, "yamaarashi prints need at least 16 pixels");
  const YamaarashiDesign design(id);
  Image<std::uint8_t> img(pixels, pixels);
  const double scale = 2 * YamaarashiDesign::kHalfSide / pixels;
  constexpr int kSub = 4;
  for (int py = 0; py < pixels; ++py)
    for (int px = 0; px < pixels; ++px) {
      int white = 0;
      for (int j = 0; j < kSub; ++j)
        for (int i = 0; i < kSub; ++i) {
          const double u = (px + (i + 0.5) / kSub) * scale - YamaarashiDesign::kHalfSide;
          const double v = (py + (j + 0.5) / kSub) * scale - YamaarashiDesign::kHalfSide;
          white += !design.black(u, v);
        }
      img(px, py) = static_cast<std::uint8_t>(std::lround(255.0 * white / (kSub * kSub)));
    }
  return img;
}

}  // namespace gpuvis::synth

#pragma once
// Yamaarashi symbols (spec §6.10, the a0a5e09 variant: 16 data bits + CRC-8, weighted angle,
// ellipse radius), shared verbatim by the CPU decoder (yamaarashi.cpp) and the CUDA stage
// (cuda/yamaarashi.cu) so that both follow one definition (docs/decoding.md).
//
// A yamaarashi is a white disc (the root) holding the amoeba-like core w012211 (two black dots
// b0, b1 and a black blob with two white dots w0, w1), ringed by black "spikes": 24 sample
// directions at 1.5 root radii, 16 data bits and 8 check bits. The core gives the candidate
// (spec §4.2's special test) and the orientation; the ring gives the ID.
//
// Positions are the decoder's (sound) ones: region centroids in pixel-centre coordinates, the
// root's oriented box from its convex hull (blob_rules.hpp). Everything but the sample positions'
// cos/sin is exact arithmetic, so the CPU and the device read the same pixels.
#include <math.h>  // atan2, cos, sin, sqrt in the global namespace: the same names on the host and the device

#include "gpuvis/core/image.hpp"  // GPUVIS_HD
#include "decode/rules.hpp"

namespace gpuvis::decode::yamaarashi {

// The key of the core topology and the code its lookup gives (spec §4.5: inserted before any
// tree set entry, so a set's own "w012211" is rejected).
inline constexpr const char* kKey = "w012211";
inline constexpr int kCode = rules::kYamaarashi;
inline constexpr int kDescendants = 5;  // the root's descendants: b0, b1, the blob, w0, w1
inline constexpr int kDegree = 4;       // the root's neighbours: three children and its parent
inline constexpr int kSamples = 24;     // 6 steps of 15 degrees in each of 4 quadrants
inline constexpr double kRadius = 1.5;  // sample radius in root half-sizes

// §4.2's special test: a clean white region with 5 descendants and 4 neighbours (so 3 children)
// is a candidate whatever the tree set's bounds.
GPUVIS_HD inline bool special_candidate(int desc, int white, int degree, bool clean) {
  return clean && white && desc == kDescendants && degree == kDegree;
}

struct Point {
  double x, y;
};

// reacTIVision's angle of a direction: atan2 turned by -90 degrees, in [0, 2 pi].
GPUVIS_HD inline double direction_angle(double dx, double dy) {
  double a = atan2(dy, dx) - rules::kPi / 2;
  if (a < 0) a += 2 * rules::kPi;
  return a;
}

GPUVIS_HD inline double orientation(Point o, Point a, Point b) { return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x); }

// Do segments p0-p1 and q0-q1 cross (proper crossing)?
GPUVIS_HD inline bool segments_cross(Point p0, Point p1, Point q0, Point q1) {
  const double d1 = orientation(p0, p1, q0), d2 = orientation(p0, p1, q1);
  const double d3 = orientation(q0, q1, p0), d4 = orientation(q0, q1, p1);
  return ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0));
}

// Adds 2 pi to v when it is below pi/2 and more than pi below either other value (§6.10's unwrap).
GPUVIS_HD inline double unwrap(double v, double o1, double o2) {
  return v < rules::kPi / 2 && (o1 - v > rules::kPi || o2 - v > rules::kPi) ? v + 2 * rules::kPi : v;
}

// The refined angle (§6.10): the directions b0 -> w0 and b1 -> w1 (paired so that the segments do
// not cross), each weighted by its length, with the amoeba angle alpha weighted by their mean.
GPUVIS_HD inline double refined_angle(Point b0, Point b1, Point w0, Point w1, double alpha) {
  if (segments_cross(w0, b0, w1, b1)) {
    const Point t = b0;
    b0 = b1;
    b1 = t;
  }
  const double ax = w0.x - b0.x, ay = w0.y - b0.y, bx = w1.x - b1.x, by = w1.y - b1.y;
  double ta = direction_angle(ax, ay), tb = direction_angle(bx, by), al = alpha;
  ta = unwrap(ta, tb, al);
  tb = unwrap(tb, ta, al);
  al = unwrap(al, ta, tb);
  const double la = sqrt(ax * ax + ay * ay), lb = sqrt(bx * bx + by * by);
  double a = (ta * la + tb * lb + al * (la + lb) / 2) / (1.5 * (la + lb));
  if (a >= 2 * rules::kPi) a -= 2 * rules::kPi;
  return a;
}

// The root's oriented box as the sampling needs it: centre, half sizes between pixel centres
// (long >= short) and the long side's unit direction.
struct Box {
  double x, y, half_long, half_short, ux, uy;
};

// The direction of sample (i, q), i = 0..5 within quadrant q = 0..3: clockwise on screen from
// the symbol's "up" (angle - pi/2); counter-clockwise when the image is mirrored.
GPUVIS_HD inline double sample_direction(double angle, int i, int q, bool mirror) {
  const double turn = q * (rules::kPi / 2) + i * (rules::kPi / 12);
  return angle - rules::kPi / 2 + (mirror ? -turn : turn);
}

// The pixel of sample (i, q): at kRadius times the box's radius in that direction (a circle when
// the box is within 10% of square, else the box's inscribed ellipse), rounded half up. False when
// it lies outside a width x height frame.
GPUVIS_HD inline bool sample_pixel(const Box& b, double angle, int i, int q, bool mirror, int width, int height, int& px,
                                   int& py) {
  const double phi = sample_direction(angle, i, q, mirror);
  const double c = cos(phi), s = sin(phi);
  double rho = kRadius * b.half_short;
  if (b.half_short > 0 && b.half_long > 1.1 * b.half_short) {
    const double along = c * b.ux + s * b.uy, across = s * b.ux - c * b.uy;  // cos, sin of phi - box angle
    const double p = b.half_short * along, r = b.half_long * across;
    rho = kRadius * b.half_long * b.half_short / sqrt(p * p + r * r);
  }
  const double x = floor(b.x + rho * c + 0.5), y = floor(b.y + rho * s + 0.5);
  if (!(x >= 0 && y >= 0 && x < width && y < height)) return false;
  px = static_cast<int>(x);
  py = static_cast<int>(y);
  return true;
}

// Sample (i, q) is bit i * 4 + q of the mask of black samples. Data samples are i = 0, 1, 3, 4
// (black = 1, data bit k in reading order); check samples are i = 2, 5 (white = 1, check bit
// 2q + (i == 5)).
GPUVIS_HD inline int sample_bit(int i, int q) { return i * 4 + q; }
GPUVIS_HD inline bool is_check_sample(int i) { return i == 2 || i == 5; }

// One data bit into the CRC-8 (polynomial 0x07, initial 0) as §6.10 defines it: the bit into the
// top, then eight shift steps.
GPUVIS_HD inline unsigned crc_step(unsigned crc, unsigned bit) {
  crc ^= bit << 7;
  for (int s = 0; s < 8; ++s) crc = (crc & 0x80u) ? ((crc << 1) ^ 0x07u) & 0xffu : (crc << 1) & 0xffu;
  return crc;
}

// The check byte of a 16-bit ID.
GPUVIS_HD inline unsigned check_byte(unsigned id) {
  unsigned crc = 0;
  for (int k = 0; k < 16; ++k) crc = crc_step(crc, (id >> k) & 1u);
  return crc;
}

// Whether sample (i, q) of a symbol with this ID is printed black.
GPUVIS_HD inline bool printed_black(unsigned id, int i, int q) {
  if (is_check_sample(i)) return !((check_byte(id) >> (2 * q + (i == 5 ? 1 : 0))) & 1u);
  const int k = (i < 2 ? i : i - 1) * 4 + q;  // data bit index in reading order
  return (id >> k) & 1u;
}

// The ID from the 24 samples (black_mask: bit sample_bit(i, q) set when black), or kFuzzy when
// the check bits do not match.
GPUVIS_HD inline int decode_samples(unsigned black_mask) {
  unsigned data = 0, check = 0, crc = 0;
  int k = 0;
  for (int i = 0; i < 6; ++i)
    for (int q = 0; q < 4; ++q) {
      const unsigned black = (black_mask >> sample_bit(i, q)) & 1u;
      if (is_check_sample(i)) {
        check |= (black ^ 1u) << (2 * q + (i == 5 ? 1 : 0));
      } else {
        data |= black << k++;
        crc = crc_step(crc, black);
      }
    }
  return check == crc ? static_cast<int>(data) : rules::kFuzzy;
}

// The core's four reference regions, from the root's neighbours in list order: the leaf children
// are b0, b1; the other child's children are w0, w1. `Tree` gives degree(r), neighbour(r, k),
// is_child(parent, r) (traversed and fewer descendants) and centre(r). False when the core is
// not w012211's shape (it always is for a candidate that looked the key up).
template <class Tree>
GPUVIS_HD bool core_points(const Tree& t, int root, Point& b0, Point& b1, Point& w0, Point& w1) {
  int nb = 0, nw = 0;
  for (int k = 0; k < t.degree(root); ++k) {
    const int c = t.neighbour(root, k);
    if (!t.is_child(root, c)) continue;
    if (t.degree(c) == 1) {
      if (nb < 2) (nb == 0 ? b0 : b1) = t.centre(c);
      ++nb;
      continue;
    }
    for (int j = 0; j < t.degree(c); ++j) {
      const int g = t.neighbour(c, j);
      if (!t.is_child(c, g)) continue;
      if (nw < 2) (nw == 0 ? w0 : w1) = t.centre(g);
      ++nw;
    }
  }
  return nb == 2 && nw == 2;
}

// The symbol's centre: halfway between the amoeba centre (the leaves' weighted centroid) and the
// root's centroid (§6.10).
GPUVIS_HD inline Point centre(double leaves_x, double leaves_y, double root_x, double root_y) {
  return {(leaves_x + root_x) / 2, (leaves_y + root_y) / 2};
}

}  // namespace gpuvis::decode::yamaarashi

#include "pipeline/second_look/appearance.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <vector>

#include "pipeline/second_look/motion_blur.hpp"
#include "pipeline/second_look/second_look.hpp"  // patch_around

namespace gpuvis::pipeline::second_look {
namespace {

// The shares of the frame interval the shutter may be open for: the smear a motion leaves.
constexpr double kExposures[] = {0, 1.0 / 3, 2.0 / 3, 1};
// The turns tried about the best one before the fine search, radians (1.5 degrees apart).
constexpr double kTurn = 1.5 * std::numbers::pi / 180;
constexpr double kFineTurns[] = {-kTurn, kTurn, -2 * kTurn, 2 * kTurn};
// Where no match is close enough, turns this far apart (4 degrees) up to kWideTurns either way.
constexpr double kWideTurn = 4 * std::numbers::pi / 180;
constexpr int kWideTurns = 6;
// The stride-2 search's score below which the wide turns are not tried, and how far below the
// least score its best may be for the fine search to be made. Over 686 searches in seven of
// bench_detect's tracked sequences (8-16 px a frame, 2026-11-29), every print accepted at 0.8 had
// scored at least 0.58 before the turns and 0.75 after them; the turns added at most 0.31 and the
// fine search at most 0.27; and no search that scored under 0.5 before the turns ended above 0.38.
constexpr double kLeastForTurns = 0.4;
constexpr double kMostFineGain = 0.3;

float bilinear(const Image<float>& g, double x, double y) {
  x = std::clamp(x, 0.0, g.width() - 1.001);
  y = std::clamp(y, 0.0, g.height() - 1.001);
  const int x0 = static_cast<int>(x), y0 = static_cast<int>(y);
  const float fx = static_cast<float>(x - x0), fy = static_cast<float>(y - y0);
  const float top = g(x0, y0) + fx * (g(x0 + 1, y0) - g(x0, y0));
  const float bottom = g(x0, y0 + 1) + fx * (g(x0 + 1, y0 + 1) - g(x0, y0 + 1));
  return top + fy * (bottom - top);
}

// The appearance as the frame should show it around its root's centre: n x n samples `step`
// pixels apart over [-half, half]^2, row by row, zero mean and unit norm.
struct Template {
  std::vector<float> value;
  int n = 0, step = 1;
  bool flat = true;
};

Template make_template(const Appearance& a, double turn, double smear, double dir_x, double dir_y, int half, int step) {
  Template t;
  t.step = step;
  t.n = 2 * half / step + 1;
  t.value.reserve(static_cast<std::size_t>(t.n) * static_cast<std::size_t>(t.n));
  const double c = std::cos(turn), s = std::sin(turn);
  // The smear as taps about `step` pixels apart: finer than the template's own samples is wasted.
  const int taps = smear < 0.5 ? 1 : static_cast<int>(std::ceil(smear / step)) + 1;
  for (int j = 0; j < t.n; ++j)
    for (int i = 0; i < t.n; ++i) {
      const int u = -half + i * step, v = -half + j * step;
      float sum = 0;
      for (int k = 0; k < taps; ++k) {
        // The point of the print seen here at offset k of the exposure, then back to where it
        // was when the appearance was taken (turned back by the spin since).
        const double along = taps == 1 ? 0 : (static_cast<double>(k) / (taps - 1) - 0.5) * smear;
        const double x = u - along * dir_x, y = v - along * dir_y;
        sum += bilinear(a.grey, a.cx + c * x + s * y, a.cy - s * x + c * y);
      }
      t.value.push_back(sum / static_cast<float>(taps));
    }
  double mean = 0;
  for (float x : t.value) mean += x;
  mean /= static_cast<double>(t.value.size());
  double norm = 0;
  for (float& x : t.value) {
    x = static_cast<float>(x - mean);
    norm += static_cast<double>(x) * x;
  }
  norm = std::sqrt(norm);
  t.flat = norm < 1e-3 * static_cast<double>(t.value.size());
  if (!t.flat)
    for (float& x : t.value) x = static_cast<float>(x / norm);
  return t;
}

// The normalised cross-correlation from the template's dot product with the pixels under it and
// their sum and sum of squares (the template has zero mean: the dot product is their covariance).
double ncc(double dot, double sum, double sum_sq, std::size_t n) {
  const double spread = sum_sq - sum * sum / static_cast<double>(n);
  return spread > 1e-6 ? dot / std::sqrt(spread) : 0;
}

// Normalised cross-correlation of the template placed with its centre at frame pixel (x, y):
// -2 when it does not lie wholly in the frame, 0 where the frame is flat.
double correlate(HostView<const std::uint8_t> frame, const Template& t, int half, int x, int y) {
  if (x - half < 0 || y - half < 0 || x + half >= frame.width || y + half >= frame.height) return -2;
  std::int64_t sum = 0, sum_sq = 0;
  float dot = 0;
  for (int j = 0; j < t.n; ++j) {
    const std::uint8_t* row = frame.row(y - half + j * t.step) + (x - half);
    const float* w = t.value.data() + static_cast<std::ptrdiff_t>(j) * t.n;
    int row_sum = 0, row_sq = 0;
    for (int i = 0; i < t.n; ++i) {
      const int p = row[i * t.step];
      row_sum += p;
      row_sq += p * p;
      dot += static_cast<float>(p) * w[i];
    }
    sum += row_sum;
    sum_sq += row_sq;
  }
  return ncc(dot, static_cast<double>(sum), static_cast<double>(sum_sq), t.value.size());
}

// The sum of a[i] * b[i] over n in four running sums, which the compiler keeps in one vector
// register (a single sum's order of additions would have to be kept, one at a time).
float dot_product(const float* a, const float* b, int n) {
  float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  int i = 0;
  for (; i + 4 <= n; i += 4) {
    s0 += a[i] * b[i];
    s1 += a[i + 1] * b[i + 1];
    s2 += a[i + 2] * b[i + 2];
    s3 += a[i + 3] * b[i + 3];
  }
  for (; i < n; ++i) s0 += a[i] * b[i];
  return (s0 + s1) + (s2 + s3);
}

// The coarse search's places: every other pixel within `reach` (and 2 more) of (at_x, at_y), and
// the frame's pixels a stride-2 template placed there reads, which all lie on one lattice of
// every other pixel: copied once as floats, row by row, with each place's sum and sum of squares,
// so that every template (each exposure, each turn) costs only its dot products.
struct Lattice {
  std::vector<float> pixels;   // (x0 + 2i, y0 + 2j), `width` a row; 0 outside the frame
  std::vector<double> sum, sum_sq;  // per place k, l (dx = -reach - 2 + 2k); sum -1: not wholly in the frame
  int x0 = 0, y0 = 0, width = 0, places = 0, reach = 0;
};

Lattice make_lattice(HostView<const std::uint8_t> frame, int at_x, int at_y, int half, int reach) {
  Lattice L;
  L.reach = reach + 2;
  L.places = L.reach + 1;  // dx = -L.reach .. L.reach step 2
  const int n = half + 1;  // a stride-2 template's samples a side
  L.x0 = at_x - L.reach - half;
  L.y0 = at_y - L.reach - half;
  L.width = L.places + n - 1;
  L.pixels.assign(static_cast<std::size_t>(L.width) * static_cast<std::size_t>(L.width), 0.0f);
  for (int j = 0; j < L.width; ++j) {
    const int y = L.y0 + 2 * j;
    if (y < 0 || y >= frame.height) continue;
    for (int i = 0; i < L.width; ++i) {
      const int x = L.x0 + 2 * i;
      if (x >= 0 && x < frame.width) L.pixels[static_cast<std::size_t>(j) * L.width + i] = frame(x, y);
    }
  }
  // Each place's sum and sum of squares from the lattice's summed-area tables.
  const std::size_t side = static_cast<std::size_t>(L.width) + 1;
  std::vector<double> area(side * side, 0.0), area_sq(side * side, 0.0);
  for (int j = 0; j < L.width; ++j)
    for (int i = 0; i < L.width; ++i) {
      const double p = L.pixels[static_cast<std::size_t>(j) * L.width + i];
      const std::size_t at = (j + 1) * side + i + 1;
      area[at] = p + area[at - 1] + area[at - side] - area[at - side - 1];
      area_sq[at] = p * p + area_sq[at - 1] + area_sq[at - side] - area_sq[at - side - 1];
    }
  const auto box = [&](const std::vector<double>& t, int k, int l) {
    const std::size_t top = static_cast<std::size_t>(l) * side + k, bottom = static_cast<std::size_t>(l + n) * side + k;
    return t[bottom + n] - t[bottom] - t[top + n] + t[top];
  };
  L.sum.assign(static_cast<std::size_t>(L.places) * static_cast<std::size_t>(L.places), -1.0);
  L.sum_sq = L.sum;
  for (int l = 0; l < L.places; ++l)
    for (int k = 0; k < L.places; ++k) {
      const int x = at_x - L.reach + 2 * k, y = at_y - L.reach + 2 * l;
      if (x - half < 0 || y - half < 0 || x + half >= frame.width || y + half >= frame.height) continue;
      L.sum[static_cast<std::size_t>(l) * L.places + k] = box(area, k, l);
      L.sum_sq[static_cast<std::size_t>(l) * L.places + k] = box(area_sq, k, l);
    }
  return L;
}

// The stride-2 template's correlation at offset (dx, dy) (even, within the lattice's reach): -2
// where it does not lie wholly in the frame or the place is beyond the lattice.
double correlate(const Lattice& L, const Template& t, int dx, int dy) {
  const int k = (dx + L.reach) / 2, l = (dy + L.reach) / 2;
  if (k < 0 || l < 0 || k >= L.places || l >= L.places) return -2;
  const std::size_t place = static_cast<std::size_t>(l) * L.places + k;
  if (L.sum[place] < 0) return -2;
  float dot = 0;
  for (int j = 0; j < t.n; ++j)
    dot += dot_product(L.pixels.data() + static_cast<std::size_t>(l + j) * L.width + k, t.value.data() + static_cast<std::ptrdiff_t>(j) * t.n, t.n);
  return ncc(dot, L.sum[place], L.sum_sq[place], t.value.size());
}

// The vertex of the parabola through (-1, l), (0, m), (1, r): the peak's offset from 0.
double peak_offset(double l, double m, double r) {
  const double curvature = l - 2 * m + r;
  return curvature < 0 ? std::clamp(0.5 * (l - r) / curvature, -0.5, 0.5) : 0;
}

// The symbol's centre less its root's, as when the appearance was taken, turned by `turn`.
std::array<double, 2> turned_offset(const Appearance& a, double turn) {
  const double c = std::cos(turn), s = std::sin(turn);
  const double x = a.symbol.x - a.symbol.root_x, y = a.symbol.y - a.symbol.root_y;
  return {c * x - s * y, s * x + c * y};
}

}  // namespace

bool capture(HostView<const std::uint8_t> frame, const decode::Fiducial& symbol, double speed, long index, Appearance& out,
             const Restoration* sharp) {
  const int half = static_cast<int>(std::ceil(0.75 * symbol.root_size)) + 2;
  const int x0 = static_cast<int>(std::lround(symbol.root_x)) - half, y0 = static_cast<int>(std::lround(symbol.root_y)) - half;
  if (symbol.root_size <= 0 || x0 < 0 || y0 < 0 || x0 + 2 * half >= frame.width || y0 + 2 * half >= frame.height) return false;
  out.grey = Image<float>(2 * half + 1, 2 * half + 1);
  for (int y = 0; y <= 2 * half; ++y)
    for (int x = 0; x <= 2 * half; ++x) {
      const int rx = x0 + x - (sharp ? sharp->x0 : 0), ry = y0 + y - (sharp ? sharp->y0 : 0);
      const bool restored = sharp && rx >= 0 && ry >= 0 && rx < sharp->grey.width() && ry < sharp->grey.height();
      out.grey(x, y) = restored ? sharp->grey(rx, ry) : frame(x0 + x, y0 + y);
    }
  out.cx = symbol.root_x - x0;
  out.cy = symbol.root_y - y0;
  out.symbol = symbol;
  out.speed = sharp ? 0 : speed;
  out.smear_angle = sharp ? sharp->smear_angle : 0;
  out.smear_length = sharp ? sharp->smear_length : 0;
  out.frame = index;
  return true;
}

namespace {

// The best match so far: its score, the appearance's turn and smear and the smear's direction, and
// its place as an offset in whole pixels from where the root's centre was expected.
struct Search {
  double score = -1, turn = 0, smear = 0, direction = 0;
  int dx = 0, dy = 0;
};

// Every other pixel of the template turned by `s.turn` and smeared along `direction` by each
// exposure's share of the speed gained since the appearance, at every other place within `reach`.
void coarse_search(const Lattice& L, const Appearance& a, double speed, double direction, int half, int reach, Search& s) {
  double last_smear = -1;
  for (double exposure : kExposures) {
    const double smear = exposure * std::max(0.0, speed - a.speed);
    if (smear - last_smear < 0.75) continue;  // the same smear as the last exposure's, near enough
    last_smear = smear;
    const Template t = make_template(a, s.turn, smear, std::cos(direction), std::sin(direction), half, 2);
    if (t.flat) continue;
    for (int dy = -reach; dy <= reach; dy += 2)
      for (int dx = -reach; dx <= reach; dx += 2) {
        const double score = correlate(L, t, dx, dy);
        if (score > s.score) s = {score, s.turn, smear, direction, dx, dy};
      }
  }
}

// Turns up to kWideTurns * kWideTurn either way of the best one, around the best place.
void wide_turns(const Lattice& L, const Appearance& a, int half, Search& s) {
  const Search around = s;
  for (int k = 1; k <= kWideTurns; ++k)
    for (int sign : {-1, 1}) {
      const double turn = around.turn + sign * k * kWideTurn;
      const Template t = make_template(a, turn, around.smear, std::cos(around.direction), std::sin(around.direction), half, 2);
      if (t.flat) continue;
      for (int dy = around.dy - 2; dy <= around.dy + 2; dy += 2)
        for (int dx = around.dx - 2; dx <= around.dx + 2; dx += 2) {
          const double score = correlate(L, t, dx, dy);
          if (score > s.score) s = {score, turn, around.smear, around.direction, dx, dy};
        }
    }
}

// The turn a little either way of the best one (the print's spin may have changed since it last
// decoded) that matches best at every other pixel around the best place; then every pixel of the
// template at that turn, at every place around the best, and the parabola's peak through the best
// place and its neighbours either way.
AppearanceMatch fine_search(HostView<const std::uint8_t> frame, const Lattice& L, const Appearance& a, int at_x, int at_y, int half,
                            Search s) {
  const Search around = s;
  for (double step : kFineTurns) {
    const Template t = make_template(a, around.turn + step, around.smear, std::cos(around.direction), std::sin(around.direction), half, 2);
    if (t.flat) continue;
    for (int dy = around.dy - 2; dy <= around.dy + 2; dy += 2)
      for (int dx = around.dx - 2; dx <= around.dx + 2; dx += 2) {
        const double score = correlate(L, t, dx, dy);
        if (score > s.score) s = {score, around.turn + step, around.smear, around.direction, dx, dy};
      }
  }
  AppearanceMatch best;
  best.turn = s.turn;
  best.smear = s.smear;
  const Template t = make_template(a, s.turn, s.smear, std::cos(s.direction), std::sin(s.direction), half, 1);
  if (t.flat) return best;
  double scores[5][5];
  int fx = -1, fy = -1;
  for (int j = 0; j < 5; ++j)
    for (int i = 0; i < 5; ++i) {
      scores[j][i] = correlate(frame, t, half, at_x + s.dx + i - 2, at_y + s.dy + j - 2);
      if (fx < 0 || scores[j][i] > scores[fy][fx]) fx = i, fy = j;
    }
  best.score = std::max(scores[fy][fx], -1.0);
  const double sub_x = fx > 0 && fx < 4 ? peak_offset(scores[fy][fx - 1], scores[fy][fx], scores[fy][fx + 1]) : 0;
  const double sub_y = fy > 0 && fy < 4 ? peak_offset(scores[fy - 1][fx], scores[fy][fx], scores[fy + 1][fx]) : 0;
  best.x = at_x + s.dx + fx - 2 + sub_x;
  best.y = at_y + s.dy + fy - 2 + sub_y;
  return best;
}

// The stride-2 search's best as a match, without the fine search.
AppearanceMatch coarse_match(int at_x, int at_y, const Search& s) {
  AppearanceMatch m;
  m.x = at_x + s.dx;
  m.y = at_y + s.dy;
  m.turn = s.turn;
  m.smear = s.smear;
  m.score = s.score;
  return m;
}

}  // namespace

AppearanceMatch find_appearance(HostView<const std::uint8_t> frame, const Appearance& a, const decode::ExpectedSymbol& e,
                                double least_score) {
  Search s;
  s.turn = std::remainder(e.angle - a.symbol.angle, 2 * std::numbers::pi);
  // Where the root's centre should be: the symbol's centre less its offset from the root, turned.
  const auto offset = turned_offset(a, s.turn);
  const int at_x = static_cast<int>(std::lround(e.x - offset[0]));
  const int at_y = static_cast<int>(std::lround(e.y - offset[1]));
  double speed = std::hypot(e.vx, e.vy), direction = std::atan2(e.vy, e.vx);
  const int half = std::max(6, static_cast<int>(std::lround(0.5 * a.symbol.root_size)));
  // The tracker's prediction is off by the change of velocity since the last frame: a print that
  // stops or turns back is off by up to its speed. A print it has just started has no velocity
  // yet; if its picture had a smear taken out, it moved along that smear, either way, at least as
  // far a frame (the shutter is open for at most the frame's interval): twice as far is searched.
  // (Without, prints smeared over 12 px that decoded once were lost the next frame, 16 px away.)
  const bool new_motion = speed < 0.5 * a.smear_length;
  if (new_motion) speed = a.smear_length, direction = a.smear_angle;
  const int reach = static_cast<int>(std::min(6 + (new_motion ? 2 : 1) * speed, 0.5 * a.symbol.root_size));
  const Lattice lattice = make_lattice(frame, at_x, at_y, half, reach);
  coarse_search(lattice, a, speed, direction, half, reach, s);
  if (s.score < least_score && speed > 2) {
    // The print changed course (it hit another, or the hand turned it): the direction of its smear
    // is read from the frame around the place instead.
    const Patch patch = patch_around(frame, at_x, at_y, a.symbol.root_size);
    if (patch.grey.width() > 0) {
      const MotionEstimate m = estimate_motion(patch.grey.view(), std::clamp(a.symbol.root_size / 3, 4, 24));
      if (std::abs(std::remainder(m.angle - direction, std::numbers::pi)) > 0.2)
        coarse_search(lattice, a, speed, m.angle, half, reach, s);
    }
  }
  if (s.score <= -1) return {};  // no place within reach lies in the frame
  // The angle read from a smeared print is less sure than its place: other turns are tried where
  // the place matched a little. Where it did not match at all (a print lifted, or one that jumped
  // away), no turn will make it, and the stride-2 search's own best is the answer; so too after the
  // turns when the best is too far below `least_score` for the fine search to lift it there.
  if (s.score < least_score && s.score >= kLeastForTurns) wide_turns(lattice, a, half, s);
  if (s.score < least_score - kMostFineGain) return coarse_match(at_x, at_y, s);
  return fine_search(frame, lattice, a, at_x, at_y, half, s);
}

decode::Fiducial followed_symbol(const Appearance& a, const AppearanceMatch& m) {
  decode::Fiducial f = a.symbol;
  const auto offset = turned_offset(a, m.turn);
  f.root_x = m.x;
  f.root_y = m.y;
  f.x = m.x + offset[0];
  f.y = m.y + offset[1];
  f.angle = std::fmod(a.symbol.angle + m.turn + 4 * std::numbers::pi, 2 * std::numbers::pi);
  f.root = -1;  // no region of this frame is its root
  f.leaves = f.gated_leaves = f.leaf_begin = 0;
  f.followed = true;
  return f;
}

decode::Blob followed_blob(const Appearance& a, const AppearanceMatch& m) {
  decode::Blob b = a.blob;  // its region is the one it had when it decoded: the geometry is known
  if (!b.ok()) return b;
  b.x += m.x - a.symbol.root_x;
  b.y += m.y - a.symbol.root_y;
  b.angle = std::fmod(b.angle + m.turn + 2 * std::numbers::pi, std::numbers::pi);
  return b;
}

bool inside_frame(const Appearance& a, const AppearanceMatch& m, int width, int height) {
  // The root's centre and the symbol's (a yamaarashi symbol's centre is not its root's) both.
  const double half = 0.5 * a.symbol.root_size + 1;
  const decode::Fiducial f = followed_symbol(a, m);
  const auto inside = [&](double x, double y) { return x >= half && y >= half && x <= width - 1 - half && y <= height - 1 - half; };
  return inside(m.x, m.y) && inside(f.x, f.y);
}

}  // namespace gpuvis::pipeline::second_look

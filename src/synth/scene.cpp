// The scene generator. Frames are built in linear light: reflectance (paper 0.9, ink 0.06, table)
// times an illumination field, then blurred, given sensor noise and quantised to 8 bits.
#include "gpuvis/synth/scene.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <numbers>
#include <sstream>

#include "decode/yamaarashi_rules.hpp"
#include "gpuvis/decode/fiducial.hpp"
#include "gpuvis/io/image_file.hpp"
#include "gpuvis/segment/region_tree.hpp"
#include "segment/cpu/segment.hpp"
#include "gpuvis/synth/yamaarashi_print.hpp"
#include "gpuvis/threshold/threshold.hpp"

namespace gpuvis::synth {
namespace {

constexpr double kPaper = 0.9, kInk = 0.06;

double wrap(double a) {
  const double two_pi = 2 * std::numbers::pi;
  a = std::fmod(a, two_pi);
  return a < 0 ? a + two_pi : a;
}

Homography multiply(const Homography& a, const Homography& b) {
  Homography r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      r.m[3 * i + j] = 0;
      for (int k = 0; k < 3; ++k) r.m[3 * i + j] += a.m[3 * i + k] * b.m[3 * k + j];
    }
  return r;
}

Homography make(double a, double b, double c, double d, double e, double f, double g = 0, double h = 0) {
  Homography r;
  const double v[9] = {a, b, c, d, e, f, g, h, 1};
  std::copy(v, v + 9, r.m);
  return r;
}

// Print pixel -> frame: centre the print, perspective, scale, rotate (clockwise on screen with y
// down), move to (cx, cy).
Homography placement(double print_size, double side, double rotation, double cx, double cy, double px, double py) {
  const double s = side / print_size, c = std::cos(rotation), n = std::sin(rotation);
  const double half = print_size / 2;
  Homography h = make(1, 0, -half, 0, 1, -half);
  h = multiply(make(1, 0, 0, 0, 1, 0, px / half, py / half), h);
  h = multiply(make(s * c, -s * n, 0, s * n, s * c, 0), h);
  return multiply(make(1, 0, cx, 0, 1, cy), h);
}

void gaussian_blur(Image<float>& img, double sigma) {
  if (sigma <= 0) return;
  const int r = std::max(1, static_cast<int>(std::ceil(3 * sigma)));
  std::vector<float> k(static_cast<std::size_t>(2 * r + 1));
  float sum = 0;
  for (int i = -r; i <= r; ++i) sum += k[i + r] = static_cast<float>(std::exp(-0.5 * i * i / (sigma * sigma)));
  for (auto& v : k) v /= sum;
  const int w = img.width(), h = img.height();
  Image<float> tmp(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      float acc = 0;
      for (int i = -r; i <= r; ++i) acc += k[i + r] * img(std::clamp(x + i, 0, w - 1), y);
      tmp(x, y) = acc;
    }
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      float acc = 0;
      for (int i = -r; i <= r; ++i) acc += k[i + r] * tmp(x, std::clamp(y + i, 0, h - 1));
      img(x, y) = acc;
    }
}

// How a print moves while the shutter is open: its offset (pixels) and turn (radians) from the
// start of the exposure to its end.
struct Motion {
  double dx, dy, turn;
};

// The instants of an exposure, evenly spread and centred on the frame's time, each as the
// homography `at(dx, dy, turn)` of the print there: enough instants that no point of a print of
// side `side` moves more than half a pixel between two (at most 64), one for a still print.
template <typename At>
std::vector<Homography> exposure(const Motion& m, double side, At at) {
  const double path = std::hypot(m.dx, m.dy) + std::abs(m.turn) * side * 0.75;
  const int instants = std::clamp(static_cast<int>(std::ceil(2 * path)) + 1, 1, 64);
  std::vector<Homography> hs;
  for (int k = 0; k < instants; ++k) {
    const double t = instants == 1 ? 0.0 : static_cast<double>(k) / (instants - 1) - 0.5;
    hs.push_back(at(t * m.dx, t * m.dy, t * m.turn));
  }
  return hs;
}

// A lens's fall-off: brightness times 1 - strength (r / r_corner)^2 about the frame's centre.
void vignette(Image<float>& img, double strength) {
  if (strength <= 0) return;
  const double cx = img.width() / 2.0, cy = img.height() / 2.0, corner2 = cx * cx + cy * cy;
  for (int y = 0; y < img.height(); ++y)
    for (int x = 0; x < img.width(); ++x) {
      const double dx = x + 0.5 - cx, dy = y + 0.5 - cy;
      img(x, y) = static_cast<float>(img(x, y) * (1 - strength * (dx * dx + dy * dy) / corner2));
    }
}

double bilinear(const Image<std::uint8_t>& img, double u, double v) {
  u -= 0.5;
  v -= 0.5;  // pixel centres at +0.5
  const int x0 = static_cast<int>(std::floor(u)), y0 = static_cast<int>(std::floor(v));
  const double fx = u - x0, fy = v - y0;
  auto at = [&](int x, int y) { return static_cast<double>(img(std::clamp(x, 0, img.width() - 1), std::clamp(y, 0, img.height() - 1))); };
  return (1 - fy) * ((1 - fx) * at(x0, y0) + fx * at(x0 + 1, y0)) + fy * ((1 - fx) * at(x0, y0 + 1) + fx * at(x0 + 1, y0 + 1));
}

}  // namespace

void Homography::apply(double x, double y, double& ox, double& oy) const {
  const double w = m[6] * x + m[7] * y + m[8];
  ox = (m[0] * x + m[1] * y + m[2]) / w;
  oy = (m[3] * x + m[4] * y + m[5]) / w;
}

Homography Homography::inverse() const {
  const double* a = m;
  Homography r;
  const double det = a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) + a[2] * (a[3] * a[7] - a[4] * a[6]);
  r.m[0] = (a[4] * a[8] - a[5] * a[7]) / det;
  r.m[1] = (a[2] * a[7] - a[1] * a[8]) / det;
  r.m[2] = (a[1] * a[5] - a[2] * a[4]) / det;
  r.m[3] = (a[5] * a[6] - a[3] * a[8]) / det;
  r.m[4] = (a[0] * a[8] - a[2] * a[6]) / det;
  r.m[5] = (a[2] * a[3] - a[0] * a[5]) / det;
  r.m[6] = (a[3] * a[7] - a[4] * a[6]) / det;
  r.m[7] = (a[1] * a[6] - a[0] * a[7]) / det;
  r.m[8] = (a[0] * a[4] - a[1] * a[3]) / det;
  return r;
}

namespace {

// The print of a yamaarashi, drawn (the core disc 61 pixels in radius, like a bundled print's root).
constexpr int kYamaarashiPrintPixels = 256;

Image<std::uint8_t> read_print(const std::string& dir, const std::string& set, int id, std::string& path) {
  if (set == "yamaarashi") {
    path = "yamaarashi " + std::to_string(id);
    return render_yamaarashi(id, kYamaarashiPrintPixels);
  }
  char stem[64];
  std::snprintf(stem, sizeof stem, "amoeba_%s_%03d", set.c_str(), id);
  path = dir + "/" + stem + ".png";
  std::error_code ec;
  if (!std::filesystem::exists(path, ec) || !codec::available()) {
    path = dir + "/" + stem + ".pgm";
    if (!std::filesystem::exists(path, ec))
      fail(ErrorCode::unsupported, std::string("symbol print ") + stem + " not found in '" + dir + "'" +
                                       (codec::available() ? "" : " (the bundled prints are PNG files and this build has no PNG support: "
                                                                  "install libpng-dev and libjpeg-dev, or pass --symbols-dir with PGM copies)"));
  }
  return read_grey8(path);
}

}  // namespace

SymbolPrint load_symbol(const std::string& dir, const std::string& set, int id) {
  SymbolPrint p;
  p.set = set;
  p.id = id;
  p.yamaarashi = set == "yamaarashi";
  std::string path;
  p.pixels = read_print(dir, set, id, path);
  // Reference geometry from the clean print itself, decoded with the detector's stages (default
  // threshold, segmentation, decoder). Centroids are taken in pixel-centre coordinates + 0.5 so
  // they live in the same continuous frame as the homography.
  Image<std::uint8_t> binary(p.pixels.width(), p.pixels.height());
  threshold::Params bernsen;  // full Bernsen h = 12, gate 32 (on a clean print any window gives its shapes)
  bernsen.backend = Backend::cpu;
  threshold::threshold(p.pixels.view(), binary.view(), bernsen);
  decode::TreeSet trees = decode::TreeSet::load(p.yamaarashi ? "default" : set);
  trees.yamaarashi = p.yamaarashi;
  decode::Decoder decoder(std::move(trees));
  segment::RegionTree tree;
  segment::segment_cpu(binary.view(), decoder.tree_set().cap(), tree);
  std::vector<decode::Fiducial> found;
  decoder.decode(tree, binary.view(), found);
  for (const auto& f : found)
    if (f.id == id) {
      const auto& leaves = decoder.leaves();
      for (int i = f.leaf_begin; i < f.leaf_begin + f.leaves; ++i) {
        const int r = leaves[i].region;
        p.leaves.push_back({tree.centroid_x(r) + 0.5, tree.centroid_y(r) + 0.5, leaves[i].weight, tree.colour[r] == 0});
      }
      p.root_size = f.root_size;
      p.root_x = f.root_x + 0.5;
      p.root_y = f.root_y + 0.5;
      break;
    }
  if (p.leaves.empty()) fail(ErrorCode::format, path + ": the print does not decode as " + set + " ID " + std::to_string(id));
  return p;
}

void true_pose(const SymbolPrint& print, const Homography& h, double& x, double& y, double& angle) {
  double sw = 0, sx = 0, sy = 0, bw = 0, bx = 0, by = 0;
  for (const auto& l : print.leaves) {
    double fx, fy;
    h.apply(l.x, l.y, fx, fy);
    fx -= 0.5;  // back to pixel-centre coordinates, as the decoder reports
    fy -= 0.5;
    sw += l.weight;
    sx += l.weight * fx;
    sy += l.weight * fy;
    if (l.black) {
      bw += l.weight;
      bx += l.weight * fx;
      by += l.weight * fy;
    }
  }
  x = sx / sw;
  y = sy / sw;
  angle = wrap(std::atan2(y - by / bw, x - bx / bw) - std::numbers::pi / 2);
  if (!print.yamaarashi) return;
  // The core's dots in leaf order (b0, b1 black; w0, w1 white) and the root's centroid.
  namespace yama = decode::yamaarashi;
  yama::Point b[2]{}, w[2]{};
  int nb = 0, nw = 0;
  for (const auto& l : print.leaves) {
    yama::Point q{};
    h.apply(l.x, l.y, q.x, q.y);
    q = {q.x - 0.5, q.y - 0.5};
    if (l.black && nb < 2) b[nb++] = q;
    else if (!l.black && nw < 2) w[nw++] = q;
  }
  double rx, ry;
  h.apply(print.root_x, print.root_y, rx, ry);
  const yama::Point c = yama::centre(x, y, rx - 0.5, ry - 0.5);
  angle = yama::refined_angle(b[0], b[1], w[0], w[1], angle);
  x = c.x;
  y = c.y;
}

const SymbolPrint& Generator::print(const std::string& set, int id) {
  for (const auto& p : cache_)
    if (p.set == set && p.id == id) return p;
  cache_.push_back(load_symbol(dir_, set, id));
  return cache_.back();
}

void Generator::draw_print(Image<float>& reflect, const SymbolPrint& p, const std::vector<Homography>& exposure, double ink) {
  const double n = p.pixels.width();
  double xmin = 1e9, xmax = -1e9, ymin = 1e9, ymax = -1e9;
  std::vector<Homography> inverse;
  for (const Homography& h : exposure) {
    inverse.push_back(h.inverse());
    for (double u : {0.0, n})
      for (double v : {0.0, n}) {
        double x, y;
        h.apply(u, v, x, y);
        xmin = std::min(xmin, x), xmax = std::max(xmax, x), ymin = std::min(ymin, y), ymax = std::max(ymax, y);
      }
  }
  // Supersample when the print is shrunk, so thin strokes are area-averaged rather than aliased;
  // the instants of a long exposure average along the motion too, so they need fewer.
  double sx0, sy0, sx1, sy1;
  inverse[0].apply(xmin, ymin, sx0, sy0);
  inverse[0].apply(xmin + 1, ymin, sx1, sy1);
  const int instants = static_cast<int>(exposure.size());
  const int ss0 = std::clamp(static_cast<int>(std::ceil(std::hypot(sx1 - sx0, sy1 - sy0))), 1, 6);
  const int ss = std::max(instants > 1 ? 2 : 1, ss0 / static_cast<int>(std::ceil(std::sqrt(instants))));
  const double samples = static_cast<double>(ss * ss) * instants;
  // A pixel whose centre maps farther outside the print than any of its samples can (twice the
  // half-diagonal of a pixel in print units, plus one) gets nothing from it: skipped unsampled. Only
  // time is saved; every pixel that a sample could reach is computed as before.
  const double reach = std::hypot(sx1 - sx0, sy1 - sy0) * std::numbers::sqrt2 + 1;
  auto beyond_the_print = [&](int x, int y) {
    for (const Homography& inv : inverse) {
      double u, v;
      inv.apply(x + 0.5, y + 0.5, u, v);
      if (u > -reach && v > -reach && u < n + reach && v < n + reach) return false;
    }
    return true;
  };
  for (int y = std::max(0, static_cast<int>(ymin)); y <= std::min(reflect.height() - 1, static_cast<int>(ymax) + 1); ++y)
    for (int x = std::max(0, static_cast<int>(xmin)); x <= std::min(reflect.width() - 1, static_cast<int>(xmax) + 1); ++x) {
      if (beyond_the_print(x, y)) continue;
      double acc = 0;
      int inside = 0;
      for (const Homography& inv : inverse)
        for (int j = 0; j < ss; ++j)
          for (int i = 0; i < ss; ++i) {
            double u, v;
            inv.apply(x + (i + 0.5) / ss, y + (j + 0.5) / ss, u, v);
            if (u < 0 || v < 0 || u >= n || v >= n) continue;
            ++inside;
            acc += ink + (kPaper - ink) * bilinear(p.pixels, u, v) / 255.0;
          }
      if (inside) reflect(x, y) = static_cast<float>((acc + (samples - inside) * reflect(x, y)) / samples);
    }
}

namespace {

void validate(const SceneParams& q) {
  require(q.width >= 16 && q.height >= 16, "synth: frames must be at least 16x16");
  require(q.min_size >= 8 && q.max_size >= q.min_size, "synth: symbol sizes must satisfy 8 <= min <= max");
  require(q.set == "default" || q.set == "small" || q.set == "yamaarashi", "synth: symbol set must be default, small or yamaarashi");
  require(q.motion_blur >= 0 && q.motion_blur <= 1, "synth: motion blur is the exposure's fraction of the frame interval, 0 to 1");
  require(q.motion_px >= 0 && q.motion_px <= 100, "synth: motion smear must be 0 to 100 pixels");
  require(q.ramp >= 0 && q.ramp <= 1e6, "synth: ramp must be 0 to 1000000 frames");
  require(q.vignetting >= 0 && q.vignetting < 1, "synth: vignetting must be at least 0 and under 1");
  require(q.jpeg >= 0 && q.jpeg <= 100, "synth: JPEG quality must be 1 to 100 (0: no JPEG)");
}

struct Disk {
  double x, y, r;
};

// A symbol where it is at frame 0: its size, turn, tilt and direction of travel.
struct Placement {
  int id;  // its print is looked up again when drawn: the cache of prints may move as it grows
  double side, rot, px, py;
  double x, y, vx, vy, r;  // centre, velocity (pixels per frame), collision radius
};

using Uniform = std::uniform_real_distribution<double>;

// Every symbol placed where no other lies (a full frame takes fewer), its disk added to `used`.
std::vector<Placement> place_symbols(const SceneParams& q, std::mt19937& rng, Uniform& U, std::vector<Disk>& used) {
  std::vector<Placement> placed;
  const int count = q.ids.empty() ? q.symbols : static_cast<int>(q.ids.size());
  const int set_size = q.set == "default" ? 216 : q.set == "small" ? 24 : kYamaarashiIds;
  for (int k = 0; k < count; ++k) {
    const int id = q.ids.empty() ? static_cast<int>(U(rng) * set_size) % set_size : q.ids[k];
    const double side = q.min_size + U(rng) * (q.max_size - q.min_size);
    const double rot = U(rng) * 2 * std::numbers::pi;
    const double radius = side * 0.75;  // the rotated square's half diagonal, with a little margin
    double cx = 0, cy = 0;
    bool fits = false;
    for (int attempt = 0; attempt < 200 && !fits; ++attempt) {
      cx = radius + U(rng) * (q.width - 2 * radius);
      cy = radius + U(rng) * (q.height - 2 * radius);
      fits = q.width > 2 * radius && q.height > 2 * radius &&
             std::all_of(used.begin(), used.end(), [&](const Disk& d) { return std::hypot(d.x - cx, d.y - cy) > d.r + radius; });
    }
    if (!fits) continue;  // the frame is full
    used.push_back({cx, cy, radius});
    const double px = (U(rng) * 2 - 1) * q.perspective, py = (U(rng) * 2 - 1) * q.perspective;
    const double dir = U(rng) * 2 * std::numbers::pi;  // drawn for every symbol, so the sequence is stable
    placed.push_back({id, side, rot, px, py, cx, cy, q.speed * std::cos(dir), q.speed * std::sin(dir), radius});
  }
  return placed;
}

// Soft-edged fingertips where nothing else lies, drawn into `reflect`; their disks added to `used`.
void draw_fingers(const SceneParams& q, std::mt19937& rng, Uniform& U, std::vector<Disk>& used, Image<float>& reflect, Scene& scene) {
  for (int k = 0; k < q.fingers; ++k) {
    const double r = q.finger_size / 2 * (0.85 + 0.3 * U(rng));
    for (int attempt = 0; attempt < 200; ++attempt) {
      const double cx = r + 2 + U(rng) * (q.width - 2 * r - 4), cy = r + 2 + U(rng) * (q.height - 2 * r - 4);
      if (!std::all_of(used.begin(), used.end(), [&](const Disk& d) { return std::hypot(d.x - cx, d.y - cy) > d.r + r + 3; }))
        continue;
      used.push_back({cx, cy, r});
      const double elong = 1.0 + 0.25 * U(rng), phi = U(rng) * std::numbers::pi;
      for (int y = static_cast<int>(cy - 2 * r); y <= static_cast<int>(cy + 2 * r); ++y)
        for (int x = static_cast<int>(cx - 2 * r); x <= static_cast<int>(cx + 2 * r); ++x) {
          if (x < 0 || y < 0 || x >= q.width || y >= q.height) continue;
          const double dx = x + 0.5 - cx, dy = y + 0.5 - cy;
          const double u = (dx * std::cos(phi) + dy * std::sin(phi)) / elong, v = -dx * std::sin(phi) + dy * std::cos(phi);
          const double d = std::hypot(u, v) / r;
          const double a = std::clamp((1.15 - d) / 0.3, 0.0, 1.0);
          reflect(x, y) = static_cast<float>(reflect(x, y) * (1 - a) + 0.8 * a);
        }
      scene.fingers.push_back({cx - 0.5, cy - 0.5, 2 * r});  // pixel-centre coordinates, as detect reports
      break;
    }
  }
}

// The fraction of full speed at time t (frames) while the prints get up to speed.
double speed_at(const SceneParams& q, double t) { return q.ramp > 0 ? std::min(1.0, t / q.ramp) : 1.0; }

// How far the prints have turned by frame `frame`, in frames at full spin.
double turned_by(const SceneParams& q, int frame) {
  if (q.ramp <= 0) return frame;
  return frame >= q.ramp ? frame - 0.5 * q.ramp : 0.5 * frame * frame / q.ramp;
}

// The sequence: prints slide across the table as objects do, so they never overlap. Each frame
// (in four sub-steps) they move, and two that touch bounce (equal masses: they exchange the
// velocity along the line between their centres); a print that touches a finger bounces off it.
// The frame's edges do not stop them: prints leave the table. Without contacts a print moves in
// a straight line.
void play_sequence(const SceneParams& q, const std::vector<Disk>& fingers, std::vector<Placement>& placed) {
  constexpr int kSubSteps = 4;
  for (int step = 0; step < q.frame * kSubSteps && q.speed != 0; ++step) {
    const double pace = speed_at(q, (step + 0.5) / kSubSteps);
    for (auto& a : placed) {
      a.x += pace * a.vx / kSubSteps;
      a.y += pace * a.vy / kSubSteps;
    }
    for (std::size_t i = 0; i < placed.size(); ++i) {
      auto& a = placed[i];
      for (std::size_t j = i + 1; j < placed.size(); ++j) {
        auto& b = placed[j];
        const double dx = b.x - a.x, dy = b.y - a.y, d = std::hypot(dx, dy);
        if (d >= a.r + b.r || d == 0) continue;
        const double nx = dx / d, ny = dy / d;
        const double approach = (a.vx - b.vx) * nx + (a.vy - b.vy) * ny;
        if (approach > 0) {
          a.vx -= approach * nx, a.vy -= approach * ny;
          b.vx += approach * nx, b.vy += approach * ny;
        }
        const double push = (a.r + b.r - d) / 2;  // and apart, so they never stay inside each other
        a.x -= push * nx, a.y -= push * ny;
        b.x += push * nx, b.y += push * ny;
      }
      for (const Disk& f : fingers) {
        const double dx = a.x - f.x, dy = a.y - f.y, d = std::hypot(dx, dy);
        if (d >= a.r + f.r || d == 0) continue;
        const double nx = dx / d, ny = dy / d, toward = a.vx * nx + a.vy * ny;
        if (toward < 0) a.vx -= 2 * toward * nx, a.vy -= 2 * toward * ny;
        a.x += (a.r + f.r - d) * nx, a.y += (a.r + f.r - d) * ny;
      }
    }
  }
}

// The camera: a bright spot somewhere, falling off by `illumination` towards the far corners;
// vignetting, lens blur, sensor noise, 8 bits, and the codec.
Image<std::uint8_t> photograph(const SceneParams& q, std::mt19937& rng, Uniform& U, Image<float>& reflect) {
  const double hx = U(rng) * q.width, hy = U(rng) * q.height;
  const double far = std::hypot(std::max(hx, q.width - hx), std::max(hy, q.height - hy));
  for (int y = 0; y < q.height; ++y)
    for (int x = 0; x < q.width; ++x) {
      const double d = std::hypot(x - hx, y - hy) / far;
      reflect(x, y) = static_cast<float>(reflect(x, y) * q.brightness / kPaper * (1 - q.illumination * d * d));
    }
  vignette(reflect, q.vignetting);
  gaussian_blur(reflect, q.blur);
  std::normal_distribution<double> noise(0, q.noise);
  Image<std::uint8_t> image(q.width, q.height);
  for (int y = 0; y < q.height; ++y)
    for (int x = 0; x < q.width; ++x)
      image(x, y) = static_cast<std::uint8_t>(std::clamp(std::lround(reflect(x, y) + (q.noise > 0 ? noise(rng) : 0.0)), 0L, 255L));
  if (q.jpeg > 0) image = codec::decode_jpeg(codec::encode_jpeg(image.view(), q.jpeg));
  return image;
}

}  // namespace

// Every symbol is placed first (where it is at frame 0), the fingers next; then the sequence is
// played to frame `q.frame`, the symbols drawn (smeared over their exposure) and photographed.
Scene Generator::make(const SceneParams& q) {
  validate(q);
  std::mt19937 rng(q.seed);
  Uniform U(0, 1);
  Scene scene;
  Image<float> reflect(q.width, q.height);
  reflect.fill(static_cast<float>(q.table));
  std::vector<Disk> used;
  std::vector<Placement> placed = place_symbols(q, rng, U, used);
  const std::size_t symbol_disks = used.size();
  draw_fingers(q, rng, U, used, reflect, scene);
  play_sequence(q, std::vector<Disk>(used.begin() + static_cast<std::ptrdiff_t>(symbol_disks), used.end()), placed);
  // Single-frame smears get their directions from their own generator, so that frames without
  // them stay what they were.
  std::mt19937 motion_rng(q.seed ^ 0x6d6f7469u);
  for (const auto& a : placed) {
    const SymbolPrint& p = print(q.set, a.id);
    const double dir = U(motion_rng) * 2 * std::numbers::pi;
    const double pace = speed_at(q, q.frame), rot = a.rot + q.spin * turned_by(q, q.frame);
    const Motion m{q.motion_blur * pace * a.vx + q.motion_px * std::cos(dir), q.motion_blur * pace * a.vy + q.motion_px * std::sin(dir),
                   q.motion_blur * pace * q.spin};
    const Homography h = placement(p.pixels.width(), a.side, rot, a.x, a.y, a.px, a.py);
    draw_print(reflect, p, exposure(m, a.side, [&](double dx, double dy, double turn) {
                 return placement(p.pixels.width(), a.side, rot + turn, a.x + dx, a.y + dy, a.px, a.py);
               }),
               q.ink);
    // In the truth only while the symbol itself (not the paper around it) is inside the frame.
    const double inner = 0.5 * a.side * p.root_size / p.pixels.width();
    if (a.x < inner || a.y < inner || a.x > q.width - inner || a.y > q.height - inner) continue;
    PlacedSymbol sym{q.set, a.id, 0, 0, 0, a.side, m.dx, m.dy};
    true_pose(p, h, sym.x, sym.y, sym.angle);
    scene.symbols.push_back(sym);
  }
  scene.image = photograph(q, rng, U, reflect);
  return scene;
}

Scene Generator::single(const std::string& set, int id, double width, double rotation, double blur, double noise_sigma,
                        std::uint32_t seed) {
  const SymbolPrint& p = print(set, id);
  const double side = width * p.pixels.width() / p.root_size;
  const int frame_size = static_cast<int>(std::ceil(side * 1.45)) + 8;
  Image<float> reflect(frame_size, frame_size);
  reflect.fill(0.35f);
  const Homography h = placement(p.pixels.width(), side, rotation, frame_size / 2.0, frame_size / 2.0, 0, 0);
  draw_print(reflect, p, {h}, kInk);
  gaussian_blur(reflect, blur);
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0, noise_sigma);
  Scene scene;
  scene.image = Image<std::uint8_t>(frame_size, frame_size);
  for (int y = 0; y < frame_size; ++y)
    for (int x = 0; x < frame_size; ++x)
      scene.image(x, y) = static_cast<std::uint8_t>(
          std::clamp(std::lround(reflect(x, y) * 220 / kPaper + (noise_sigma > 0 ? noise(rng) : 0.0)), 0L, 255L));
  PlacedSymbol s{set, id, 0, 0, 0, side};
  true_pose(p, h, s.x, s.y, s.angle);
  scene.symbols.push_back(s);
  return scene;
}


std::string truth_json(const Scene& scene, const std::string& file) {
  std::ostringstream o;
  o.precision(10);
  o << "{\"file\":\"" << file << "\",\"width\":" << scene.image.width() << ",\"height\":" << scene.image.height()
    << ",\"symbols\":[";
  for (std::size_t i = 0; i < scene.symbols.size(); ++i) {
    const auto& s = scene.symbols[i];
    o << (i ? "," : "") << "{\"set\":\"" << s.set << "\",\"id\":" << s.id << ",\"x\":" << s.x << ",\"y\":" << s.y
      << ",\"angle\":" << s.angle << ",\"size\":" << s.size;
    if (s.smear_x != 0 || s.smear_y != 0) o << ",\"smear\":[" << s.smear_x << "," << s.smear_y << "]";
    o << "}";
  }
  o << "],\"fingers\":[";
  for (std::size_t i = 0; i < scene.fingers.size(); ++i)
    o << (i ? "," : "") << "{\"x\":" << scene.fingers[i].x << ",\"y\":" << scene.fingers[i].y << ",\"size\":" << scene.fingers[i].size << "}";
  o << "]}";
  return o.str();
}

}  // namespace gpuvis::synth

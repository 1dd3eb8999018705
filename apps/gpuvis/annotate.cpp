#include "annotate.hpp"

#include <cmath>
#include <string>

namespace gpuvis::cli {
namespace {

struct Rgb {
  std::uint8_t r, g, b;
};

void put(Image<std::uint8_t>& img, int x, int y, Rgb c) {
  if (x < 0 || y < 0 || x >= img.width() || y >= img.height()) return;
  img(x, y, 0) = c.r;
  img(x, y, 1) = c.g;
  img(x, y, 2) = c.b;
}

void line(Image<std::uint8_t>& img, double x0, double y0, double x1, double y1, Rgb c) {
  const int steps = static_cast<int>(std::ceil(std::max(std::abs(x1 - x0), std::abs(y1 - y0)))) + 1;
  for (int i = 0; i <= steps; ++i) {
    const double t = static_cast<double>(i) / steps;
    const int x = static_cast<int>(std::lround(x0 + t * (x1 - x0))), y = static_cast<int>(std::lround(y0 + t * (y1 - y0)));
    put(img, x, y, c);
    put(img, x + 1, y, c);
    put(img, x, y + 1, c);
  }
}

void circle(Image<std::uint8_t>& img, double cx, double cy, double r, Rgb c) {
  const int n = std::max(16, static_cast<int>(r * 6));
  for (int i = 0; i < n; ++i) {
    const double a0 = 2 * M_PI * i / n, a1 = 2 * M_PI * (i + 1) / n;
    line(img, cx + r * std::cos(a0), cy + r * std::sin(a0), cx + r * std::cos(a1), cy + r * std::sin(a1), c);
  }
}

// 3x5 digits and a minus sign, scaled.
void text(Image<std::uint8_t>& img, int x, int y, const std::string& s, Rgb c, int scale = 2) {
  static const char* glyphs[] = {"111101101101111", "010110010010111", "111001111100111", "111001111001111",
                                 "101101111001001", "111100111001111", "111100111101111", "111001001001001",
                                 "111101111101111", "111101111001111"};
  for (char ch : s) {
    const char* g = (ch >= '0' && ch <= '9') ? glyphs[ch - '0'] : (ch == '?' ? "111001011000010" : "000000111000000");
    for (int gy = 0; gy < 5; ++gy)
      for (int gx = 0; gx < 3; ++gx)
        if (g[gy * 3 + gx] == '1')
          for (int dy = 0; dy < scale; ++dy)
            for (int dx = 0; dx < scale; ++dx) put(img, x + gx * scale + dx, y + gy * scale + dy, c);
    x += 4 * scale;
  }
}

}  // namespace

void draw_digits(Image<std::uint8_t>& img, int x, int y, const std::string& s, const std::uint8_t colour[3], int scale) {
  text(img, x, y, s, Rgb{colour[0], colour[1], colour[2]}, scale);
}

Image<std::uint8_t> annotate(HostView<const std::uint8_t> grey, const pipeline::Detections& d) {
  Image<std::uint8_t> out(grey.width, grey.height, 3);
  for (int y = 0; y < grey.height; ++y)
    for (int x = 0; x < grey.width; ++x) out(x, y, 0) = out(x, y, 1) = out(x, y, 2) = grey(x, y) / 2 + 64;
  for (const auto& f : d.fiducials) {
    const Rgb c = f.fuzzy() ? Rgb{255, 150, 0} : Rgb{0, 230, 0};
    const double r = std::max(6.0, f.root_size * 0.5);
    circle(out, f.x, f.y, r, c);
    // Angle 0 points up (y down), increasing clockwise on screen.
    const double ax = f.x + r * std::sin(f.angle), ay = f.y - r * std::cos(f.angle);
    line(out, f.x, f.y, ax, ay, Rgb{255, 40, 40});
    line(out, f.x - 3, f.y, f.x + 3, f.y, c);
    line(out, f.x, f.y - 3, f.x, f.y + 3, c);
    text(out, static_cast<int>(f.x + r * 0.75), static_cast<int>(f.y - r * 0.9), f.fuzzy() ? "?" : std::to_string(f.id), c);
  }
  for (const auto& f : d.fingers) circle(out, f.x, f.y, std::max(f.width, f.height) / 2, Rgb{60, 160, 255});
  for (const auto& b : d.blobs) {
    const double ca = std::cos(b.angle), sa = std::sin(b.angle), hw = b.width / 2, hh = b.height / 2;
    const double cx[4] = {-hw, hw, hw, -hw}, cy[4] = {-hh, -hh, hh, hh};
    for (int i = 0; i < 4; ++i) {
      const int j = (i + 1) % 4;
      line(out, b.x + cx[i] * ca - cy[i] * sa, b.y + cx[i] * sa + cy[i] * ca, b.x + cx[j] * ca - cy[j] * sa,
           b.y + cx[j] * sa + cy[j] * ca, Rgb{255, 255, 0});
    }
  }
  return out;
}

}  // namespace gpuvis::cli

#include "life_reference.hpp"

namespace gpuvis::test {

life::Board life_reference_step(const life::Board& board, const life::Rule& rule, life::Topology topology) {
  const int w = board.width(), h = board.height();
  life::Board next(w, h);
  auto alive = [&](long long x, long long y) {
    if (topology == life::Topology::torus) {
      x = ((x % w) + w) % w;
      y = ((y % h) + h) % h;
    } else if (x < 0 || y < 0 || x >= w || y >= h) {
      return 0;
    }
    return board.get(static_cast<int>(x), static_cast<int>(y)) ? 1 : 0;
  };
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      int n = 0;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx)
          if (dx || dy) n += alive(static_cast<long long>(x) + dx, static_cast<long long>(y) + dy);
      const bool a = board.get(x, y);
      next.set(x, y, a ? (rule.survival >> n & 1u) : (rule.birth >> n & 1u));
    }
  return next;
}

std::vector<std::uint8_t> generations_reference_step(const std::vector<std::uint8_t>& states, int w, int h, const life::Rule& rule,
                                                     life::Topology topology) {
  auto live = [&](long long x, long long y) {
    if (topology == life::Topology::torus) {
      x = ((x % w) + w) % w;
      y = ((y % h) + h) % h;
    } else if (x < 0 || y < 0 || x >= w || y >= h) {
      return 0;
    }
    return states[static_cast<std::size_t>(y) * w + static_cast<std::size_t>(x)] == 1 ? 1 : 0;
  };
  std::vector<std::uint8_t> next(states.size());
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      int n = 0;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx)
          if (dx || dy) n += live(static_cast<long long>(x) + dx, static_cast<long long>(y) + dy);
      const std::uint8_t s = states[static_cast<std::size_t>(y) * w + x];
      std::uint8_t t = 0;
      if (s == 0) t = (rule.birth >> n & 1u) ? 1 : 0;
      else if (s == 1) t = (rule.survival >> n & 1u) ? 1 : (rule.states > 2 ? 2 : 0);
      else t = s + 1 < rule.states ? static_cast<std::uint8_t>(s + 1) : 0;
      next[static_cast<std::size_t>(y) * w + x] = t;
    }
  return next;
}

}  // namespace gpuvis::test

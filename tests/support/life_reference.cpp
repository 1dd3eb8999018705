#include "life_reference.hpp"

namespace gpuvis::test {
namespace {

// Live neighbours of (x, y) among the 8 around it, `live(x, y)` telling a cell on the board: on a
// torus the board wraps, on a dead-bordered board cells outside it are dead.
template <class Live>
int live_neighbours(int x, int y, int w, int h, life::Topology topology, const Live& live) {
  int n = 0;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      if (!dx && !dy) continue;
      long long xx = static_cast<long long>(x) + dx, yy = static_cast<long long>(y) + dy;
      if (topology == life::Topology::torus) {
        xx = ((xx % w) + w) % w;
        yy = ((yy % h) + h) % h;
      } else if (xx < 0 || yy < 0 || xx >= w || yy >= h) {
        continue;
      }
      n += live(static_cast<int>(xx), static_cast<int>(yy)) ? 1 : 0;
    }
  return n;
}

}  // namespace

life::Board life_reference_step(const life::Board& board, const life::Rule& rule, life::Topology topology) {
  const int w = board.width(), h = board.height();
  life::Board next(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const int n = live_neighbours(x, y, w, h, topology, [&](int xx, int yy) { return board.get(xx, yy); });
      const bool a = board.get(x, y);
      next.set(x, y, a ? (rule.survival >> n & 1u) : (rule.birth >> n & 1u));
    }
  return next;
}

std::vector<std::uint8_t> generations_reference_step(const std::vector<std::uint8_t>& states, int w, int h, const life::Rule& rule,
                                                     life::Topology topology) {
  std::vector<std::uint8_t> next(states.size());
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const int n = live_neighbours(x, y, w, h, topology, [&](int xx, int yy) {
        return states[static_cast<std::size_t>(yy) * w + static_cast<std::size_t>(xx)] == 1;
      });
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

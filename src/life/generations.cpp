// The states of a Generations board, put together from its live cells and its dying ages' bit
// planes (the form every backend steps them in: life/word_rule.h).
#include "gpuvis/core/error.hpp"
#include "gpuvis/core/parallel.hpp"
#include "life/backends.hpp"

namespace gpuvis::life {

void compose_states(const Board& alive, const std::vector<Board>& ages, std::vector<std::uint8_t>& out) {
  const int w = alive.width(), h = alive.height();
  out.assign(static_cast<std::size_t>(w) * static_cast<std::size_t>(h), 0);
  parallel_for(0, h, 16, [&](std::ptrdiff_t y0, std::ptrdiff_t y1) {
    for (std::ptrdiff_t y = y0; y < y1; ++y) {
      std::uint8_t* row = out.data() + static_cast<std::size_t>(y) * static_cast<std::size_t>(w);
      for (int x = 0; x < w; ++x) {
        unsigned age = 0;
        for (std::size_t i = 0; i < ages.size(); ++i) age |= static_cast<unsigned>(ages[i].get(x, static_cast<int>(y))) << i;
        // Live cells are state 1, dying cells of age a state a + 1, dead cells 0.
        row[x] = static_cast<std::uint8_t>(alive.get(x, static_cast<int>(y)) ? 1 : (age ? age + 1 : 0));
      }
    }
  });
}

}  // namespace gpuvis::life

#pragma once
// Outer-totalistic rules of two-state cellular automata on the Moore neighbourhood (Conway's Game
// of Life and its relatives): a dead cell is born when its number of live neighbours is in the
// birth set, a live cell survives when its number is in the survival set.
#include <cstdint>
#include <string>
#include <string_view>

namespace gpuvis::life {

struct Rule {
  std::uint16_t birth = 1u << 3;                   // bit k: born with k live neighbours (k = 0..8)
  std::uint16_t survival = (1u << 2) | (1u << 3);  // bit k: survives with k live neighbours

  bool operator==(const Rule&) const = default;
};

inline constexpr Rule conway{1u << 3, (1u << 2) | (1u << 3)};

// Parses "B3/S23" (any case, either order, "B3S23" without the slash), the survival/birth
// notation "23/3" and the names "conway", "life", "highlife", "seeds", "daynight" (Day & Night).
// Generations rules (a third "/C…" part) and neighbour counts above 8 are refused with
// ErrorCode::invalid_argument naming the problem.
Rule parse_rule(std::string_view text);

// "B3/S23": the canonical B/S form, as RLE headers and Golly write it.
std::string to_string(const Rule& rule);

}  // namespace gpuvis::life

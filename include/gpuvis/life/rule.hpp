#pragma once
// Outer-totalistic rules of cellular automata on the Moore neighbourhood (Conway's Game of Life and
// its relatives): a dead cell is born when its number of live neighbours is in the birth set, a
// live cell survives when its number is in the survival set. Generations rules (B/S/C, C > 2
// states) add dying states: a live cell that does not survive passes through states 2 .. C-1, one a
// generation, before it is dead; only live cells (state 1) count as neighbours, and a dying cell is
// not born again until it is dead.
#include <cstdint>
#include <string>
#include <string_view>

namespace gpuvis::life {

struct Rule {
  std::uint16_t birth = 1u << 3;                   // bit k: born with k live neighbours (k = 0..8)
  std::uint16_t survival = (1u << 2) | (1u << 3);  // bit k: survives with k live neighbours
  std::uint16_t states = 2;                        // C: 2 for two-state rules, 3..256 for Generations

  bool operator==(const Rule&) const = default;
};

inline constexpr Rule conway{1u << 3, (1u << 2) | (1u << 3)};

// Parses "B3/S23" (any case, either order, "B3S23" without the slash), the survival/birth
// notation "23/3", Generations rules as Golly writes them ("B2/S/C3", "/2/3", "345/2/4" in S/B/C
// order) and the names "conway", "life", "highlife", "seeds", "daynight" (Day & Night),
// "brianbrain" (Brian's Brain, /2/3) and "starwars" (345/2/4). B0 rules, neighbour counts above 8
// and state counts outside 2..256 are refused with ErrorCode::invalid_argument naming the problem.
Rule parse_rule(std::string_view text);

// Dying-state bit planes a Generations rule needs: the bits of C - 2 (the last dying age), 0 for
// two-state rules.
int age_planes(const Rule& rule);

// "B3/S23", or "B2/S/C3" for Generations: the canonical B/S form, as RLE headers and Golly write it.
std::string to_string(const Rule& rule);

}  // namespace gpuvis::life

#pragma once
// The Game of Life cell by cell, as the rule is written: the literal reference the bit-parallel
// backends are compared with.
#include <cstdint>
#include <vector>

#include "gpuvis/life/board.hpp"
#include "gpuvis/life/rule.hpp"

namespace gpuvis::test {

life::Board life_reference_step(const life::Board& board, const life::Rule& rule, life::Topology topology);

// One generation of a Generations rule (rule.states = C >= 2) cell by cell, on each cell's state
// (0 dead, 1 live, 2..C-1 dying), row by row: only live cells count as neighbours; a dead cell is
// born with a neighbour count in B, a live one survives with one in S or else goes to state 2 (dead
// when C = 2), a dying cell goes to the next state and from C-1 to dead.
std::vector<std::uint8_t> generations_reference_step(const std::vector<std::uint8_t>& states, int w, int h, const life::Rule& rule,
                                                     life::Topology topology);

}  // namespace gpuvis::test

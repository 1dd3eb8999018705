#pragma once
// The Game of Life cell by cell, as the rule is written: the literal reference the bit-parallel
// backends are compared with.
#include "gpuvis/life/board.hpp"
#include "gpuvis/life/rule.hpp"

namespace gpuvis::test {

life::Board life_reference_step(const life::Board& board, const life::Rule& rule, life::Topology topology);

}  // namespace gpuvis::test

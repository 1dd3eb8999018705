// Life on OpenCL equals the CPU backend bit for bit: random soups under named and random rules,
// sizes that are not multiples of the word size and boards narrower than a word, both topologies,
// Generations rules' states, the population of every generation, and the R-pentomino's known settling.
#include <gtest/gtest.h>

#include "life_compare.hpp"
#include "opencl_skip.hpp"

namespace gpuvis::life {
namespace {

TEST(LifeOpencl, EqualsTheCpuOnRandomSoups) {
  GPUVIS_REQUIRE_OPENCL();
  test::expect_soups_like_the_cpu(Backend::opencl, {"B3/S23", "B36/S23", "B2/S", "B3678/S34678", "B1357/S1357"},
                                  {{1, 1}, {3, 5}, {31, 17}, {33, 65}, {64, 5}, {100, 100}, {961, 57}}, {1, 4, 9}, 300);
}

TEST(LifeOpencl, RandomRulesEqualTheCpu) {
  GPUVIS_REQUIRE_OPENCL();
  test::expect_random_rules_like_the_cpu(Backend::opencl, 40, {{203, 41}, {64, 7}}, 6, 0x51afd7ed558ccd1du);
}

TEST(LifeOpencl, GenerationsRulesEqualTheCpu) {
  GPUVIS_REQUIRE_OPENCL();
  test::expect_generations_like_the_cpu(Backend::opencl, 0x14057b7ef767814fu);
}

TEST(LifeOpencl, CountsThePopulationOfEveryGeneration) {
  GPUVIS_REQUIRE_OPENCL();
  test::expect_r_pentomino_settles(Backend::opencl);
}

}  // namespace
}  // namespace gpuvis::life

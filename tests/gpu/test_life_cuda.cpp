// Life on CUDA equals the CPU backend bit for bit: random soups under several rules, sizes that are
// not multiples of the word size, both topologies, generation counts across launch boundaries.
#include <gtest/gtest.h>

#include "gpuvis/life/life.hpp"
#include "gpuvis/life/pattern.hpp"
#include "life_compare.hpp"
#include "test_support.hpp"

namespace gpuvis::life {
namespace {

TEST(LifeCuda, EqualsTheCpuOnRandomSoups) {
  GPUVIS_REQUIRE_GPU();
  test::expect_soups_like_the_cpu(Backend::cuda, {"B3/S23", "B36/S23", "B2/S", "B3678/S34678", "B1357/S1357"},
                                  {{1, 1}, {3, 5}, {31, 17}, {33, 65}, {100, 100}, {961, 57}, {1000, 777}, {2048, 300},
                                   // whole words: the edge tiles wrap without division, also on boards
                                   // smaller than a tile's halo either way
                                   {32, 3}, {64, 5}, {96, 70}, {4096, 9}},
                                  {1, 3, 4, 5, 13}, 100);
}

// Any birth and survival sets (B0 included): the generic rule's selection tree against the CPU, on
// a board of whole words and one of a partial word.
TEST(LifeCuda, RandomRulesEqualTheCpu) {
  GPUVIS_REQUIRE_GPU();
  test::expect_random_rules_like_the_cpu(Backend::cuda, 60, {{256, 80}, {203, 41}}, 11, 0x2545f4914f6cdd1du);
}

TEST(LifeCuda, GenerationsRulesEqualTheCpu) {
  GPUVIS_REQUIRE_GPU();
  test::expect_generations_like_the_cpu(Backend::cuda, 0x5851f42d4c957f2du);
}

TEST(LifeCuda, CountsThePopulationOfEveryGeneration) {
  GPUVIS_REQUIRE_GPU();
  test::expect_r_pentomino_settles(Backend::cuda);
}

TEST(LifeCuda, LargeBoardEqualsTheCpu) {
  GPUVIS_REQUIRE_GPU();
  Board b(8191, 4099);
  fill_random(b, 0.5, 3);
  const Board cpu = run(b, 9, Params{conway, Topology::torus, Backend::cpu});
  const Board gpu = run(b, 9, Params{conway, Topology::torus, Backend::cuda});
  EXPECT_EQ(cpu, gpu);
}

}  // namespace
}  // namespace gpuvis::life

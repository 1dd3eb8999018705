// Life on CUDA equals the CPU backend bit for bit: random soups under several rules, sizes that are
// not multiples of the word size, both topologies, generation counts across launch boundaries.
#include <gtest/gtest.h>

#include "gpuvis/life/life.hpp"
#include "gpuvis/life/pattern.hpp"
#include "life/cuda/rule_jit.hpp"
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

// Rules other than Conway's on boards of 2^20 cells or more run the rule's own kernel, compiled at
// run time with its outcomes as constants (life/cuda/rule_jit.hpp): named and random rules, both
// borders, a width that is not whole words, against the CPU.
TEST(LifeCuda, RulesCompiledAtRunTimeEqualTheCpu) {
  GPUVIS_REQUIRE_GPU();
  std::string why;
  ASSERT_NE(cuda_impl::compiled_rule_kernel(parse_rule("B36/S23").birth, parse_rule("B36/S23").survival, cuda_impl::TileShape{64, 8, 1, 4}, &why),
            nullptr)
      << why;
  std::vector<Rule> rules{parse_rule("B36/S23"), parse_rule("B2/S"), parse_rule("B3678/S34678"), parse_rule("B1357/S1357")};
  std::uint64_t state = 0x853c49e6748fea9bu;
  for (int k = 0; k < 4; ++k) {
    state = state * 6364136223846793005u + 1442695040888963407u;
    rules.push_back(Rule{static_cast<std::uint16_t>((state >> 20) & 0x1feu), static_cast<std::uint16_t>((state >> 40) & 0x1ffu)});
  }
  for (const Rule& rule : rules)
    for (Topology t : {Topology::torus, Topology::dead}) {
      Board b(1500, 720);  // 1.08e6 cells
      fill_random(b, 0.4, rule.birth + 7u * rule.survival);
      ASSERT_EQ(run(b, 11, Params{rule, t, Backend::cpu}), run(b, 11, Params{rule, t, Backend::cuda}))
          << to_string(rule) << (t == Topology::torus ? " torus" : " dead");
    }
}

}  // namespace
}  // namespace gpuvis::life

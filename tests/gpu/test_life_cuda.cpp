// Life on CUDA equals the CPU backend bit for bit: random soups under several rules, sizes that are
// not multiples of the word size, both topologies, generation counts across launch boundaries.
#include <gtest/gtest.h>

#include "gpuvis/life/life.hpp"
#include "gpuvis/life/pattern.hpp"
#include "test_support.hpp"

namespace gpuvis::life {
namespace {

TEST(LifeCuda, EqualsTheCpuOnRandomSoups) {
  GPUVIS_REQUIRE_GPU();
  const char* rules[] = {"B3/S23", "B36/S23", "B2/S", "B3678/S34678", "B1357/S1357"};
  const std::pair<int, int> sizes[] = {{1, 1}, {3, 5}, {31, 17}, {33, 65}, {100, 100}, {961, 57}, {1000, 777}, {2048, 300},
                                       // whole words: the edge tiles wrap without division, also on boards
                                       // smaller than a tile's halo either way
                                       {32, 3}, {64, 5}, {96, 70}, {4096, 9}};
  std::uint64_t seed = 100;
  for (const char* r : rules)
    for (const auto& [w, h] : sizes)
      for (Topology t : {Topology::torus, Topology::dead}) {
        Board b(w, h);
        fill_random(b, 0.37, seed++);
        const Params cpu{parse_rule(r), t, Backend::cpu}, gpu{parse_rule(r), t, Backend::cuda};
        auto a = make_simulation(b, cpu), d = make_simulation(b, gpu);
        for (int gens : {1, 3, 4, 5, 13}) {
          a->advance(gens);
          d->advance(gens);
          Board x, y;
          a->read(x);
          d->read(y);
          ASSERT_EQ(x, y) << r << " " << w << "x" << h << (t == Topology::torus ? " torus" : " dead") << " at generation "
                          << a->generation();
          EXPECT_EQ(a->population(), d->population());
        }
      }
}

// Any birth and survival sets (B0 included), not only the named rules: the generic rule's selection
// tree against the CPU, on a board of whole words and one of a partial word.
TEST(LifeCuda, RandomRulesEqualTheCpu) {
  GPUVIS_REQUIRE_GPU();
  std::uint64_t state = 0x2545f4914f6cdd1du;
  auto next = [&] { return state = state * 6364136223846793005u + 1442695040888963407u, static_cast<std::uint16_t>(state >> 40); };
  for (int k = 0; k < 60; ++k) {
    const Rule rule{static_cast<std::uint16_t>(next() & 0x1ffu), static_cast<std::uint16_t>(next() & 0x1ffu)};
    for (const auto& [w, h] : {std::pair{256, 80}, std::pair{203, 41}})
      for (Topology t : {Topology::torus, Topology::dead}) {
        Board b(w, h);
        fill_random(b, 0.4, static_cast<std::uint64_t>(k) + 7);
        const Board cpu = run(b, 11, Params{rule, t, Backend::cpu});
        const Board gpu = run(b, 11, Params{rule, t, Backend::cuda});
        ASSERT_EQ(cpu, gpu) << "birth " << rule.birth << " survival " << rule.survival << " " << w << "x" << h
                            << (t == Topology::torus ? " torus" : " dead");
      }
  }
}

TEST(LifeCuda, CountsThePopulationOfEveryGeneration) {
  GPUVIS_REQUIRE_GPU();
  Board b(1024, 1024);
  place(b, parse_rle("x = 3, y = 3\nb2o$2o$bo!\n").cells, 600, 600, Topology::dead);
  auto sim = make_simulation(b, Params{conway, Topology::dead, Backend::cuda});
  std::vector<std::uint64_t> pop;
  sim->advance_counting(1200, [&](std::int64_t, std::uint64_t p) { pop.push_back(p); });
  EXPECT_EQ(pop[1102], 116u);  // the R-pentomino settles at generation 1103
  EXPECT_NE(pop[1101], 116u);
  EXPECT_EQ(pop.back(), 116u);
  EXPECT_EQ(sim->population(), 116u);
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

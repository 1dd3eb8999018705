#pragma once
// A Life backend against the CPU's, bit for bit: the comparisons the CUDA and OpenCL tests share.
#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <utility>
#include <vector>

#include "gpuvis/life/life.hpp"
#include "gpuvis/life/pattern.hpp"

namespace gpuvis::test {

inline const char* topology_name(life::Topology t) { return t == life::Topology::torus ? " torus" : " dead"; }

// Random soups (density 0.37) of every size under every named rule and both borders, advanced
// by each of `steps` generations in turn on `backend` and on the CPU: the boards and populations.
inline void expect_soups_like_the_cpu(Backend backend, std::initializer_list<const char*> rules,
                                      const std::vector<std::pair<int, int>>& sizes, std::initializer_list<int> steps,
                                      std::uint64_t seed) {
  using namespace life;
  for (const char* r : rules)
    for (const auto& [w, h] : sizes)
      for (Topology t : {Topology::torus, Topology::dead}) {
        Board b(w, h);
        fill_random(b, 0.37, seed++);
        auto a = make_simulation(b, Params{parse_rule(r), t, Backend::cpu});
        auto d = make_simulation(b, Params{parse_rule(r), t, backend});
        ASSERT_EQ(d->backend(), backend);
        for (int gens : steps) {
          a->advance(gens);
          d->advance(gens);
          Board x, y;
          a->read(x);
          d->read(y);
          ASSERT_EQ(x, y) << r << " " << w << "x" << h << topology_name(t) << " at generation " << a->generation();
          EXPECT_EQ(a->population(), d->population());
        }
      }
}

// `count` random birth and survival sets (B0 included), not only the named rules, on boards of
// each size and both borders after `generations` generations.
inline void expect_random_rules_like_the_cpu(Backend backend, int count, std::initializer_list<std::pair<int, int>> sizes,
                                             int generations, std::uint64_t state) {
  using namespace life;
  auto next = [&] { return state = state * 6364136223846793005u + 1442695040888963407u, static_cast<std::uint16_t>(state >> 40); };
  for (int k = 0; k < count; ++k) {
    const Rule rule{static_cast<std::uint16_t>(next() & 0x1ffu), static_cast<std::uint16_t>(next() & 0x1ffu)};
    for (const auto& [w, h] : sizes)
      for (Topology t : {Topology::torus, Topology::dead}) {
        Board b(w, h);
        fill_random(b, 0.4, static_cast<std::uint64_t>(k) + 7);
        ASSERT_EQ(run(b, generations, Params{rule, t, Backend::cpu}), run(b, generations, Params{rule, t, backend}))
            << "birth " << rule.birth << " survival " << rule.survival << " " << w << "x" << h << topology_name(t);
      }
  }
}

// The R-pentomino on a 1024x1024 dead-bordered board (room for its gliders to fly clear before the
// edge), counted every generation on `backend`: it settles at generation 1103 with 116 cells.
inline void expect_r_pentomino_settles(Backend backend) {
  using namespace life;
  Board b(1024, 1024);
  place(b, parse_rle("x = 3, y = 3\nb2o$2o$bo!\n").cells, 600, 600, Topology::dead);
  auto sim = make_simulation(b, Params{conway, Topology::dead, backend});
  std::vector<std::uint64_t> pop;
  sim->advance_counting(1200, [&](std::int64_t, std::uint64_t p) { pop.push_back(p); });
  EXPECT_EQ(pop[1102], 116u);
  EXPECT_NE(pop[1101], 116u);
  EXPECT_EQ(pop.back(), 116u);
  EXPECT_EQ(sim->population(), 116u);
}

// Generations rules (the named ones and random ones of 3..256 states) on soups of several sizes and
// both borders: every cell's state on `backend` equals the CPU's after each of several steps.
inline void expect_generations_like_the_cpu(Backend backend, std::uint64_t seed) {
  using namespace life;
  std::vector<Rule> rules{parse_rule("brianbrain"), parse_rule("starwars"), parse_rule("B3/S23/C2"), parse_rule("B34/S34/C256")};
  std::uint64_t state = seed;
  auto next = [&] { return state = state * 6364136223846793005u + 1442695040888963407u, static_cast<std::uint16_t>(state >> 40); };
  for (int k = 0; k < 12; ++k)
    rules.push_back(Rule{static_cast<std::uint16_t>(next() & 0x1feu), static_cast<std::uint16_t>(next() & 0x1ffu),
                         static_cast<std::uint16_t>(3 + next() % 30)});
  for (const Rule& rule : rules)
    for (const auto& [w, h] : {std::pair{1, 1}, {33, 17}, {64, 9}, {200, 71}})
      for (Topology t : {Topology::torus, Topology::dead}) {
        Board b(w, h);
        fill_random(b, 0.4, seed++);
        auto a = make_simulation(b, Params{rule, t, Backend::cpu});
        auto d = make_simulation(b, Params{rule, t, backend});
        for (int gens : {1, 2, 9, 20}) {
          a->advance(gens);
          d->advance(gens);
          std::vector<std::uint8_t> x, y;
          a->read_states(x);
          d->read_states(y);
          ASSERT_EQ(x, y) << to_string(rule) << " " << w << "x" << h << topology_name(t) << " at generation " << a->generation();
          EXPECT_EQ(a->population(), d->population());
        }
      }
}

}  // namespace gpuvis::test

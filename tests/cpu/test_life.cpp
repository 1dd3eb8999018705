// Game of Life: rules, pattern files, the CPU backend against the cell-by-cell reference, and the
// known behaviours of famous patterns.
#include <gtest/gtest.h>

#include <fstream>

#include "gpuvis/core/error.hpp"
#include "gpuvis/core/parallel.hpp"
#include "gpuvis/life/life.hpp"
#include "life/backends.hpp"
#include "gpuvis/life/pattern.hpp"
#include "life_reference.hpp"
#include "test_support.hpp"

namespace gpuvis::life {
namespace {

constexpr const char* glider_rle = "#N Glider\nx = 3, y = 3, rule = B3/S23\nbob$2bo$3o!\n";
constexpr const char* gosper_rle =
    "#N Gosper glider gun\nx = 36, y = 9, rule = B3/S23\n"
    "24bo$22bobo$12b2o6b2o12b2o$11bo3bo4b2o12b2o$2o8bo5bo3b2o$2o8bo3bob2o4b\n"
    "obo$10bo5bo7bo$11bo3bo$12b2o!\n";
constexpr const char* r_pentomino_rle = "x = 3, y = 3, rule = B3/S23\nb2o$2o$bo!\n";

Board board_with(const char* rle, int w, int h, int x, int y, Topology topology = Topology::dead) {
  Board b(w, h);
  place(b, parse_rle(rle).cells, x, y, topology);
  return b;
}

Board advance_cpu(const Board& b, int gens, const Rule& rule = conway, Topology t = Topology::torus) {
  return run(b, gens, Params{rule, t, Backend::cpu});
}

TEST(LifeRule, ParsesBothNotationsAndNames) {
  EXPECT_EQ(parse_rule("B3/S23"), conway);
  EXPECT_EQ(parse_rule("b3s23"), conway);
  EXPECT_EQ(parse_rule("S23/B3"), conway);
  EXPECT_EQ(parse_rule("23/3"), conway);
  EXPECT_EQ(parse_rule("conway"), conway);
  EXPECT_EQ(to_string(parse_rule("highlife")), "B36/S23");
  EXPECT_EQ(to_string(parse_rule("B2/S")), "B2/S");
  EXPECT_EQ(to_string(parse_rule("/2")), "B2/S");
  EXPECT_EQ(to_string(parse_rule("34678/3678")), "B3678/S34678");
  EXPECT_EQ(to_string(parse_rule("daynight")), "B3678/S34678");
}

TEST(LifeRule, ParsesGenerationsRules) {
  EXPECT_EQ(parse_rule("B2/S/C3"), (Rule{1u << 2, 0, 3}));
  EXPECT_EQ(parse_rule("/2/3"), (Rule{1u << 2, 0, 3}));  // S/B/C, as Golly writes Brian's Brain
  EXPECT_EQ(parse_rule("brianbrain"), parse_rule("B2/S/C3"));
  EXPECT_EQ(to_string(parse_rule("345/2/4")), "B2/S345/C4");  // Star Wars
  EXPECT_EQ(parse_rule("starwars"), parse_rule("B2/S345/C4"));
  EXPECT_EQ(parse_rule("B3/S23/C2"), conway);  // two states: the two-state rule
  EXPECT_EQ(parse_rule("b3/s23/256").states, 256);
  EXPECT_EQ(age_planes(conway), 0);
  EXPECT_EQ(age_planes(parse_rule("B2/S/C3")), 1);   // ages 1
  EXPECT_EQ(age_planes(parse_rule("B2/S/C4")), 2);   // ages 1..2
  EXPECT_EQ(age_planes(parse_rule("B2/S/C6")), 3);   // ages 1..4
  EXPECT_EQ(age_planes(parse_rule("B2/S/C256")), 8); // ages 1..254
}

TEST(LifeRule, RefusesWhatItCannotRun) {
  for (const char* bad : {"", "B9/S23", "B3/S23/C1", "B3/S23/C257", "B3/S23/C", "B2/S/C3/4", "X3/S2", "B3", "3", "B3/B4/S2", "B0/S8",
                          "B3/Sx", "B0/S/C3"}) {
    try {
      parse_rule(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::invalid_argument) << bad;
      EXPECT_NE(std::string(e.what()).find("rule"), std::string::npos) << e.what();
    }
  }
}

TEST(LifePattern, ReadsRleAndCells) {
  const Pattern g = parse_rle(glider_rle);
  EXPECT_EQ(g.name, "Glider");
  ASSERT_TRUE(g.rule.has_value());
  EXPECT_EQ(*g.rule, conway);
  ASSERT_EQ(g.cells.width(), 3);
  ASSERT_EQ(g.cells.height(), 3);
  EXPECT_EQ(g.cells.population(), 5u);
  EXPECT_TRUE(g.cells.get(1, 0) && g.cells.get(2, 1) && g.cells.get(0, 2) && g.cells.get(1, 2) && g.cells.get(2, 2));
  const Pattern c = parse_cells("!Name: Glider\n.O.\n..O\nOOO\n");
  EXPECT_EQ(c.name, "Glider");
  EXPECT_EQ(c.cells, g.cells);
  EXPECT_EQ(parse_rle(gosper_rle).cells.population(), 36u);
}

TEST(LifePattern, RleRoundTrip) {
  Board b(130, 70);
  fill_random(b, 0.3, 7);
  for (int y = 20; y < 30; ++y)  // empty rows in the middle and at the end
    for (int x = 0; x < 130; ++x) b.set(x, y, false);
  for (int y = 60; y < 70; ++y)
    for (int x = 0; x < 130; ++x) b.set(x, y, false);
  const std::string text = format_rle(b, parse_rule("B36/S23"), "test");
  for (std::size_t start = 0, end; (end = text.find('\n', start)) != std::string::npos; start = end + 1)
    EXPECT_LE(end - start, 70u);
  const Pattern p = parse_rle(text);
  EXPECT_EQ(p.cells, b);
  EXPECT_EQ(to_string(*p.rule), "B36/S23");
}

TEST(LifePattern, MalformedFilesSayWhatIsWrong) {
  const std::pair<const char*, const char*> cases[] = {
      {"bo$2bo$3o!\n", "header"},
      {"x = 3, y = 3\nbob$2bo$3o\n", "truncated"},
      {"x = 2, y = 2\n3o!\n", "beyond"},
      {"x = 3, y = 3\nbAB!\n", "multi-state"},
      {"x = 3, y = 3\nb?o!\n", "unexpected"},
      {"x = -3, y = 3\no!\n", "size"},
      {"x = 99999999, y = 3\no!\n", "outside"},
      {"x = 3, y = 3, rule = B9/S23\no!\n", "neighbours"},
      {"x = 3, y = 3\n99999999999o!\n", "large"},
  };
  for (const auto& [text, word] : cases) {
    try {
      parse_rle(text, "t.rle");
      ADD_FAILURE() << "accepted: " << text;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::format) << text;
      EXPECT_NE(std::string(e.what()).find(word), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("t.rle:"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(parse_cells(".O.\n.X.\n"), Error);
  EXPECT_THROW(parse_cells("!only comments\n"), Error);
}

TEST(LifeBoard, RefusesImpossibleSizes) {
  EXPECT_THROW(Board(0, 5), Error);
  EXPECT_THROW(Board(5, -1), Error);
  EXPECT_THROW(Board(max_side + 1, 1), Error);
}

TEST(LifeBoard, RandomSoupIsDeterministicAndHasItsDensity) {
  Board a(1000, 300), b(1000, 300);
  fill_random(a, 0.25, 42);
  set_num_threads(1);
  fill_random(b, 0.25, 42);
  set_num_threads(0);
  EXPECT_EQ(a, b);
  EXPECT_NEAR(static_cast<double>(a.population()) / (1000.0 * 300), 0.25, 0.005);
  fill_random(b, 0.25, 43);
  EXPECT_FALSE(a == b);
  fill_random(b, 1.0, 1);
  EXPECT_EQ(b.population(), 300000u);
  // Bits past the width stay zero: the last word of each row holds 1000 - 960 = 40 cells.
  EXPECT_EQ(b.row(0)[15] >> 40, 0u);
}

// The bit-parallel CPU step equals the cell-by-cell reference for widths around word boundaries,
// narrow boards that wrap several times inside one word, every topology and several rules.
TEST(LifeCpu, EqualsTheReference) {
  const char* rules[] = {"B3/S23", "B36/S23", "B2/S", "B3678/S34678", "B1357/S1357", "B345/S5"};
  const std::pair<int, int> sizes[] = {{1, 1}, {2, 3}, {3, 3}, {5, 7}, {31, 9}, {63, 5}, {64, 64}, {65, 17},
                                       {127, 12}, {128, 40}, {130, 33}, {200, 3}};
  std::uint64_t seed = 1;
  for (const char* r : rules)
    for (const auto& [w, h] : sizes)
      for (Topology t : {Topology::torus, Topology::dead}) {
        const Rule rule = parse_rule(r);
        Board b(w, h);
        fill_random(b, 0.4, seed++);
        Board expect = b;
        Board got = b, next;
        for (int g = 0; g < 5; ++g) {
          expect = test::life_reference_step(expect, rule, t);
          step_cpu(got, next, rule, t);
          std::swap(got, next);
          ASSERT_EQ(got, expect) << r << " " << w << "x" << h << (t == Topology::torus ? " torus" : " dead")
                                 << " generation " << g + 1;
        }
      }
}

// Any rule, not only the named ones: random birth and survival sets (B0 included) against the
// cell-by-cell reference, so that every sum's branch of the per-word rule is exercised.
TEST(LifeCpu, RandomRulesEqualTheReference) {
  std::uint64_t state = 0x9e3779b97f4a7c15u;
  auto next = [&] { return state = state * 6364136223846793005u + 1442695040888963407u, static_cast<std::uint16_t>(state >> 40); };
  for (int k = 0; k < 300; ++k) {
    const Rule rule{static_cast<std::uint16_t>(next() & 0x1ffu), static_cast<std::uint16_t>(next() & 0x1ffu)};
    for (Topology t : {Topology::torus, Topology::dead}) {
      Board b(70, 9);
      fill_random(b, 0.45, static_cast<std::uint64_t>(k) + 1);
      Board expect = b, got = b, after;
      for (int g = 0; g < 3; ++g) {
        expect = test::life_reference_step(expect, rule, t);
        step_cpu(got, after, rule, t);
        std::swap(got, after);
        ASSERT_EQ(got, expect) << "birth " << rule.birth << " survival " << rule.survival << " generation " << g + 1;
      }
    }
  }
}

// Generations rules against the cell-by-cell reference: the named ones and random ones of 3 to 256
// states (so every number of age planes, and counters that wrap at a power of two), both borders.
TEST(LifeCpu, GenerationsEqualTheReference) {
  std::vector<Rule> rules{parse_rule("brianbrain"), parse_rule("starwars"), parse_rule("B3/S23/C5"), parse_rule("B2/S/C256")};
  std::uint64_t state = 0x243f6a8885a308d3u;
  auto next = [&] { return state = state * 6364136223846793005u + 1442695040888963407u, static_cast<std::uint16_t>(state >> 40); };
  for (int k = 0; k < 40; ++k)
    rules.push_back(Rule{static_cast<std::uint16_t>(next() & 0x1feu), static_cast<std::uint16_t>(next() & 0x1ffu),
                         static_cast<std::uint16_t>(k < 20 ? 3 + k : 3 + next() % 254)});
  for (const Rule& rule : rules)
    for (const auto& [w, h] : {std::pair{1, 1}, {5, 7}, {70, 9}, {130, 33}})
      for (Topology t : {Topology::torus, Topology::dead}) {
        Board b(w, h);
        fill_random(b, 0.4, state & 0xffff);
        std::vector<std::uint8_t> expect, got;
        auto sim = make_simulation(b, Params{rule, t, Backend::cpu});
        sim->read_states(expect);
        for (int g = 0; g < 12; ++g) {
          expect = test::generations_reference_step(expect, w, h, rule, t);
          sim->advance(1);
          sim->read_states(got);
          ASSERT_EQ(got, expect) << to_string(rule) << " " << w << "x" << h << (t == Topology::torus ? " torus" : " dead")
                                 << " generation " << g + 1;
          std::uint64_t live = 0;
          for (auto v : got) live += v == 1;
          ASSERT_EQ(sim->population(), live);
        }
      }
}

// Brian's Brain (B2/S/C3): no cell survives, so every live cell is dying (state 2) in the next
// generation and every dying cell is dead the generation after; cells are born only next to exactly
// two live cells.
TEST(LifeKnown, BriansBrainCellsLiveOneGenerationAndDieTheNext) {
  Board b(96, 64);
  fill_random(b, 0.3, 5);
  auto sim = make_simulation(b, Params{parse_rule("B2/S/C3"), Topology::torus, Backend::cpu});
  std::vector<std::uint8_t> before, after;
  sim->read_states(before);
  for (int g = 0; g < 30; ++g) {
    sim->advance(1);
    sim->read_states(after);
    for (std::size_t i = 0; i < after.size(); ++i) {
      if (before[i] == 1) {
        ASSERT_EQ(after[i], 2) << "cell " << i << " generation " << g + 1;
      } else if (before[i] == 2) {
        ASSERT_EQ(after[i], 0) << "cell " << i << " generation " << g + 1;
      }
    }
    before = after;
  }
  EXPECT_GT(sim->population(), 0u);  // the soup keeps going
}

TEST(LifeCpu, ResultDoesNotDependOnThreadCount) {
  Board b(777, 515);
  fill_random(b, 0.35, 9);
  set_num_threads(1);
  const Board one = advance_cpu(b, 20);
  set_num_threads(3);
  const Board three = advance_cpu(b, 20);
  set_num_threads(0);
  const Board all = advance_cpu(b, 20);
  EXPECT_EQ(one, three);
  EXPECT_EQ(one, all);
}

TEST(LifeKnown, BlinkerAndToadHavePeriodTwo) {
  const Board blinker = board_with("x = 3, y = 1\n3o!\n", 9, 9, 3, 4);
  const Board toad = board_with("x = 4, y = 2\nb3o$3o!\n", 10, 10, 3, 4);
  for (const Board* b : {&blinker, &toad}) {
    const Board one = advance_cpu(*b, 1, conway, Topology::dead);
    EXPECT_FALSE(one == *b);
    EXPECT_EQ(advance_cpu(*b, 2, conway, Topology::dead), *b);
    EXPECT_EQ(one.population(), b->population());
  }
}

TEST(LifeKnown, GliderMovesOneCellDiagonallyEveryFourGenerationsAndWraps) {
  const int n = 20;
  const Board start = board_with(glider_rle, n, n, 2, 2, Topology::torus);
  EXPECT_EQ(advance_cpu(start, 4), board_with(glider_rle, n, n, 3, 3, Topology::torus));
  EXPECT_EQ(advance_cpu(start, 40), board_with(glider_rle, n, n, 12, 12, Topology::torus));
  // Across the corner of the torus: after 4n generations it is back where it started.
  EXPECT_EQ(advance_cpu(start, 4 * 17 + 4), board_with(glider_rle, n, n, 20, 20, Topology::torus));
  EXPECT_EQ(advance_cpu(start, 4 * n), start);
}

TEST(LifeKnown, GosperGunEmitsAGliderEveryThirtyGenerations) {
  const Board start = board_with(gosper_rle, 256, 256, 10, 10);
  auto sim = make_simulation(start, Params{conway, Topology::dead, Backend::cpu});
  std::uint64_t previous = sim->population();
  EXPECT_EQ(previous, 36u);
  for (int period = 1; period <= 6; ++period) {
    sim->advance(30);
    const std::uint64_t pop = sim->population();
    EXPECT_EQ(pop, previous + 5) << "period " << period;  // the gun again, and one more glider (5 cells)
    previous = pop;
  }
}

TEST(LifeKnown, RPentominoSettlesAtGeneration1103WithPopulation116) {
  const Board start = board_with(r_pentomino_rle, 1024, 1024, 600, 600);
  auto sim = make_simulation(start, Params{conway, Topology::dead, Backend::cpu});
  std::vector<std::uint64_t> pop;
  sim->advance_counting(1200, [&](std::int64_t g, std::uint64_t p) {
    EXPECT_EQ(g, static_cast<std::int64_t>(pop.size()) + 1);
    pop.push_back(p);
  });
  EXPECT_EQ(pop[1103 - 1], 116u);
  EXPECT_NE(pop[1102 - 1], 116u);
  for (int g = 1103; g <= 1200; ++g) EXPECT_EQ(pop[g - 1], 116u) << "generation " << g;
}

}  // namespace
}  // namespace gpuvis::life

// Life on CUDA equals the CPU backend bit for bit: random soups under several rules, sizes that are
// not multiples of the word size, both topologies, generation counts across launch boundaries.
#include <gtest/gtest.h>

#include <random>
#include <utility>
#include <vector>

#include "cuda/memory.hpp"
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
                                   {32, 3}, {64, 5}, {96, 70}, {4096, 9},
                                   // the last column of tiles narrow (tile.cuh's tile_columns): 4 lanes
                                   // (16384: 2 words left, 1000: 2), 8 (2048: 4 words), 16 (448: 14
                                   // words, no full column), and full (1920: 0 words left; 1888: 29)
                                   {16384, 150}, {1000, 200}, {2048, 500}, {448, 400}, {1920, 97}, {1888, 61}},
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

// A board of bytes in device memory (the Python module's CuPy and PyTorch boards) is packed,
// advanced and unpacked on the device: every cell's state equals the host simulation's, for
// Conway's rule, another B/S rule and a Generations rule, widths in whole and partial words, in
// place and into another image, and past 65535 rows (the kernels' row loop).
TEST(LifeCuda, BoardsInDeviceMemoryEqualTheHostSimulation) {
  GPUVIS_REQUIRE_GPU();
  struct Case {
    const char* rule;
    int width, height;
    Topology topology;
    bool in_place;
  };
  for (const Case c : {Case{"B3/S23", 64, 40, Topology::torus, false}, Case{"B36/S23", 203, 41, Topology::dead, true},
                       Case{"B2/S/C3", 97, 66, Topology::torus, false}, Case{"B3/S23", 33, 70000, Topology::torus, false}}) {
    std::mt19937 rng(static_cast<unsigned>(c.width * 31 + c.height));
    Image<std::uint8_t> cells(c.width, c.height);
    Board board(c.width, c.height);
    for (int y = 0; y < c.height; ++y)
      for (int x = 0; x < c.width; ++x) {
        const bool alive = rng() % 3 == 0;
        cells(x, y) = alive ? static_cast<std::uint8_t>(1 + rng() % 255) : 0;  // any non-zero byte is alive
        board.set(x, y, alive);
      }
    const Params p{parse_rule(c.rule), c.topology, Backend::cuda};
    auto sim = make_simulation(board, p);
    sim->advance(13);
    std::vector<std::uint8_t> expected;
    sim->read_states(expected);
    cuda::DeviceImage<std::uint8_t> d_cells(c.width, c.height), d_states(c.width, c.height);
    cuda::Stream stream;
    cuda::upload<std::uint8_t>(cells.view(), d_cells.view(), stream);
    const DeviceView<std::uint8_t> out = c.in_place ? d_cells.view() : d_states.view();
    advance_on_device(DeviceView<const std::uint8_t>(d_cells.view()), out, 13, p, stream.get());
    Image<std::uint8_t> got(c.width, c.height);
    cuda::download<std::uint8_t>(DeviceView<const std::uint8_t>(out), got.view(), stream);
    stream.synchronize();
    std::size_t differences = 0;
    for (int y = 0; y < c.height; ++y)
      for (int x = 0; x < c.width; ++x) differences += got(x, y) != expected[static_cast<std::size_t>(y) * c.width + x];
    EXPECT_EQ(differences, 0u) << c.rule << " " << c.width << "x" << c.height;
  }
  cuda::DeviceImage<std::uint8_t> d(8, 8);
  EXPECT_THROW(advance_on_device(DeviceView<const std::uint8_t>(d.view()), d.view(), 1, Params{conway, Topology::torus, Backend::cpu}),
               Error);
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
  // 1.08e6 cells each: a partial last word, and whole words (the edge tiles' wrapped loads); 2048
  // wide, the last column of tiles narrow (8 lanes).
  for (const auto& [width, height] : {std::pair{1500, 720}, std::pair{1536, 704}, std::pair{2048, 520}})
    for (const Rule& rule : rules)
      for (Topology t : {Topology::torus, Topology::dead}) {
        Board b(width, height);
        fill_random(b, 0.4, rule.birth + 7u * rule.survival);
        ASSERT_EQ(run(b, 11, Params{rule, t, Backend::cpu}), run(b, 11, Params{rule, t, Backend::cuda}))
            << to_string(rule) << (t == Topology::torus ? " torus " : " dead ") << width;
      }
}

}  // namespace
}  // namespace gpuvis::life

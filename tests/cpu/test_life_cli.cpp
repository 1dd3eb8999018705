// gpuvis life as a user runs it: outputs that other programs read back, and clear errors.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "gpuvis/io/gif.hpp"
#include "gpuvis/io/image_file.hpp"
#include "gpuvis/life/life.hpp"
#include "gpuvis/life/pattern.hpp"
#include "test_support.hpp"

#if GPUVIS_TEST_GIF
#include <gif_lib.h>
#endif

namespace gpuvis::life {
namespace {

std::string write_text(const std::string& name, const std::string& text) {
  const std::string path = test::temp_path(name);
  std::ofstream(path) << text;
  return path;
}

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const char* gosper =
    "#N Gosper glider gun\nx = 36, y = 9, rule = B3/S23\n"
    "24bo$22bobo$12b2o6b2o12b2o$11bo3bo4b2o12b2o$2o8bo5bo3b2o$2o8bo3bob2o4b\n"
    "obo$10bo5bo7bo$11bo3bo$12b2o!\n";

TEST(LifeCli, WritesPopulationRleAndPng) {
  const std::string in = write_text("gun.rle", gosper);
  const std::string pop = test::temp_path("pop.csv"), rle = test::temp_path("final.rle"), png = test::temp_path("final.pgm");
  const auto r = test::run_cli("life " + in + " --size 256x128 --border dead --generations 120 --backend cpu --population " +
                               pop + " --rle " + rle + " --png " + png);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("120 generations"), std::string::npos) << r.output;
  // One line per generation, and the gun's population grows by a glider (5 cells) every 30.
  std::istringstream lines(read_all(pop));
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line, "generation,population");
  std::vector<long> p;
  while (std::getline(lines, line)) p.push_back(std::stol(line.substr(line.find(',') + 1)));
  ASSERT_EQ(p.size(), 121u);
  EXPECT_EQ(p[0], 36);
  EXPECT_EQ(p[30], 41);
  EXPECT_EQ(p[120], 56);
  // The RLE holds the same board as the population says.
  const Pattern final = parse_rle(read_all(rle));
  EXPECT_EQ(final.cells.population(), 56u);
  EXPECT_EQ(final.cells.width(), 256);
  // The image as a pattern gives the same board back.
  const Pattern from_image = read_pattern(png);
  EXPECT_EQ(from_image.cells, final.cells);
}

// A Generations rule's PNG shows the dying cells in grey (Brian's Brain: state 2 at 200 * 1/2), live
// cells white: as many as the population the command reports, and the library's states agree.
TEST(LifeCli, GenerationsPngShowsDyingCellsInGrey) {
  const std::string png = test::temp_path("brain.pgm");
  const auto r = test::run_cli("life --random 0.3 --seed 5 --size 40x30 --rule B2/S/C3 --generations 7 --backend cpu --png " + png);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto img = read_grey8(png);
  std::map<int, long> levels;
  for (int y = 0; y < img.height(); ++y)
    for (int x = 0; x < img.width(); ++x) ++levels[img(x, y)];
  Board b(40, 30);
  fill_random(b, 0.3, 5);
  auto sim = make_simulation(b, Params{parse_rule("B2/S/C3"), Topology::torus, Backend::cpu});
  sim->advance(7);
  std::vector<std::uint8_t> states;
  sim->read_states(states);
  std::map<int, long> expected;
  for (auto v : states) ++expected[v == 1 ? 255 : v == 2 ? 100 : 0];
  EXPECT_EQ(levels, expected);
  EXPECT_GT(levels[100], 0);
  EXPECT_NE(r.output.find("-> " + std::to_string(levels[255])), std::string::npos) << r.output;
}

TEST(LifeCli, BadInputGivesOneClearLineAndNothingWritten) {
  const std::string bad = write_text("bad.rle", "x = 3, y = 3\nbo$2bo$3o\n");
  const std::string out = test::temp_path("never.rle");
  const std::pair<std::string, std::string> cases[] = {
      {"life " + bad + " --rle " + out, "'!'"},
      {"life --random 0.5 --size 0x10 --rle " + out, "--size"},
      {"life --random 0.5 --size 2000000x10 --rle " + out, "--size"},
      {"life --random 0.5 --size 64x64 --rule B3/S23/C3 --rle " + out, "two-state"},  // dying cells would be lost
      {"life --random 0.5 --size 64x64 --rule B3/S23/C1 --rle " + out, "2 to 256 states"},
      {"life --random 0.5 --rle " + out, "--size"},
      {"life --random 0.5 --size 64x64 --crop 0,0,65,1 --rle " + out, "--crop"},
      {"life --random 0.5 --size 64x64 --generations -1 --rle " + out, "generations"},
      {"life " + test::temp_path("missing.rle") + " --rle " + out, "missing.rle"},
      {"life --rle " + out, "--random"},
      // A board larger than memory is refused before anything is allocated.
      {"life --random 0.5 --size 1048576x1048576 --backend cpu --rle " + out, "MiB"},
  };
  for (const auto& [args, word] : cases) {
    const auto r = test::run_cli(args);
    EXPECT_NE(r.exit_code, 0) << args;
    EXPECT_NE(r.output.find("gpuvis: error:"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(word), std::string::npos) << args << "\n" << r.output;
    EXPECT_FALSE(std::filesystem::exists(out)) << args;
  }
}

TEST(LifeCli, NeverReplacesAFileWithoutOverwrite) {
  const std::string out = write_text("keep.rle", "precious");
  const auto r = test::run_cli("life --random 0.5 --size 64x64 --generations 1 --rle " + out);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("--overwrite"), std::string::npos) << r.output;
  EXPECT_EQ(read_all(out), "precious");
  EXPECT_EQ(test::run_cli("life --random 0.5 --size 64x64 --generations 1 --overwrite --rle " + out).exit_code, 0);
  EXPECT_NE(read_all(out).find("x = 64"), std::string::npos);
}

#if GPUVIS_TEST_GIF
// The GIF is read back by giflib's decoder: every frame, a loop extension, the frame delay, and the
// live cells of the last frame equal the final board's.
TEST(LifeCli, GifPlaysInALoopWithEveryFrame) {
  const std::string in = write_text("gun2.rle", gosper);
  const std::string gif = test::temp_path("gun.gif"), rle = test::temp_path("gun_final.rle");
  const auto r = test::run_cli("life " + in + " --size 100x50 --generations 90 --every 10 --scale 2 --delay 7 --backend cpu --gif " +
                               gif + " --rle " + rle);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  int err = 0;
  GifFileType* f = DGifOpenFileName(gif.c_str(), &err);
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(DGifSlurp(f), GIF_OK);
  EXPECT_EQ(f->SWidth, 200);
  EXPECT_EQ(f->SHeight, 100);
  EXPECT_EQ(f->ImageCount, 10);  // generations 0, 10, ..., 90
  bool loops = false;  // giflib attaches extensions before the first image to that image
  const SavedImage& first = f->SavedImages[0];
  for (int i = 0; i < first.ExtensionBlockCount; ++i)
    if (first.ExtensionBlocks[i].Function == APPLICATION_EXT_FUNC_CODE && first.ExtensionBlocks[i].ByteCount == 11 &&
        std::string(reinterpret_cast<char*>(first.ExtensionBlocks[i].Bytes), 11) == "NETSCAPE2.0")
      loops = true;
  EXPECT_TRUE(loops);
  GraphicsControlBlock gcb;
  ASSERT_EQ(DGifSavedExtensionToGCB(f, 9, &gcb), GIF_OK);
  EXPECT_EQ(gcb.DelayTime, 7);
  const Board final = parse_rle(read_all(rle)).cells;
  const SavedImage& last = f->SavedImages[9];
  long live_pixels = 0;
  for (int i = 0; i < 200 * 100; ++i) live_pixels += last.RasterBits[i] == 1;
  EXPECT_EQ(live_pixels, static_cast<long>(final.population()) * 4);
  EXPECT_EQ(last.RasterBits[(2 * 20) * 200 + 2 * 30] == 1, final.get(30, 20));
  DGifCloseFile(f, &err);
  // An independent reader, when this machine has one: Pillow sees an animation of 10 frames.
  if (std::system("/usr/bin/python3 -c 'import PIL' 2>/dev/null") == 0) {
    const std::string cmd = "/usr/bin/python3 -c \"from PIL import Image; im=Image.open('" + gif +
                            "'); import sys; sys.exit(0 if im.is_animated and im.n_frames == 10 and im.info.get('loop') == 0 else 1)\"";
    EXPECT_EQ(std::system(cmd.c_str()), 0);
  }
}
#endif


#if GPUVIS_TEST_GIF
// Every example in `gpuvis life --help` runs as written from the repository's folder (here a folder
// that sees the repository's data/), on the bundled patterns, and the patterns behave as published:
// the Gosper gun adds a glider (5 cells) every 30 generations; the R-pentomino settles at
// generation 1103 with 116 cells (its gliders still far from the border of a 1024x1024 board).
TEST(LifeCli, TheHelpsExamplesRunAsWrittenOnTheBundledPatterns) {
  if (!codec::available()) GTEST_SKIP() << "the examples write PNG";
  const auto help = test::run_cli("life --help");
  ASSERT_EQ(help.exit_code, 0);
  const std::string dir = test::temp_path("life_examples");
  std::filesystem::create_directories(dir);
  std::filesystem::create_directory_symlink(test::source_path("data"), dir + "/data");
  std::istringstream lines(help.output);
  std::string line;
  int examples = 0;
  while (std::getline(lines, line)) {
    const auto at = line.find("  gpuvis life ");
    if (at != 0) continue;
    ++examples;
    const auto r = test::run_cli_in(dir, line.substr(std::string("  gpuvis ").size()));
    EXPECT_EQ(r.exit_code, 0) << line << "\n" << r.output;
  }
  EXPECT_EQ(examples, 4);
  for (const char* out : {"gun.gif", "final.png", "pop.csv", "brain.gif"}) EXPECT_TRUE(std::filesystem::exists(dir + "/" + out)) << out;
  std::istringstream pop(read_all(dir + "/pop.csv"));
  std::vector<long> p;
  std::getline(pop, line);
  while (std::getline(pop, line)) p.push_back(std::stol(line.substr(line.find(',') + 1)));
  ASSERT_EQ(p.size(), 1201u);
  EXPECT_EQ(p[0], 5);
  EXPECT_NE(p[1102], 116);
  EXPECT_EQ(p[1103], 116);
  EXPECT_EQ(p[1200], 116);
  const Pattern gun = parse_rle(read_all(test::source_path("data/life/gosper-gun.rle")));
  EXPECT_EQ(gun.cells.population(), 36u);
  const auto r = test::run_cli("life " + test::source_path("data/life/gosper-gun.rle") +
                               " --size 512x256 --border dead --generations 300 --backend cpu");
  EXPECT_NE(r.output.find("population 36 -> 86"), std::string::npos) << r.output;  // 10 gliders
  const auto g = test::run_cli("life " + test::source_path("data/life/glider.rle") + " --generations 400 --backend cpu");
  EXPECT_NE(g.output.find("population 5 -> 5"), std::string::npos) << g.output;
}
#endif

}  // namespace
}  // namespace gpuvis::life

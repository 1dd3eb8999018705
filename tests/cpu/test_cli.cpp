// The gpuvis program as a user meets it: help, version, info, a real threshold run, and bad input
// giving exactly one error line and a non-zero exit.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "gpuvis/io/image_file.hpp"
#include "test_support.hpp"

using namespace gpuvis;
using test::run_cli;

namespace {
int error_lines(const std::string& out) {
  int n = 0;
  std::size_t pos = 0;
  while ((pos = out.find("gpuvis: error:", pos)) != std::string::npos) ++n, ++pos;
  return n;
}
void expect_one_line_error(const std::string& args, const std::string& needle) {
  const auto r = run_cli(args);
  EXPECT_NE(r.exit_code, 0) << args;
  EXPECT_EQ(error_lines(r.output), 1) << args << "\n" << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << args << "\n" << r.output;
  EXPECT_NE(r.output.find(needle), std::string::npos) << args << "\n" << r.output;
}
std::string quote(const std::string& s) { return "'" + s + "'"; }
}  // namespace

TEST(Cli, HelpVersionAndInfo) {
  auto r = run_cli("--help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.output.find("threshold"), std::string::npos);
  EXPECT_NE(r.output.find("info"), std::string::npos);
  r = run_cli("--version");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.output.find("gpuvis 0."), std::string::npos);
  r = run_cli("threshold --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.output.find("bradley-roth"), std::string::npos);
  r = run_cli("info");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.output.find("CPU threads"), std::string::npos);
  if (!test::gpu_available()) {
    EXPECT_NE(r.output.find("no CUDA device"), std::string::npos) << r.output;
  }
}

TEST(Cli, ThresholdsTheBundledSampleAndProtectsExistingFiles) {
  const std::string in = test::source_path("data/samples/table.pgm");
  const std::string out = test::temp_path("out.pgm");
  auto r = run_cli("threshold " + quote(in) + " " + quote(out) + " --backend cpu");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto img = read_grey8(out);
  int white = 0;
  for (int y = 0; y < img.height(); ++y)
    for (int x = 0; x < img.width(); ++x) {
      ASSERT_TRUE(img(x, y) == 0 || img(x, y) == 255);
      white += img(x, y) == 255;
    }
  EXPECT_GT(white, img.width() * img.height() / 10);
  EXPECT_LT(white, img.width() * img.height() * 9 / 10);
  // Existing output: refused without --overwrite, replaced with it; the input is never a target.
  expect_one_line_error("threshold " + quote(in) + " " + quote(out) + " --backend cpu", "--overwrite");
  EXPECT_EQ(run_cli("threshold " + quote(in) + " " + quote(out) + " --backend cpu --overwrite").exit_code, 0);
  expect_one_line_error("threshold " + quote(out) + " " + quote(out) + " --overwrite", "is the input");
}

TEST(Cli, AutoBackendWithoutAGpuSaysSoInOneLine) {
  if (test::gpu_available()) GTEST_SKIP() << "a CUDA device is present";
  const auto r = run_cli("threshold " + quote(test::source_path("data/samples/table.pgm")) + " " +
                         quote(test::temp_path("o.pgm")));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("using the CPU backend"), std::string::npos) << r.output;
  expect_one_line_error("threshold " + quote(test::source_path("data/samples/table.pgm")) + " " +
                            quote(test::temp_path("o2.pgm")) + " --backend cuda",
                        "cuda");
}

TEST(Cli, BadInputGivesOneLineErrors) {
  const std::string out = quote(test::temp_path("o.pgm"));
  expect_one_line_error("threshold /no/such/file.pgm " + out, "no such file");
  const std::string trunc = test::temp_path("trunc.pgm");
  std::ofstream(trunc, std::ios::binary) << "P5\n64 64\n255\n" << std::string(100, '\x80');
  expect_one_line_error("threshold " + quote(trunc) + " " + out, "truncated");
  const std::string empty = test::temp_path("empty.pgm");
  std::ofstream(empty, std::ios::binary) << "P5\n0 0\n255\n";
  expect_one_line_error("threshold " + quote(empty) + " " + out, "empty");
  const std::string tpng = test::temp_path("trunc.png");
  if (codec::available()) {
    std::ifstream src(test::source_path("data/amoeba/symbols/amoeba_default_001.png"), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(src)), std::istreambuf_iterator<char>());
    std::ofstream(tpng, std::ios::binary) << bytes.substr(0, bytes.size() / 3);
    expect_one_line_error("threshold " + quote(tpng) + " " + out, "truncated");
  }
  expect_one_line_error("frobnicate", "unknown command 'frobnicate'");
  expect_one_line_error("threshold --bogus", "--bogus");
  expect_one_line_error("threshold a.pgm b.pgm --method otsu", "otsu");
  expect_one_line_error("threshold " + quote(test::source_path("data/samples/table.pgm")) + " " + out + " --window 0",
                        "window");
  expect_one_line_error("threshold " + quote(test::source_path("data/samples/table.pgm")) + " " +
                            quote(test::temp_path("o.bmp")),
                        "extension");
  expect_one_line_error("threshold", "INPUT");
}

// The gpuvis program as a user meets it: help, version, info, a real threshold run, and bad input
// giving exactly one error line and a non-zero exit.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <sys/stat.h>

#include "gpuvis/config/reactivision.hpp"
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
bool config_files_supported() { return config::xml_available(); }
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
  expect_one_line_error("threshold /no/such/file.pgm " + out, "does not exist");
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
  // A mistake in a command's options points to that command's help.
  expect_one_line_error("filter bilateral a.pgm b.pgm --bogus", "see gpuvis filter bilateral --help");
  // So does a value it cannot take, and a missing argument; a missing file does not.
  expect_one_line_error("filter bilateral", "needs INPUT and OUTPUT (see gpuvis filter bilateral --help)");
  expect_one_line_error("filter bilateral " + quote(test::source_path("data/samples/table.pgm")) + " " + quote(test::temp_path("o.pgm")) +
                            " --sigma-range -1",
                        "sigma-range must be > 0, got -1 (see gpuvis filter bilateral --help)");
  expect_one_line_error("threshold a.pgm b.pgm --method otsu", "otsu");
  expect_one_line_error("threshold " + quote(test::source_path("data/samples/table.pgm")) + " " + out + " --window 0",
                        "window");
  expect_one_line_error("threshold " + quote(test::source_path("data/samples/table.pgm")) + " " +
                            quote(test::temp_path("o.bmp")),
                        "extension");
  expect_one_line_error("threshold", "INPUT");
}

TEST(Cli, DetectReportsTheSampleSymbolsAsJsonAndDrawsThem) {
  const std::string in = test::source_path("data/samples/table.pgm");
  const auto r = run_cli("detect " + quote(in) + " --json --backend cpu 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* id : {"\"id\":3,", "\"id\":17,", "\"id\":42,", "\"id\":99,", "\"id\":120,", "\"id\":150,", "\"id\":201,", "\"id\":215,"})
    EXPECT_NE(r.output.find(id), std::string::npos) << id << "\n" << r.output;
  EXPECT_NE(r.output.find("\"file\":\"table.pgm\""), std::string::npos);
  EXPECT_NE(r.output.find("\"width\":640"), std::string::npos);
  const std::string dir = test::temp_path("annotated");
  const auto a = run_cli("detect " + quote(in) + " --annotate " + quote(dir) + " --backend cpu");
  ASSERT_EQ(a.exit_code, 0) << a.output;
  EXPECT_NE(a.output.find("8 fiducials"), std::string::npos) << a.output;
  const auto img = read_image(dir + (codec::available() ? "/table.png" : "/table.ppm"));
  EXPECT_EQ(std::visit([](const auto& i) { return i.channels(); }, img), 3);
  // A second run refuses to replace the drawings unless asked.
  expect_one_line_error("detect " + quote(in) + " --annotate " + quote(dir) + " --backend cpu", "--overwrite");
}

TEST(Cli, SynthWritesFramesAndTruthThatDetectAgreesWith) {
  if (!codec::available()) GTEST_SKIP() << "the printed symbols are PNG files and this build has no PNG support";
  const std::string dir = test::temp_path("synth");
  auto r = run_cli("synth " + quote(dir) + " --count 3 --symbols 4 --seed 9");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream truth(dir + "/truth.jsonl");
  std::string line;
  int lines = 0;
  while (std::getline(truth, line)) ++lines;
  EXPECT_EQ(lines, 3);
  r = run_cli("detect " + quote(dir) + " --json --backend cpu 2>/dev/null");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 3);
  expect_one_line_error("synth " + quote(dir) + " --count 3", "--overwrite");
  expect_one_line_error("synth " + quote(test::temp_path("s2")) + " --size 8x8", "--size");
}

TEST(Cli, DetectRejectsBadTreeFilesAndReportsUnreadableFrames) {
  const std::string trees = test::temp_path("bad.trees");
  std::ofstream(trees) << "w0122222212212121111\nw01x2\n";
  expect_one_line_error("detect " + quote(test::source_path("data/samples/table.pgm")) + " --trees " + quote(trees), ":2:");
  expect_one_line_error("detect " + quote(test::source_path("data/samples/table.pgm")) + " --trees huge", "huge");
  // A folder with one good and one truncated frame: the good one is reported, the bad one named,
  // and the exit status is non-zero.
  const std::string dir = test::temp_path("mixed");
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(test::source_path("data/samples/table.pgm"), dir + "/a.pgm");
  std::ofstream(dir + "/b.pgm", std::ios::binary) << "P5\n64 64\n255\n" << std::string(10, 'x');
  const auto r = run_cli("detect " + quote(dir) + " --json --backend cpu 2>&1");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("\"file\":\"a.pgm\""), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("b.pgm: truncated"), std::string::npos) << r.output;
  expect_one_line_error("detect /no/such/folder/", "no such file");
}

TEST(Cli, FiltersKeepTypeAndChannelsOnPgmPngAndJpeg) {
  const std::string pgm = test::source_path("data/samples/table.pgm");
  std::vector<std::pair<std::string, int>> inputs = {{pgm, 1}};
  if (codec::available()) {
    Image<std::uint8_t> rgb(64, 48, 3);
    for (int y = 0; y < 48; ++y)
      for (int x = 0; x < 64; ++x)
        for (int c = 0; c < 3; ++c) rgb(x, y, c) = static_cast<std::uint8_t>((x * 4 + y * 2 + c * 50) % 256);
    const std::string png = test::temp_path("rgb.png"), jpg = test::temp_path("rgb.jpg");
    write_image(png, rgb.view());
    write_image(jpg, rgb.view());
    inputs.push_back({png, 3});
    inputs.push_back({jpg, 3});
  }
  int n = 0;
  for (const auto& [in, channels] : inputs) {
    const std::string ext = in.substr(in.rfind('.'));
    for (const std::string& cmd : {"filter convolve " + quote(in) + " OUT --kernel gaussian:sigma=1.5 --backend cpu",
                                  "filter bilateral " + quote(in) + " OUT --radius 2 --backend cpu"}) {
      const std::string out = test::temp_path("out" + std::to_string(n++) + (ext == ".jpg" ? ".png" : ext));
      std::string c = cmd;
      c.replace(c.find("OUT"), 3, quote(out));
      const auto r = run_cli(c);
      ASSERT_EQ(r.exit_code, 0) << c << "\n" << r.output;
      const auto img = read_image(out);
      EXPECT_EQ(std::visit([](const auto& i) { return i.channels(); }, img), channels) << c;
      EXPECT_TRUE(std::holds_alternative<Image<std::uint8_t>>(img)) << c;
    }
  }
}

TEST(Cli, FilterErrorsAreOneLine) {
  const std::string in = quote(test::source_path("data/samples/table.pgm"));
  const std::string out = quote(test::temp_path("f.pgm"));
  expect_one_line_error("filter convolve " + in + " " + out + " --kernel 1,2,1,2", "odd");
  expect_one_line_error("filter convolve " + in + " " + out + " --kernel emboss", "unknown kernel name");
  expect_one_line_error("filter convolve " + in + " " + out + " --kernel box:3 --border mirror", "border");
  expect_one_line_error("filter convolve " + in + " " + out, "--kernel");
  expect_one_line_error("filter bilateral " + in + " " + out + " --sigma-space 0", "sigma-space");
  expect_one_line_error("filter bilateral " + in + " " + out + " --radius 100", "radius");
  expect_one_line_error("filter sharpen", "sharpen");
}

TEST(Cli, FilterBatchOverAFolder) {
  const std::string dir = test::temp_path("batch_in"), out = test::temp_path("batch_out");
  std::filesystem::create_directories(dir);
  for (int i = 0; i < 3; ++i)
    std::filesystem::copy_file(test::source_path("data/samples/table.pgm"), dir + "/f" + std::to_string(i) + ".pgm");
  const auto r = run_cli("filter convolve " + quote(dir) + " " + quote(out) + " --kernel box:5 --backend cpu");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(std::filesystem::exists(out + "/f" + std::to_string(i) + ".pgm"));
  expect_one_line_error("filter convolve " + quote(dir) + " " + quote(out) + " --kernel box:5 --backend cpu", "--overwrite");
  // Files are read ahead and written behind the filter: a damaged file in the batch still ends
  // the run with one line naming it, and the files before it are complete.
  { std::ofstream(dir + "/f1.pgm", std::ios::trunc) << "P5\n64 64\n255\nshort"; }
  const std::string out2 = test::temp_path("batch_out2");
  expect_one_line_error("filter convolve " + quote(dir) + " " + quote(out2) + " --kernel box:5 --backend cpu", "f1.pgm");
  const auto first = read_grey8(out + "/f0.pgm"), again = read_grey8(out2 + "/f0.pgm");
  EXPECT_EQ(count_differences<std::uint8_t>(first.view(), again.view()), 0u);
}

// detect --debug: one image per stage; the threshold stage is what `gpuvis threshold` writes, the
// regions image colours every pixel, and existing images are kept without --overwrite.
TEST(Cli, DetectDebugWritesEveryStage) {
  const std::string dir = test::temp_path("debug");
  const std::string frame = test::source_path("data/samples/table.pgm");
  auto r = test::run_cli("detect '" + frame + "' --backend cpu --debug '" + dir + "'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string ext = codec::available() ? ".png" : ".ppm";
  for (const char* stage : {"_1_threshold", "_2_regions", "_3_candidates", "_4_detections"})
    EXPECT_TRUE(std::filesystem::exists(dir + "/table" + stage + ext)) << stage;
  // The candidates' list: every symbol detect reports is a decoded candidate with its ID.
  std::ifstream list(dir + "/table_5_candidates.txt");
  ASSERT_TRUE(list) << "no _5_candidates.txt";
  std::string text((std::istreambuf_iterator<char>(list)), std::istreambuf_iterator<char>());
  const auto json = test::run_cli("detect '" + frame + "' --backend cpu --json");
  ASSERT_EQ(json.exit_code, 0);
  int ids = 0;
  for (std::size_t at = json.output.find("\"id\":"); at != std::string::npos; at = json.output.find("\"id\":", at + 1)) {
    const int id = std::stoi(json.output.substr(at + 5));
    if (id < 0) continue;
    ++ids;
    EXPECT_NE(text.find("  " + std::to_string(id) + "  symbol: decoded"), std::string::npos) << "ID " << id << " in\n" << text;
  }
  EXPECT_GT(ids, 0);
  if (codec::available()) {
    const std::string expected = test::temp_path("table-threshold.png");
    ASSERT_EQ(test::run_cli("threshold '" + frame + "' '" + expected + "' --backend cpu").exit_code, 0);
    const auto a = read_grey8(dir + "/table_1_threshold.png"), b = read_grey8(expected);
    EXPECT_EQ(count_differences<std::uint8_t>(a.view(), b.view()), 0u);
  }
  r = test::run_cli("detect '" + frame + "' --backend cpu --debug '" + dir + "'");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("--overwrite"), std::string::npos) << r.output;
}

namespace {
// Runs a shell command line, stdout and stderr together.
test::CommandResult run_shell(const std::string& cmd) {
  test::CommandResult r;
  FILE* pipe = popen((cmd + " 2>&1").c_str(), "r");
  if (!pipe) return r;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, pipe)) r.output += buf;
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}
std::vector<std::string> names_in(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}
}  // namespace

// A full disk (here a file size limit with SIGXFSZ ignored, so that writes fail as on a full disk)
// is a one-line error, and neither the output nor a temporary is left behind; an existing output
// stays as it was.
TEST(Cli, AFullDiskLeavesNoPartialOutput) {
  const std::string dir = test::temp_path("full_disk");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string table = test::source_path("data/samples/table.pgm");
  const std::string cli = GPUVIS_CLI_PATH;
  auto r = run_shell("bash -c \"trap '' XFSZ; ulimit -f 64; '" + cli + "' filter convolve '" + table + "' '" + dir +
                     "/out.pgm' --kernel box:3 --backend cpu\"");
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("disk full"), std::string::npos) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  EXPECT_TRUE(names_in(dir).empty()) << "left behind: " << names_in(dir).front();
  std::ofstream(dir + "/out.pgm") << "keep me";
  r = run_shell("bash -c \"trap '' XFSZ; ulimit -f 64; '" + cli + "' filter convolve '" + table + "' '" + dir +
                "/out.pgm' --kernel box:3 --backend cpu --overwrite\"");
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_EQ(names_in(dir), std::vector<std::string>{"out.pgm"});
  std::ifstream kept(dir + "/out.pgm");
  std::string text;
  std::getline(kept, text);
  EXPECT_EQ(text, "keep me") << "a failed write replaced the existing file";
}

// SIGTERM and SIGINT while a command writes its outputs: every output is complete or absent, no
// temporary is left, and the truth file holds whole lines only.
TEST(Cli, InterruptedCommandsLeaveCompleteOutputsOnly) {
  if (!codec::available()) GTEST_SKIP() << "the printed symbols are PNG files and this build has no PNG support";
  for (const char* signal : {"TERM", "INT"}) {
    const std::string dir = test::temp_path(std::string("interrupted_") + signal);
    std::filesystem::remove_all(dir);
    const auto r = run_shell("timeout -s " + std::string(signal) + " 2 '" + std::string(GPUVIS_CLI_PATH) + "' synth '" + dir +
                             "' --count 400 --size 1600x1200 --symbols 12 --format png");
    EXPECT_EQ(r.exit_code, 124) << signal << ": " << r.output;  // killed by timeout, not finished
    int frames = 0;
    for (const std::string& name : names_in(dir)) {
      EXPECT_EQ(name.find(".partial"), std::string::npos) << signal << ": temporary left behind: " << name;
      if (name.rfind("frame_", 0) != 0) continue;
      const auto img = read_grey8(dir + "/" + name);  // complete: it reads
      EXPECT_EQ(img.width(), 1600);
      ++frames;
    }
    std::ifstream truth(dir + "/truth.jsonl");
    std::string line;
    int lines = 0;
    while (std::getline(truth, line)) {
      ++lines;
      EXPECT_EQ(line.back(), '}') << signal << ": a partial truth line: " << line;
    }
    EXPECT_LE(lines, frames) << signal;
    EXPECT_LE(frames, lines + 1) << signal;  // the last frame may lack its truth line
  }
}

// Inputs that are not files, or far too large, are named for what they are and refused before they
// are read; a huge value comes back in a message of bounded length (about 100 of its characters).
TEST(Cli, SpecialFilesAndHugeInputsAreNamedAndRefused) {
  expect_one_line_error("detect /dev/zero --backend cpu", "image '/dev/zero' is a device, not a file");
  const std::string folder = test::temp_path("a_folder");
  std::filesystem::create_directories(folder);
  expect_one_line_error("threshold " + quote(folder + "/") + " " + quote(test::temp_path("x.pgm")), "is a folder, not a file");
  if (!config_files_supported()) GTEST_SKIP() << "built without the XML adapter (tinyxml2)";
  expect_one_line_error("track --config /dev/zero --synth 1 --backend cpu", "config file '/dev/zero' is a device, not a file");
  expect_one_line_error("track --config " + quote(folder) + " --synth 1 --backend cpu", "is a folder, not a file");
  const std::string fifo = test::temp_path("a_fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  expect_one_line_error("track --config " + quote(fifo) + " --synth 1 --backend cpu", "is a named pipe (FIFO), not a file");
  // 17 MiB (a sparse file: nothing is written) is refused from its size alone.
  const std::string huge = test::temp_path("huge.xml");
  std::ofstream(huge) << "<reactivision>";
  std::filesystem::resize_file(huge, std::uintmax_t{17} << 20);
  expect_one_line_error("track --config " + quote(huge) + " --synth 1 --backend cpu", "is 17 MiB; such a file may have at most 16 MiB");
  // A 10 MB host name: refused as no host name can be that long, in a short line.
  const std::string host = test::temp_path("host.xml");
  std::ofstream(host) << "<reactivision><tuio type=\"udp\" host=\"" << std::string(10'000'000, 'h') << "\" port=\"3333\"/></reactivision>";
  const auto r = run_cli("track --config " + quote(host) + " --synth 1 --backend cpu");
  EXPECT_NE(r.output.find("longer than the 253 characters"), std::string::npos) << r.output.substr(0, 300);
  EXPECT_LT(r.output.size(), 300u);
  // The same in a --tuio target: the value is quoted by its ends and its length.
  const auto t = run_cli("track --synth 1 --backend cpu --tuio udp:" + std::string(100'000, 'a') + ":3333");
  EXPECT_NE(t.output.find("(100009 characters)"), std::string::npos) << t.output.substr(0, 300);
  EXPECT_LT(t.output.size(), 400u);
}

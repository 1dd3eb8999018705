// Video files as a frame source: a sequence written with OpenCV's VideoWriter is tracked by
// gpuvis track --video, and bad videos are reported.
#include <gtest/gtest.h>

#include <fstream>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/videoio.hpp>

#include "gpuvis/io/image_file.hpp"
#include "gpuvis/source/frame_source.hpp"
#include "test_support.hpp"

using namespace gpuvis;

namespace {
#ifndef GPUVIS_TEST_VIDEO_BUILT
#define GPUVIS_TEST_VIDEO_BUILT 0
#endif
std::string quote(const std::string& s) { return "'" + s + "'"; }
}  // namespace

// The video plugin is loaded on first use: a build with the adapter must find it (beside the
// program or in the build tree), not quietly report video as absent.
TEST(Video, ThePluginLoadsWhenBuilt) {
  EXPECT_EQ(source::video_available(), GPUVIS_TEST_VIDEO_BUILT != 0);
}

TEST(Video, TrackReadsAVideoFileAndKeepsSessions) {
  if (!source::video_available()) GTEST_SKIP() << "built without the video adapter";
  if (!codec::available()) GTEST_SKIP() << "the printed symbols are PNG files and this build has no PNG support";
  const std::string seq = test::temp_path("seq");
  ASSERT_EQ(test::run_cli("synth " + quote(seq) + " --count 20 --sequence --speed 4 --symbols 3 --seed 4 --noise 1").exit_code, 0);
  const std::string video = test::temp_path("seq.avi");
  cv::VideoWriter writer(video, cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 30, cv::Size(640, 480), false);
  ASSERT_TRUE(writer.isOpened());
  for (int i = 0; i < 20; ++i) {
    char name[64];
    std::snprintf(name, sizeof name, "/frame_%04d.pgm", i);
    writer.write(cv::imread(seq + name, cv::IMREAD_GRAYSCALE));
  }
  writer.release();
  const auto r = test::run_cli("track --video " + quote(video) + " --no-tuio --json --backend cpu 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 20) << r.output;
  // Three symbols, three sessions for the whole video (MJPEG compression included).
  for (int s = 0; s < 3; ++s) EXPECT_NE(r.output.find("\"session\":" + std::to_string(s) + ","), std::string::npos);
  EXPECT_EQ(r.output.find("\"session\":3,"), std::string::npos) << r.output.substr(0, 2000);
}

TEST(Video, BadVideosAndCamerasAreOneLineErrors) {
  if (!source::video_available()) GTEST_SKIP() << "built without the video adapter";
  const std::string junk = test::temp_path("junk.avi");
  std::ofstream(junk) << "this is not a video";
  auto r = test::run_cli("track --video " + quote(junk) + " --no-tuio");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("cannot decode video"), std::string::npos) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  r = test::run_cli("track --camera 250 --no-tuio");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("cannot open camera 250"), std::string::npos) << r.output;
}

namespace {
std::vector<Image<std::uint8_t>> read_all(source::FrameSource& s) {
  std::vector<Image<std::uint8_t>> out;
  Image<std::uint8_t> f;
  while (s.next(f)) out.push_back(f.clone());
  return out;
}
bool same(const Image<std::uint8_t>& a, const Image<std::uint8_t>& b) {
  if (a.width() != b.width() || a.height() != b.height()) return false;
  for (int y = 0; y < a.height(); ++y)
    if (!std::equal(a.row(y), a.row(y) + a.width(), b.row(y))) return false;
  return true;
}
}  // namespace

// gpuvis.dask.detect_video gives each task a range of frames: reading from frame k must give the
// frames a reading from the start gives from k on, and the count must be the file's.
TEST(Video, AVideoWrittenByGpuvisReadsBackFromAnyFrame) {
  if (!source::video_available()) GTEST_SKIP() << "built without the video adapter";
  const std::string video = test::temp_path("written.avi");
  {
    source::VideoFileWriter writer(video, 96, 64, 25);
    for (int i = 0; i < 12; ++i) {
      Image<std::uint8_t> f(96, 64);
      for (int y = 0; y < 64; ++y)
        for (int x = 0; x < 96; ++x) f(x, y) = static_cast<std::uint8_t>(((x / 8 + y / 8 + i) % 2) ? 220 : 30);
      writer.write(f.view());
    }
    Image<std::uint8_t> wrong(32, 32);
    EXPECT_THROW(writer.write(wrong.view()), Error);
  }
  EXPECT_EQ(source::video_frame_count(video), 12);
  const auto all = read_all(*source::make_video_source(video, false));
  ASSERT_EQ(all.size(), 12u);
  // Motion JPEG keeps a hard-edged checkerboard close: frame i is frame i, not its neighbour.
  for (int i = 0; i < 12; ++i) EXPECT_GT(all[i](4 + 8 * ((i + 1) % 2), 4), 128) << i;
  for (long first : {1L, 5L, 11L}) {
    const auto tail = read_all(*source::make_video_source(video, false, first));
    ASSERT_EQ(tail.size(), all.size() - static_cast<std::size_t>(first)) << first;
    for (std::size_t k = 0; k < tail.size(); ++k) EXPECT_TRUE(same(tail[k], all[first + static_cast<long>(k)])) << first << " " << k;
  }
  try {
    source::make_video_source(video, false, 12);
    ADD_FAILURE() << "frame 12 of a 12-frame video was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("has no frame 12 (it has 12)"), std::string::npos) << e.what();
  }
}

TEST(Video, SynthWritesItsSequenceAsAVideo) {
  if (!source::video_available()) GTEST_SKIP() << "built without the video adapter";
  if (!codec::available()) GTEST_SKIP() << "the printed symbols are PNG files and this build has no PNG support";
  const std::string out = test::temp_path("synth-video");
  auto r = test::run_cli("synth " + quote(out) + " --count 6 --sequence --speed 3 --symbols 2 --format avi --fps 60");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(source::video_frame_count(out + "/frames.avi"), 6);
  std::ifstream truth(out + "/truth.jsonl");
  std::string line, last;
  int lines = 0;
  while (std::getline(truth, line)) ++lines, last = line;
  EXPECT_EQ(lines, 6);
  EXPECT_NE(last.find("frames.avi#5"), std::string::npos) << last;
  r = test::run_cli("synth " + quote(out) + " --count 6 --format avi");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("--overwrite"), std::string::npos) << r.output;
}

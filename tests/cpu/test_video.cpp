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

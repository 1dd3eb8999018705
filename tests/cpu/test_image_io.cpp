#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <fstream>

#include "gpuvis/core/error.hpp"
#include "gpuvis/io/image_file.hpp"
#include "test_support.hpp"

using namespace gpuvis;

namespace {
void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}
std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
template <class T>
Image<T> as(AnyImage any) {
  return std::move(std::get<Image<T>>(any));
}
// Expects read_image to fail with ErrorCode `code` and a message that contains `needle`.
void expect_read_error(const std::string& path, ErrorCode code, const std::string& needle) {
  try {
    read_image(path);
    FAIL() << "reading " << path << " should fail";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}
}  // namespace

TEST(Pnm, RoundTripsEightBitGreyAndColour) {
  for (int channels : {1, 3}) {
    auto img = test::random_image(37, 11, 5, channels);
    const std::string path = test::temp_path(channels == 1 ? "a.pgm" : "a.ppm");
    write_image(path, img.view());
    const auto back = read_image(path);
    ASSERT_TRUE(std::holds_alternative<Image<std::uint8_t>>(back));
    EXPECT_EQ(count_differences<std::uint8_t>(img.view(), std::get<Image<std::uint8_t>>(back).view()), 0u);
  }
}

TEST(Pnm, RoundTripsSixteenBitAndFloat) {
  Image<std::uint16_t> a(5, 3);
  Image<float> f(4, 6, 3);
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 5; ++x) a(x, y) = static_cast<std::uint16_t>(x * 13000 + y * 7);
  for (int y = 0; y < 6; ++y)
    for (int i = 0; i < 12; ++i) f.row(y)[i] = static_cast<float>(y) * 0.5f - static_cast<float>(i) * 1e-3f;
  const std::string p16 = test::temp_path("a16.pgm"), pf = test::temp_path("f.pfm");
  write_image(p16, a.view());
  write_image(pf, f.view());
  EXPECT_EQ(count_differences<std::uint16_t>(a.view(), as<std::uint16_t>(read_image(p16)).view()), 0u);
  EXPECT_EQ(count_differences<float>(f.view(), as<float>(read_image(pf)).view()), 0u);
}

TEST(Pnm, ReadsAsciiWithComments) {
  const std::string path = test::temp_path("ascii.pgm");
  write_bytes(path, "P2\n# a comment\n3 2\n# another\n255\n0 1 2\n253 254 255\n");
  const auto& img = as<std::uint8_t>(read_image(path));
  EXPECT_EQ(img.width(), 3);
  EXPECT_EQ(img(2, 1), 255);
  EXPECT_EQ(img(1, 0), 1);
}

TEST(Pnm, TruncatedAndMalformedFilesGiveClearErrors) {
  const std::string path = test::temp_path("bad.pgm");
  write_bytes(path, std::string("P5\n4 4\n255\n") + std::string(10, 'x'));
  expect_read_error(path, ErrorCode::format, "truncated");
  write_bytes(path, "P5\n0 4\n255\n");
  expect_read_error(path, ErrorCode::format, "empty");
  write_bytes(path, "P5\n4 4\n70000\n");
  expect_read_error(path, ErrorCode::format, "maxval");
  write_bytes(path, "P5\n4");
  expect_read_error(path, ErrorCode::format, "height");
  write_bytes(path, "P2\n2 1\n10\n3 11\n");
  expect_read_error(path, ErrorCode::format, "exceeds maxval");
  write_bytes(path, "");
  expect_read_error(path, ErrorCode::format, "empty");
  write_bytes(path, "hello");
  expect_read_error(path, ErrorCode::format, "not a recognised image");
  expect_read_error(test::temp_path("missing.pgm"), ErrorCode::io, "does not exist");
}

TEST(Pnm, WritingUnknownExtensionsOrWrongTypesFails) {
  auto img = test::random_image(4, 4, 1);
  EXPECT_THROW(write_image(test::temp_path("x.bmp"), img.view()), Error);
  EXPECT_THROW(write_image(test::temp_path("x.pfm"), img.view()), Error);
  EXPECT_THROW(write_image(test::temp_path("missing-dir/x.pgm"), img.view()), Error);
}

class Codec : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!codec::available()) GTEST_SKIP() << "built without PNG/JPEG support";
  }
};

TEST_F(Codec, PngRoundTripsAllChannelCountsAndSixteenBit) {
  for (int channels : {1, 3, 4}) {
    auto img = test::random_image(23, 17, 9, channels);
    const std::string path = test::temp_path("a" + std::to_string(channels) + ".png");
    write_image(path, img.view());
    const auto& back = as<std::uint8_t>(read_image(path));
    EXPECT_EQ(back.channels(), channels);
    EXPECT_EQ(count_differences<std::uint8_t>(img.view(), back.view()), 0u);
  }
  Image<std::uint16_t> deep(9, 4);
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 9; ++x) deep(x, y) = static_cast<std::uint16_t>(x * 7000 + y);
  const std::string path = test::temp_path("deep.png");
  write_image(path, deep.view());
  EXPECT_EQ(count_differences<std::uint16_t>(deep.view(), as<std::uint16_t>(read_image(path)).view()), 0u);
}

TEST_F(Codec, JpegRoundTripIsClose) {
  auto img = test::textured_image(64, 48, 3);
  const std::string path = test::temp_path("a.jpg");
  write_image(path, img.view());
  const auto& back = as<std::uint8_t>(read_image(path));
  ASSERT_EQ(back.width(), 64);
  double err = 0;
  for (int y = 0; y < 48; ++y)
    for (int x = 0; x < 64; ++x) err += std::abs(int(back(x, y)) - int(img(x, y)));
  EXPECT_LT(err / (64 * 48), 4.0);
}

TEST_F(Codec, TruncatedPngAndJpegAreReportedNotCrashed) {
  auto img = test::textured_image(80, 60, 4);
  for (const char* name : {"t.png", "t.jpg"}) {
    const std::string path = test::temp_path(name);
    write_image(path, img.view());
    const std::string bytes = read_bytes(path);
    write_bytes(path, bytes.substr(0, bytes.size() / 2));
    expect_read_error(path, ErrorCode::format, "truncated");
  }
}

TEST_F(Codec, RealSymbolImagesDecode) {
  const auto grey = read_grey8(test::source_path("data/amoeba/symbols/amoeba_default_000.png"));
  EXPECT_EQ(grey.width(), 448);
  EXPECT_EQ(grey.height(), 448);
}

namespace gpuvis {
namespace {

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// A header claiming a huge image is refused from the header, before anything is allocated; the
// limit is settable, and a smaller claim that the data cannot hold is refused the same way.
TEST(ImageLimits, HugeHeadersAreRefusedBeforeAllocation) {
  const std::string path = test::temp_path("huge.pgm");
  std::ofstream(path, std::ios::binary) << "P5\n100000 100000\n255\n" << std::string(100, 'x');
  EXPECT_NE(message_of([&] { read_image(path); }).find("over the limit of 268435456 pixels"), std::string::npos);
  const std::string claim = test::temp_path("claim.pgm");
  std::ofstream(claim, std::ios::binary) << "P5\n16000 16000\n255\n" << std::string(100, 'x');
  EXPECT_NE(message_of([&] { read_image(claim); }).find("truncated"), std::string::npos);
  set_max_image_pixels(1000);
  const std::string small = test::temp_path("small.pgm");
  std::ofstream(small, std::ios::binary) << "P5\n40 40\n255\n" << std::string(1600, 'x');
  EXPECT_NE(message_of([&] { read_image(small); }).find("over the limit of 1000 pixels"), std::string::npos);
  set_max_image_pixels(0);
  EXPECT_EQ(std::get<Image<std::uint8_t>>(read_image(small)).width(), 40);
}

TEST(ImageLimits, DevicesAreNotReadWithoutEnd) {
  if (!std::filesystem::exists("/dev/zero")) GTEST_SKIP() << "no /dev/zero here";
  EXPECT_NE(message_of([] { read_image("/dev/zero"); }), "");
}

}  // namespace
}  // namespace gpuvis

namespace gpuvis {
namespace {

// What an error quotes of a user's value is bounded: a long quoted value keeps its two ends and
// says how long it was; apostrophes in words are left alone; UTF-8 characters are never split.
TEST(ErrorMessages, LongQuotedValuesKeepTheirEndsAndLength) {
  const std::string value = "/home/" + std::string(500, 'x') + "/frame.png";
  const std::string m = Error(ErrorCode::io, "cannot read '" + value + "': permission denied").what();
  EXPECT_EQ(m, "cannot read '/home/" + std::string(54, 'x') + "..." + std::string(20, 'x') + "/frame.png' (516 characters): permission denied");
  const std::string short_one = "bias must be between 0 and 1 (reacTIVision's gradient/100), got '2' for 'threshold'";
  EXPECT_EQ(std::string(Error(ErrorCode::io, short_one).what()), short_one);
  const std::string words = "reacTIVision's " + std::string(300, 'w') + " gpuvis's settings";
  EXPECT_EQ(std::string(Error(ErrorCode::io, words).what()), words);
  std::string accents;
  for (int i = 0; i < 200; ++i) accents += "\xc3\xa9";  // é
  const std::string a = Error(ErrorCode::io, "'" + accents + "'").what();
  EXPECT_EQ(a, "'" + accents.substr(0, 60) + "..." + accents.substr(accents.size() - 30) + "' (400 characters)");
  const std::string cut = Error(ErrorCode::io, std::string(5000, 'm')).what();
  EXPECT_EQ(cut, std::string(2000, 'm') + "... (message cut at 2000 characters)");
}

}  // namespace
}  // namespace gpuvis

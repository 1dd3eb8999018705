#include <gtest/gtest.h>

#include "gpuvis/core/image.hpp"
#include "test_support.hpp"

using namespace gpuvis;

TEST(Image, RowsAreAlignedAndIndependentOfWidth) {
  Image<std::uint8_t> img(13, 7, 3);
  EXPECT_EQ(img.stride() % 64, 0);
  EXPECT_GE(img.stride(), 13 * 3);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(img.data()) % 64, 0u);
  img.fill(9);
  img(12, 6, 2) = 200;
  EXPECT_EQ(img.row(6)[12 * 3 + 2], 200);
  EXPECT_EQ(img(0, 0, 0), 9);
}

TEST(Image, CropIsAViewWithoutCopy) {
  Image<float> img(10, 8);
  img.fill(0.0f);
  auto v = img.view().crop(2, 3, 4, 2);
  v(1, 1) = 5.0f;
  EXPECT_EQ(img(3, 4), 5.0f);
  EXPECT_EQ(v.width, 4);
  EXPECT_EQ(v.stride, img.stride());
  EXPECT_THROW(img.view().crop(8, 0, 3, 1), Error);
}

TEST(Image, ZeroOrBadSizesAreRejected) {
  EXPECT_THROW(Image<std::uint8_t>(0, 5), Error);
  EXPECT_THROW(Image<std::uint8_t>(5, 0), Error);
  EXPECT_THROW(Image<std::uint8_t>(-1, 5), Error);
  EXPECT_THROW(Image<std::uint8_t>(5, 5, 2), Error);
}

TEST(Image, CopyAndCompareIgnorePadding) {
  auto a = test::random_image(31, 9, 1);
  Image<std::uint8_t> b(31, 9);
  copy<std::uint8_t>(a.view(), b.view());
  EXPECT_EQ(count_differences<std::uint8_t>(a.view(), b.view()), 0u);
  b(30, 8) ^= 1;
  EXPECT_EQ(count_differences<std::uint8_t>(a.view(), b.view()), 1u);
}

TEST(Image, GreyConversionUsesReacTIVisionWeights) {
  Image<std::uint8_t> rgb(2, 1, 3);
  const std::uint8_t px[] = {255, 0, 0, 10, 200, 30};
  std::copy(px, px + 6, rgb.data());
  auto g = to_grey(rgb.view());
  EXPECT_EQ(g(0, 0), (77 * 255) >> 8);
  EXPECT_EQ(g(1, 0), (77 * 10 + 151 * 200 + 28 * 30) >> 8);
}

// Mean shift filtering on the CPU: equal to the literal reference, the colour conversion against
// known values, flat and two-level images, noise smoothed within regions, thread independence.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <set>

#include "gpuvis/core/error.hpp"
#include "gpuvis/core/parallel.hpp"
#include "gpuvis/filters/convolve.hpp"
#include "gpuvis/filters/kernel.hpp"
#include "gpuvis/filters/mean_shift.hpp"
#include "gpuvis/filters/mean_shift_segment.hpp"
#include "mean_shift_compare.hpp"
#include "gpuvis/io/image_file.hpp"
#include "gpuvis/io/volume_file.hpp"
#include "filters/cpu/mean_shift_lanes.hpp"
#include "filters/filter_backends.hpp"
#include "filters/mean_shift_common.hpp"
#include "mean_shift_reference.hpp"
#include "test_support.hpp"

namespace gpuvis::filters {
namespace {

// Two regions (left dark, right bright) with a bright disc, plus Gaussian noise.
Image<std::uint8_t> regions(int w, int h, int channels, float noise, std::uint32_t seed) {
  Image<std::uint8_t> img(w, h, channels);
  std::mt19937 rng(seed);
  std::normal_distribution<float> n(0.0f, noise);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < channels; ++c) {
        const float fc = static_cast<float>(c);
        float v = x < w / 2 ? 60.0f + 20.0f * fc : 190.0f - 30.0f * fc;
        if ((x - w / 4) * (x - w / 4) + (y - h / 2) * (y - h / 2) < (h / 5) * (h / 5)) v = 230.0f;
        img(x, y, c) = static_cast<std::uint8_t>(std::clamp(std::lround(v + n(rng)), 0L, 255L));
      }
  return img;
}

int max_difference(const Image<std::uint8_t>& a, const Image<std::uint8_t>& b) {
  int worst = 0;
  for (int y = 0; y < a.height(); ++y)
    for (int i = 0; i < a.width() * a.channels(); ++i) worst = std::max(worst, std::abs(a.row(y)[i] - b.row(y)[i]));
  return worst;
}

TEST(MeanShiftColour, LuvOfKnownColoursAndRoundTrip) {
  const std::uint8_t white[3] = {255, 255, 255}, black[3] = {0, 0, 0};
  float luv[3];
  rgb_to_luv(white, luv);
  EXPECT_NEAR(luv[0], 100.0f, 0.1f);  // D65 white: L* = 100, u* = v* = 0
  EXPECT_NEAR(luv[1], 0.0f, 0.5f);
  EXPECT_NEAR(luv[2], 0.0f, 0.5f);
  rgb_to_luv(black, luv);
  EXPECT_EQ(luv[0], 0.0f);
  std::mt19937 rng(3);
  for (int i = 0; i < 2000; ++i) {
    const std::uint8_t rgb[3] = {static_cast<std::uint8_t>(rng()), static_cast<std::uint8_t>(rng()), static_cast<std::uint8_t>(rng())};
    std::uint8_t back[3];
    rgb_to_luv(rgb, luv);
    luv_to_rgb(luv, back);
    for (int c = 0; c < 3; ++c) EXPECT_LE(std::abs(back[c] - rgb[c]), 1) << int(rgb[0]) << "," << int(rgb[1]) << "," << int(rgb[2]);
  }
}

TEST(MeanShiftCpu, EqualsTheLiteralReference) {
  for (int channels : {1, 3})
    for (auto kernel : {MeanShiftKernel::epanechnikov, MeanShiftKernel::gaussian})
      for (auto colour : {MeanShiftColour::luv, MeanShiftColour::rgb}) {
        if (channels == 1 && colour == MeanShiftColour::rgb) continue;
        const auto img = regions(24, 18, channels, 12.0f, 5);
        MeanShiftParams p;
        p.spatial = 3.5f;
        p.range = channels == 3 && colour == MeanShiftColour::luv ? 12.0f : 24.0f;
        p.kernel = kernel;
        p.colour = colour;
        p.backend = Backend::cpu;
        Image<std::uint8_t> out(img.width(), img.height(), channels);
        mean_shift_filter_cpu<std::uint8_t>(img.view(), out.view(), {}, p);
        const auto ref = test::mean_shift_reference<std::uint8_t>(img.view(), p);
        // Modes agree within eps * h_r (well under one grey level); the 8-bit results may differ by
        // one where a mode lies on a rounding boundary.
        EXPECT_LE(max_difference(out, ref), 1) << channels << " channels, kernel " << int(kernel) << ", colour " << int(colour);
      }
}

// A volume phantom: a bright ball in a dark box, `depth` slices of w x h stacked in one image, with
// Gaussian noise; `truth` (when given) gets the noise-free voxels.
Image<std::uint8_t> phantom(int w, int h, int depth, int channels, float noise, std::uint32_t seed,
                            Image<std::uint8_t>* truth = nullptr) {
  Image<std::uint8_t> img(w, h * depth, channels);
  if (truth) *truth = Image<std::uint8_t>(w, h * depth, channels);
  std::mt19937 rng(seed);
  std::normal_distribution<float> n(0.0f, noise);
  const float r = 0.3f * static_cast<float>(std::min({w, h, depth}));
  for (int z = 0; z < depth; ++z)
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const float dx = static_cast<float>(2 * x - w) / 2, dy = static_cast<float>(2 * y - h) / 2, dz = static_cast<float>(2 * z - depth) / 2;
        const bool inside = dx * dx + dy * dy + dz * dz < r * r;
        for (int c = 0; c < channels; ++c) {
          const float v = inside ? 200.0f - 20.0f * static_cast<float>(c) : 60.0f + 25.0f * static_cast<float>(c);
          img(x, z * h + y, c) = static_cast<std::uint8_t>(std::clamp(std::lround(v + n(rng)), 0L, 255L));
          if (truth) (*truth)(x, z * h + y, c) = static_cast<std::uint8_t>(v);
        }
      }
  return img;
}

TEST(MeanShiftVolume, CpuEqualsTheLiteralReference) {
  for (int channels : {1, 3})
    for (auto kernel : {MeanShiftKernel::epanechnikov, MeanShiftKernel::gaussian}) {
      const int w = 9, h = 8, depth = 6;
      const auto vol = phantom(w, h, depth, channels, 14.0f, 3);
      MeanShiftParams p;
      p.spatial = 2.5f;
      p.axial = 1.5f;  // anisotropic: fewer slices than pixels in the window
      p.range = channels == 3 ? 12.0f : 24.0f;
      p.kernel = kernel;
      p.backend = Backend::cpu;
      Image<std::uint8_t> out(w, h * depth, channels);
      mean_shift_filter_volume<std::uint8_t>(vol.view(), out.view(), VolumeShape{depth}, p);
      const auto ref = test::mean_shift_reference<std::uint8_t>(vol.view(), p, VolumeShape{depth});
      EXPECT_LE(max_difference(out, ref), 1) << channels << " channels, kernel " << int(kernel);
    }
}

TEST(MeanShiftVolume, OneSliceIsTheImageFilterAndSlicesAreSeparateWithoutDepth) {
  const auto img = regions(30, 20, 3, 10.0f, 4);
  MeanShiftParams p;
  p.spatial = 4;
  p.range = 12;
  p.backend = Backend::cpu;
  Image<std::uint8_t> a(30, 20, 3), b(30, 20, 3);
  mean_shift_filter(img.view(), a.view(), p);
  mean_shift_filter_volume<std::uint8_t>(img.view(), b.view(), VolumeShape{1}, p);
  EXPECT_EQ(count_differences<std::uint8_t>(a.view(), b.view()), 0u);
  // An axial bandwidth below one slice keeps every slice to itself: the volume filter is then
  // the image filter slice by slice.
  const auto vol = phantom(16, 12, 5, 1, 10.0f, 8);
  p.axial = 0.5f;
  Image<std::uint8_t> whole(16, 60), per_slice(16, 60);
  mean_shift_filter_volume<std::uint8_t>(vol.view(), whole.view(), VolumeShape{5}, p);
  for (int z = 0; z < 5; ++z)
    mean_shift_filter(vol.view().crop(0, z * 12, 16, 12), per_slice.view().crop(0, z * 12, 16, 12), p);
  EXPECT_EQ(count_differences<std::uint8_t>(whole.view(), per_slice.view()), 0u);
}

TEST(MeanShiftVolume, PhantomNoiseIsRemovedWithTheNeighbouringSlices) {
  // The 3D window averages across slices too: the error against the noise-free phantom falls
  // further than filtering each slice on its own, and the ball's surface stays where it is.
  Image<std::uint8_t> truth;
  const int w = 24, h = 24, depth = 12;
  const auto vol = phantom(w, h, depth, 1, 12.0f, 21, &truth);
  MeanShiftParams p;
  p.spatial = 3;
  p.range = 40;
  p.backend = Backend::cpu;
  Image<std::uint8_t> three_d(w, h * depth), two_d(w, h * depth);
  mean_shift_filter_volume<std::uint8_t>(vol.view(), three_d.view(), VolumeShape{depth}, p);
  p.axial = 0.5f;
  mean_shift_filter_volume<std::uint8_t>(vol.view(), two_d.view(), VolumeShape{depth}, p);
  auto rms = [&](const Image<std::uint8_t>& a) {
    double s = 0;
    for (int y = 0; y < a.height(); ++y)
      for (int x = 0; x < w; ++x) s += (a(x, y) - truth(x, y)) * (a(x, y) - truth(x, y));
    return std::sqrt(s / (w * a.height()));
  };
  const double noisy = rms(vol), slices = rms(two_d), volume = rms(three_d);
  std::cout << "phantom rms error: noisy " << noisy << ", slice by slice " << slices << ", 3D " << volume << "\n";
  EXPECT_LT(volume, noisy / 3);
  EXPECT_LT(volume, slices);
  int misplaced = 0;  // voxels that ended on the wrong side of the ball's surface
  for (int y = 0; y < truth.height(); ++y)
    for (int x = 0; x < w; ++x) misplaced += (three_d(x, y) > 130) != (truth(x, y) > 130);
  EXPECT_LE(misplaced, w * h * depth / 200);
}

TEST(MeanShiftVolume, BadVolumesAreRefused) {
  Image<std::uint8_t> img(8, 10), out(8, 10);
  MeanShiftParams p;
  p.backend = Backend::cpu;
  EXPECT_THROW(mean_shift_filter_volume<std::uint8_t>(img.view(), out.view(), VolumeShape{3}, p), Error);  // 10 rows are not 3 slices
  EXPECT_THROW(mean_shift_filter_volume<std::uint8_t>(img.view(), out.view(), VolumeShape{0}, p), Error);
  p.axial = -1;
  EXPECT_THROW(mean_shift_filter_volume<std::uint8_t>(img.view(), out.view(), VolumeShape{2}, p), Error);
}

TEST(MeanShiftCpu, FlatAndWellSeparatedImagesAreLeftAsTheyAre) {
  for (int channels : {1, 3}) {
    const auto img = regions(40, 30, channels, 0.0f, 1);
    MeanShiftParams p;
    p.spatial = 5;
    p.range = 10;  // the regions' levels are far more than h_r apart
    p.backend = Backend::cpu;
    Image<std::uint8_t> out(40, 30, channels);
    mean_shift_filter_cpu<std::uint8_t>(img.view(), out.view(), {}, p);
    EXPECT_LE(max_difference(out, img), 1);
  }
}

TEST(MeanShiftCpu, SmoothsNoiseWithinRegionsAndKeepsTheEdges) {
  const auto img = regions(64, 48, 1, 6.0f, 9);
  MeanShiftParams p;
  p.spatial = 5;
  p.range = 24;
  p.backend = Backend::cpu;
  Image<std::uint8_t> out(64, 48, 1);
  mean_shift_filter_cpu<std::uint8_t>(img.view(), out.view(), {}, p);
  auto spread = [](const Image<std::uint8_t>& im, int x0, int x1) {
    double s = 0, s2 = 0;
    int n = 0;
    for (int y = 0; y < 48; ++y)
      for (int x = x0; x < x1; ++x) {
        if ((x - 16) * (x - 16) + (y - 24) * (y - 24) < 14 * 14) continue;  // outside the disc
        s += im(x, y);
        s2 += im(x, y) * im(x, y);
        ++n;
      }
    return std::sqrt(s2 / n - (s / n) * (s / n));
  };
  EXPECT_LT(spread(out, 0, 28), spread(img, 0, 28) / 3);  // the dark region's noise is mostly gone
  EXPECT_LT(spread(out, 36, 64), spread(img, 36, 64) / 3);
  // The edge between the regions stays sharp: neighbours across it keep the levels' difference.
  for (int y = 0; y < 48; y += 6) EXPECT_GT(out(33, y) - out(30, y), 100) << y;
}

TEST(MeanShiftCpu, ResultDoesNotDependOnThreadCount) {
  const auto img = regions(50, 40, 3, 10.0f, 2);
  MeanShiftParams p;
  p.spatial = 4;
  p.range = 8;
  p.backend = Backend::cpu;
  Image<std::uint8_t> a(50, 40, 3), b(50, 40, 3);
  set_num_threads(1);
  mean_shift_filter_cpu<std::uint8_t>(img.view(), a.view(), {}, p);
  set_num_threads(0);
  mean_shift_filter_cpu<std::uint8_t>(img.view(), b.view(), {}, p);
  EXPECT_EQ(max_difference(a, b), 0);
}

// Climbs in vector lanes (filters/cpu/mean_shift_lanes.hpp) take other climbs' places as they end,
// yet each must give the mode its climb alone gives: the samples of every kind of call the GPU
// backends are compared on, and the modes themselves, bit for bit.
TEST(MeanShiftCpu, VectorLanesEqualOneClimbAtATime) {
  if (std::string(cpu_lanes::target()).empty()) GTEST_SKIP() << "this build or CPU has no vector unit for the climbs";
  mean_shift_detail::Tuning one_at_a_time;
  one_at_a_time.lanes = false;
  const auto alone = [&](auto src, auto dst, VolumeShape shape, const MeanShiftParams& p) {
    using T = std::remove_const_t<typename decltype(src)::value_type>;
    mean_shift_filter_cpu<T>(src, dst, shape, p, nullptr, one_at_a_time);
  };
  test::expect_images_like_the_cpu(alone);
  test::expect_volumes_types_and_sequences_like_the_cpu(alone);
  for (int max_iter : {1, 3, 100}) {
    const auto img = regions(61, 47, 3, 14.0f, 9);
    MeanShiftParams p;
    p.spatial = 6;
    p.range = 10;
    p.max_iter = max_iter;
    Image<std::uint8_t> a(61, 47, 3), b(61, 47, 3);
    std::vector<float> in_lanes, single;
    mean_shift_filter_cpu<std::uint8_t>(img.view(), a.view(), {}, p, &in_lanes);
    mean_shift_filter_cpu<std::uint8_t>(img.view(), b.view(), {}, p, &single, one_at_a_time);
    ASSERT_EQ(in_lanes.size(), single.size());
    EXPECT_EQ(std::memcmp(in_lanes.data(), single.data(), single.size() * sizeof(float)), 0) << "max_iter " << max_iter;
  }
}

TEST(MeanShiftCpu, RefusesBadParameters) {
  const auto img = regions(8, 8, 1, 0, 1);
  Image<std::uint8_t> out(8, 8, 1);
  for (auto change : {+[](MeanShiftParams& p) { p.spatial = 0; }, +[](MeanShiftParams& p) { p.range = -1; },
                      +[](MeanShiftParams& p) { p.eps = 0; }, +[](MeanShiftParams& p) { p.max_iter = 0; }}) {
    MeanShiftParams p;
    change(p);
    EXPECT_THROW(mean_shift_filter_cpu<std::uint8_t>(img.view(), out.view(), {}, p), Error);
  }
  Image<std::uint8_t> other(8, 6, 1);  // another shape
  EXPECT_THROW(mean_shift_filter_cpu<std::uint8_t>(img.view(), other.view(), {}, MeanShiftParams{}), Error);
  MeanShiftParams p;
  p.channel_range[1] = -2;
  EXPECT_THROW(mean_shift_filter_cpu<std::uint8_t>(img.view(), out.view(), {}, p), Error);
}

TEST(MeanShiftCli, FiltersAFileAsTheLibraryDoes) {
  const auto img = regions(40, 30, 3, 8.0f, 4);
  const std::string in = test::temp_path("ms_in.ppm"), out = test::temp_path("ms_out.ppm");
  write_image(in, img.view());
  const auto r = test::run_cli("filter meanshift " + in + " " + out + " --spatial 4 --range 10 --backend cpu");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto got = std::get<Image<std::uint8_t>>(read_image(out));
  MeanShiftParams p;
  p.spatial = 4;
  p.range = 10;
  p.backend = Backend::cpu;
  Image<std::uint8_t> expect(40, 30, 3);
  mean_shift_filter_cpu<std::uint8_t>(img.view(), expect.view(), {}, p);
  EXPECT_EQ(max_difference(got, expect), 0);
  // Both spellings of the colour space (the Python argument is colour=).
  const std::string out_rgb = test::temp_path("ms_out_rgb.ppm");
  const auto rgb = test::run_cli("filter meanshift " + in + " " + out_rgb + " --spatial 4 --range 10 --colour rgb --backend cpu");
  ASSERT_EQ(rgb.exit_code, 0) << rgb.output;
  p.colour = MeanShiftColour::rgb;
  mean_shift_filter_cpu<std::uint8_t>(img.view(), expect.view(), {}, p);
  EXPECT_EQ(max_difference(std::get<Image<std::uint8_t>>(read_image(out_rgb)), expect), 0);
  EXPECT_GT(max_difference(got, expect), 0) << "the frames no longer tell the two spaces apart";
  const auto bad = test::run_cli("filter meanshift " + in + " " + test::temp_path("never.ppm") + " --spatial 0");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.output.find("--spatial"), std::string::npos) << bad.output;
}

TEST(MeanShiftCli, FiltersAFolderOfSlicesAsOneVolume) {
  namespace fs = std::filesystem;
  const std::string in = test::temp_path("ms_slices"), out = test::temp_path("ms_slices_out");
  fs::remove_all(in);
  fs::remove_all(out);
  fs::create_directories(in);
  const auto vol = phantom(20, 16, 4, 1, 10.0f, 6);
  for (int z = 0; z < 4; ++z) write_image(in + "/slice_" + std::to_string(z) + ".pgm", HostView<const std::uint8_t>(vol.view().crop(0, z * 16, 20, 16)));
  auto r = test::run_cli("filter meanshift " + in + " " + out + " --volume --spatial 3 --axial 2 --range 30 --backend cpu");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  MeanShiftParams p;
  p.spatial = 3;
  p.axial = 2;
  p.range = 30;
  p.backend = Backend::cpu;
  Image<std::uint8_t> expect(20, 64);
  mean_shift_filter_volume<std::uint8_t>(vol.view(), expect.view(), VolumeShape{4}, p);
  for (int z = 0; z < 4; ++z) {
    const auto got = read_grey8(out + "/slice_" + std::to_string(z) + ".pgm");
    Image<std::uint8_t> want(20, 16);
    copy<std::uint8_t>(HostView<const std::uint8_t>(expect.view().crop(0, z * 16, 20, 16)), want.view());
    EXPECT_EQ(max_difference(got, want), 0) << "slice " << z;
  }
  // A slice of another size: one error line naming it, nothing written.
  Image<std::uint8_t> odd(21, 16);
  odd.fill(9);
  write_image(in + "/slice_9.pgm", odd.view());
  const std::string out2 = test::temp_path("ms_slices_out2");
  fs::remove_all(out2);
  r = test::run_cli("filter meanshift " + in + " " + out2 + " --volume --backend cpu");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("slice_9.pgm is 21x16x1"), std::string::npos) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  EXPECT_TRUE(!fs::exists(out2) || fs::is_empty(out2));
  r = test::run_cli("filter meanshift " + in + "/slice_0.pgm " + out2 + "/x.pgm --volume --backend cpu");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("folder of slices"), std::string::npos) << r.output;
}

}  // namespace

namespace {

// Four quadrants of distinct grey levels with Gaussian noise, and an optional small spot.
Image<std::uint8_t> quadrants(int w, int h, double noise, bool spot, std::uint32_t seed) {
  Image<std::uint8_t> img(w, h);
  std::mt19937 rng(seed);
  std::normal_distribution<double> n(0, noise);
  const int level[4] = {40, 100, 160, 220};
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      int v = level[(y >= h / 2) * 2 + (x >= w / 2)];
      if (spot && x >= 10 && x < 13 && y >= 10 && y < 13) v = 250;
      img(x, y) = static_cast<std::uint8_t>(std::clamp(v + n(rng), 0.0, 255.0));
    }
  return img;
}

filters::MeanShiftSegmentParams segment_params(int min_size) {
  filters::MeanShiftSegmentParams p;
  p.filter.spatial = 5;
  p.filter.range = 24;
  p.filter.backend = Backend::cpu;
  p.min_size = min_size;
  return p;
}

}  // namespace

// The regions of a noisy piecewise-constant image are its pieces: labels 0..3 in raster order of
// their first pixel, sizes, means and boxes of the quadrants.
TEST(MeanShiftSegment, FindsThePiecesOfANoisyPiecewiseConstantImage) {
  const int w = 64, h = 48;
  const auto img = quadrants(w, h, 5, false, 1);
  const auto seg = filters::mean_shift_segment<std::uint8_t>(img.view(), segment_params(20));
  ASSERT_EQ(seg.regions.size(), 4u);
  const int level[4] = {40, 100, 160, 220};
  for (int q = 0; q < 4; ++q) {
    const auto& r = seg.regions[q];
    EXPECT_EQ(r.label, q);
    EXPECT_EQ(r.size, w * h / 4);
    EXPECT_NEAR(r.mean[0], level[q], 3.0);
    EXPECT_EQ(r.lo[0], (q % 2) * w / 2);
    EXPECT_EQ(r.lo[1], (q / 2) * h / 2);
    EXPECT_EQ(r.hi[0], (q % 2) * w / 2 + w / 2 - 1);
    EXPECT_EQ(r.hi[1], (q / 2) * h / 2 + h / 2 - 1);
    EXPECT_NEAR(r.centroid[0], r.lo[0] + (w / 2 - 1) / 2.0, 1e-9);
  }
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) ASSERT_EQ(seg.labels(x, y), (y >= h / 2) * 2 + (x >= w / 2)) << x << "," << y;
}

// A 3x3 spot far from its surroundings is a region of its own, unless min_size merges it into its
// most similar neighbour (the quadrant around it).
TEST(MeanShiftSegment, SmallRegionsMergeIntoTheirMostSimilarNeighbour) {
  const auto img = quadrants(64, 48, 2, true, 2);
  auto p = segment_params(0);
  p.filter.spatial = 2;  // a window small enough for the spot to keep its own mode
  const auto kept = filters::mean_shift_segment<std::uint8_t>(img.view(), p);
  EXPECT_EQ(kept.regions.size(), 5u);
  EXPECT_NE(kept.labels(11, 11), kept.labels(5, 5));
  p.min_size = 20;
  const auto merged = filters::mean_shift_segment<std::uint8_t>(img.view(), p);
  EXPECT_EQ(merged.regions.size(), 4u);
  EXPECT_EQ(merged.labels(11, 11), merged.labels(5, 5));
  for (const auto& r : merged.regions) EXPECT_GE(r.size, 20);
}

TEST(MeanShiftSegment, ColourHalvesAndThreadIndependence) {
  Image<std::uint8_t> img(40, 30, 3);
  std::mt19937 rng(3);
  std::normal_distribution<double> n(0, 4);
  for (int y = 0; y < 30; ++y)
    for (int x = 0; x < 40; ++x)
      for (int c = 0; c < 3; ++c) {
        const int v = x < 20 ? (c == 0 ? 200 : 40) : (c == 2 ? 200 : 60);
        img(x, y, c) = static_cast<std::uint8_t>(std::clamp(v + n(rng), 0.0, 255.0));
      }
  const auto p = segment_params(20);
  set_num_threads(1);
  const auto one = filters::mean_shift_segment<std::uint8_t>(img.view(), p);
  set_num_threads(0);
  const auto all = filters::mean_shift_segment<std::uint8_t>(img.view(), p);
  ASSERT_EQ(one.regions.size(), 2u);
  EXPECT_EQ(count_differences<std::int32_t>(one.labels.view(), all.labels.view()), 0u);
  EXPECT_NEAR(one.regions[0].mean[0], 200, 4);
  EXPECT_NEAR(one.regions[1].mean[2], 200, 4);
}

// A 160 x 120 RGB scene: colour `left` where x < split, else `right`, plus shade(x, y) levels, under
// Gaussian noise of 18 levels.
template <class Shade>
Image<std::uint8_t> two_colour_scene(std::uint32_t seed, const double (&left)[3], const double (&right)[3], int split, Shade shade) {
  Image<std::uint8_t> img(160, 120, 3);
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0, 18);
  for (int y = 0; y < 120; ++y)
    for (int x = 0; x < 160; ++x)
      for (int c = 0; c < 3; ++c) {
        const double v = (x < split ? left[c] : right[c]) + shade(x, y);
        img(x, y, c) = static_cast<std::uint8_t>(std::clamp(v + noise(rng), 0.0, 255.0));
      }
  return img;
}

// A dark shaded region (a ramp of 0.12 grey levels a pixel) beside a flat one, under noise above
// h_r: the climbs in the dark region end at many modes (L*u*v* magnifies dark noise), and each
// piece's mean mode leans to the side its pixels' noise led them to, so fusing by modes leaves the
// region in 10-17 pieces of 100 pixels and more. Coloured by their pixels' local means, the
// pieces are one region again; the flat region beside it, about 45 L*u*v* units away, stays apart.
TEST(MeanShiftSegment, ANoisyShadedRegionIsOneRegion) {
  for (std::uint32_t seed : {0u, 1u, 2u, 3u}) {
    SCOPED_TRACE(seed);
    const double shaded[3] = {86, 43, 65}, flat[3] = {70, 120, 60};
    const auto img = two_colour_scene(seed, shaded, flat, 100, [](int x, int) { return x < 100 ? 0.12 * (x - 50) : 0.0; });
    filters::MeanShiftSegmentParams p;
    p.filter.spatial = 8;
    p.filter.range = 16;
    p.filter.backend = Backend::cpu;
    p.min_size = 100;
    const auto seg = filters::mean_shift_segment<std::uint8_t>(img.view(), p);
    EXPECT_EQ(seg.regions.size(), 2u);
    std::set<int> left, right;
    for (int y = 0; y < 120; ++y)
      for (int x = 0; x < 160; ++x) (x < 95 ? left : right).insert(x < 95 || x >= 105 ? seg.labels(x, y) : -1);
    right.erase(-1);
    EXPECT_EQ(left.size(), 1u) << "the shaded region is in pieces";
    EXPECT_EQ(right.size(), 1u);
    EXPECT_NE(*left.begin(), *right.begin()) << "the two regions were fused";
  }
}

// Two adjacent regions about 25 L*u*v* units apart (RGB (60, 74, 162) and (59, 107, 165), the
// colours a held-out scene merged), shaded, under noise of 18 levels: in L*u*v* the noise of such
// dark saturated colours spreads wider than h_r = 16 and the climbs of the two regions meet, so
// unsmoothed they come out as one region in most such images. Smoothed by a Gaussian of 0.7 px
// first they are two. The smoothing is a CPU convolution, so the result is that of segmenting
// the convolved image.
TEST(MeanShiftSegment, SmoothingFirstKeepsNoisyDarkColoursApart) {
  for (std::uint32_t seed : {0u, 1u, 2u, 3u}) {
    SCOPED_TRACE(seed);
    const double left[3] = {60, 74, 162}, right[3] = {59, 107, 165};
    const auto img = two_colour_scene(seed, left, right, 80, [](int, int y) { return 0.1 * (y - 60); });
    filters::MeanShiftSegmentParams p;
    p.filter.spatial = 8;
    p.filter.range = 16;
    p.filter.backend = Backend::cpu;
    p.min_size = 100;
    p.smooth = 0.7f;
    const auto seg = filters::mean_shift_segment<std::uint8_t>(img.view(), p);
    ASSERT_EQ(seg.regions.size(), 2u);
    std::set<int> l, r;
    for (int y = 0; y < 120; ++y)
      for (int x = 0; x < 160; ++x) {
        if (x < 75) l.insert(seg.labels(x, y));
        if (x >= 85) r.insert(seg.labels(x, y));
      }
    EXPECT_EQ(l.size(), 1u);
    EXPECT_EQ(r.size(), 1u);
    EXPECT_NE(*l.begin(), *r.begin()) << "the two regions were fused";

    Image<std::uint8_t> convolved(160, 120, 3);
    filters::ConvolveParams c;
    c.backend = Backend::cpu;
    filters::convolve<std::uint8_t>(img.view(), convolved.view(), filters::parse_kernel("gaussian:sigma=0.699999988079071"), c);
    p.smooth = 0;
    const auto by_hand = filters::mean_shift_segment<std::uint8_t>(convolved.view(), p);
    EXPECT_EQ(count_differences<std::int32_t>(seg.labels.view(), by_hand.labels.view()), 0u) << "smooth is not the CPU's Gaussian";
    EXPECT_EQ(count_differences<std::uint8_t>(seg.filtered.view(), by_hand.filtered.view()), 0u);
  }
}

TEST(MeanShiftSegment, SmoothingIsForImagesAndTakesASigma) {
  Image<std::uint8_t> vol(16, 16 * 4, 1);
  filters::MeanShiftSegmentParams p;
  p.filter.backend = Backend::cpu;
  p.smooth = 1;
  EXPECT_THROW(filters::mean_shift_segment<std::uint8_t>(vol.view(), p, VolumeShape{4}), Error);
  p.smooth = -1;
  EXPECT_THROW(filters::validate(p), Error);
  p.smooth = std::nanf("");
  EXPECT_THROW(filters::validate(p), Error);
}

TEST(MeanShiftSegment, CliWritesLabelsFilteredImageAndRegionTable) {
  const std::string dir = test::temp_path("segment");
  std::filesystem::create_directories(dir);
  const std::string in = test::temp_path("quadrants.pgm");
  write_image(in, quadrants(64, 48, 5, false, 4).view());
  const std::string labels = dir + "/labels.pgm", table = dir + "/regions.json", overlay = dir + "/overlay.pgm";
  auto r = test::run_cli("segment meanshift '" + in + "' '" + labels + "' --spatial 5 --range 24 --regions '" + table + "' --boundaries '" +
                         overlay + "' --backend cpu");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("4 regions"), std::string::npos) << r.output;
  const auto got = std::get<Image<std::uint16_t>>(read_image(labels));
  EXPECT_EQ(got(0, 0), 0);
  EXPECT_EQ(got(63, 47), 3);
  std::ifstream t(table);
  const std::string json((std::istreambuf_iterator<char>(t)), std::istreambuf_iterator<char>());
  EXPECT_NE(json.find("\"label\": 3"), std::string::npos) << json.substr(0, 400);
  EXPECT_TRUE(std::filesystem::exists(overlay));
  r = test::run_cli("segment meanshift '" + in + "' '" + labels + "' --spatial 5 --range 24 --backend cpu");
  EXPECT_NE(r.exit_code, 0);  // the output exists: --overwrite needed
  EXPECT_NE(r.output.find("--overwrite"), std::string::npos) << r.output;
  r = test::run_cli("segment meanshift '" + in + "' '" + labels + "' --min-region -1 --overwrite");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("min_size"), std::string::npos) << r.output;
  r = test::run_cli("segment meanshift '" + in + "' '" + dir + "/labels.jpg' --backend cpu");
  EXPECT_NE(r.exit_code, 0);  // labels need 16 bits
  EXPECT_NE(r.output.find(".png or .pgm"), std::string::npos) << r.output;
}

// ---- 16-bit and float samples, 1 to 4 channels, per-channel bandwidths, sequences ----------------

template <class T>
double worst(const Image<T>& a, const Image<T>& b) {
  double d = 0;
  for (int y = 0; y < a.height(); ++y)
    for (int i = 0; i < a.width() * a.channels(); ++i) d = std::max(d, std::abs(static_cast<double>(a.row(y)[i]) - b.row(y)[i]));
  return d;
}

// Modes within eps x h_r of the literal reference, in sample units (plus one level of rounding).
TEST(MeanShiftTypes, SixteenBitFloatAndFourChannelsEqualTheReference) {
  const auto base = regions(14, 11, 3, 12.0f, 9);
  MeanShiftParams p;
  p.spatial = 3;
  p.backend = Backend::cpu;
  p.colour = MeanShiftColour::rgb;
  {  // 16-bit grey, h_r in 16-bit units
    const auto grey = regions(14, 11, 1, 12.0f, 9);
    const auto img = test::scaled_samples<std::uint16_t>(grey, 257.0f);
    p.range = 24.3f * 257.0f;  // not a whole number of levels: no voxel lies exactly on the window's edge
    Image<std::uint16_t> out(14, 11);
    mean_shift_filter<std::uint16_t>(img.view(), out.view(), p);
    EXPECT_LE(worst(out, test::mean_shift_reference<std::uint16_t>(img.view(), p)), p.eps * p.range + 1);
  }
  {  // float RGB in [0, 1], raw values, one bandwidth per channel
    const auto img = test::scaled_samples<float>(base, 1.0f / 255.0f);
    p.range = 0.1f;
    p.channel_range = {0.08f, 0.12f, 0.1f, 0};
    Image<float> out(14, 11, 3);
    mean_shift_filter<float>(img.view(), out.view(), p);
    EXPECT_LE(worst(out, test::mean_shift_reference<float>(img.view(), p)), p.eps * 0.12f);
    p.channel_range = {0, 0, 0, 0};
  }
  {  // float RGB in L*u*v*: white at 1.0
    const auto img = test::scaled_samples<float>(base, 1.0f / 255.0f);
    p.colour = MeanShiftColour::luv;
    p.range = 10;
    Image<float> out(14, 11, 3), out8(14, 11, 3);
    mean_shift_filter<float>(img.view(), out.view(), p);
    EXPECT_LE(worst(out, test::mean_shift_reference<float>(img.view(), p)), 0.01);
    p.colour = MeanShiftColour::rgb;
  }
  {  // 8-bit RGBA and two channels
    Image<std::uint8_t> four(14, 11, 4);
    for (int y = 0; y < 11; ++y)
      for (int x = 0; x < 14; ++x) {
        for (int c = 0; c < 3; ++c) four(x, y, c) = base(x, y, c);
        four(x, y, 3) = static_cast<std::uint8_t>(x < 7 ? 40 : 200);
      }
    p.range = 20;
    Image<std::uint8_t> out(14, 11, 4);
    mean_shift_filter<std::uint8_t>(four.view(), out.view(), p);
    EXPECT_LE(worst(out, test::mean_shift_reference<std::uint8_t>(four.view(), p)), 1);
  }
}

// A sequence of volumes: time is a fourth axis with its own bandwidth.
TEST(MeanShiftVolume, SequenceEqualsTheLiteralReferenceAndFramesAreSeparateWithoutTime) {
  const int w = 7, h = 6, depth = 3, frames = 3;
  const auto seq = phantom(w, h, depth * frames, 1, 14.0f, 12);
  MeanShiftParams p;
  p.spatial = 2;
  p.axial = 1.5f;
  p.time = 1.2f;
  p.range = 30;
  p.backend = Backend::cpu;
  Image<std::uint8_t> out(w, h * depth * frames);
  mean_shift_filter_volume<std::uint8_t>(seq.view(), out.view(), VolumeShape{depth, frames}, p);
  EXPECT_LE(max_difference(out, test::mean_shift_reference<std::uint8_t>(seq.view(), p, VolumeShape{depth, frames})), 1);
  // With h_t below one frame, every frame is filtered as its own volume.
  p.time = 0.5f;
  Image<std::uint8_t> whole(w, h * depth * frames), each(w, h * depth * frames);
  mean_shift_filter_volume<std::uint8_t>(seq.view(), whole.view(), VolumeShape{depth, frames}, p);
  for (int t = 0; t < frames; ++t)
    mean_shift_filter_volume<std::uint8_t>(seq.view().crop(0, t * h * depth, w, h * depth), each.view().crop(0, t * h * depth, w, h * depth),
                                           VolumeShape{depth}, p);
  EXPECT_EQ(count_differences<std::uint8_t>(whole.view(), each.view()), 0u);
}

// The results do not depend on progress being asked for, and progress ends at 1.
TEST(MeanShiftCpu, ProgressChangesNoBit) {
  const auto vol = phantom(23, 17, 5, 3, 16.0f, 4);
  MeanShiftParams p;
  p.spatial = 3;
  p.range = 10;
  Image<std::uint8_t> a(23, 85, 3), b(23, 85, 3);
  mean_shift_filter_cpu<std::uint8_t>(vol.view(), a.view(), VolumeShape{5}, p);
  std::vector<double> seen;
  p.progress = [&](double f) { seen.push_back(f); };
  mean_shift_filter_cpu<std::uint8_t>(vol.view(), b.view(), VolumeShape{5}, p);
  EXPECT_EQ(count_differences<std::uint8_t>(a.view(), b.view()), 0u);
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.back(), 1.0);
}

// A noisy ball in a volume is two regions, the ball's voxels 26-connected; colour and 16-bit alike.
TEST(MeanShiftSegment, VolumeBallIsTwoRegions) {
  Image<std::uint8_t> truth;
  const int w = 20, h = 20, depth = 12;
  const auto vol = phantom(w, h, depth, 1, 10.0f, 5, &truth);
  MeanShiftSegmentParams p;
  p.filter.spatial = 3;
  p.filter.range = 40;
  p.filter.backend = Backend::cpu;
  const auto seg = mean_shift_segment<std::uint8_t>(vol.view(), p, VolumeShape{depth});
  ASSERT_EQ(seg.regions.size(), 2u);
  int wrong = 0;
  for (int y = 0; y < h * depth; ++y)
    for (int x = 0; x < w; ++x) wrong += (seg.labels(x, y) == seg.labels(w / 2, depth / 2 * h + h / 2)) != (truth(x, y) > 130);
  EXPECT_LE(wrong, w * h * depth / 100);
  const auto& ball = seg.regions[seg.labels(w / 2, depth / 2 * h + h / 2)];
  EXPECT_NEAR(ball.centroid[2], (depth - 1) / 2.0, 0.6);
  EXPECT_GT(ball.hi[2] - ball.lo[2], 3);
  const auto wide = test::scaled_samples<std::uint16_t>(vol, 257.0f);
  p.filter.range = 40 * 257.0f;
  const auto seg16 = mean_shift_segment<std::uint16_t>(wide.view(), p, VolumeShape{depth});
  EXPECT_EQ(seg16.regions.size(), 2u);
}

TEST(MeanShiftCli, VolumeFilesAndSequenceFolders) {
  namespace fs = std::filesystem;
  const auto vol = phantom(16, 12, 6, 1, 12.0f, 7);
  MeanShiftParams p;
  p.spatial = 3;
  p.range = 30;
  p.backend = Backend::cpu;
  Image<std::uint8_t> expect(16, 72);
  mean_shift_filter_volume<std::uint8_t>(vol.view(), expect.view(), VolumeShape{6}, p);
  if (nifti::available()) {
    const std::string in = test::temp_path("vol.nii.gz"), out = test::temp_path("vol_out.nii");
    Volume v;
    v.stacked = vol.clone();
    v.shape = {6, 1};
    write_volume(in, v, v.stacked);
    auto r = test::run_cli("filter meanshift " + in + " " + out + " --spatial 3 --range 30 --backend cpu");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const Volume back = read_volume(out);
    EXPECT_EQ(back.shape.depth, 6);
    EXPECT_EQ(count_differences<std::uint8_t>(std::get<Image<std::uint8_t>>(back.stacked).view(), expect.view()), 0u);
    // Labels as int32 NIfTI, the region table beside.
    const std::string labels = test::temp_path("labels.nii.gz"), table = test::temp_path("regions.json");
    r = test::run_cli("segment meanshift " + in + " " + labels + " --spatial 3 --range 40 --regions " + table + " --backend cpu");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("2 regions"), std::string::npos) << r.output;
    EXPECT_TRUE(fs::exists(table));
    // A truncated file: one line, nothing written.
    const std::string cut = test::temp_path("cut.nii"), never = test::temp_path("never.nii");
    write_volume(cut, v, v.stacked);
    fs::resize_file(cut, fs::file_size(cut) - 100);
    r = test::run_cli("filter meanshift " + cut + " " + never + " --backend cpu");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
    EXPECT_NE(r.output.find("cut.nii"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(never));
  }
  if (nifti::available()) {
    // A file's own sample type is kept: int16 is filtered as float and written back as int16,
    // its header (here: the voxel size) with it.
    Image<float> values(5, 12);
    for (int y = 0; y < 12; ++y)
      for (int x = 0; x < 5; ++x) values(x, y) = static_cast<float>(-300 + 57 * x - 11 * y) + 0.4f;
    Volume v;
    v.stacked = values.clone();
    v.shape = {3, 1};
    const std::string as_float = test::temp_path("f.nii"), as_int = test::temp_path("i16.nii.gz");
    write_volume(as_float, v, v.stacked);
    Volume read = read_volume(as_float);
    read.nifti_datatype = 4;  // DT_INT16
    write_volume(as_int, read, read.stacked);
    const Volume back = read_volume(as_int);
    EXPECT_EQ(back.nifti_datatype, 4);
    const auto& got = std::get<Image<float>>(back.stacked);
    for (int y = 0; y < 12; ++y)
      for (int x = 0; x < 5; ++x) EXPECT_EQ(got(x, y), std::nearbyint(values(x, y))) << x << "," << y;
    // A header that claims more voxels than the machine has memory for: one line, nothing read.
    const std::string huge = test::temp_path("huge.nii"), never_big = test::temp_path("never_big.nii");
    {
      std::fstream f(as_float, std::ios::in | std::ios::out | std::ios::binary);
      const std::int16_t dims[3] = {30000, 30000, 30000};  // NIfTI-1: dim[1..3] at byte 42
      f.seekp(42);
      f.write(reinterpret_cast<const char*>(dims), sizeof dims);
    }
    std::filesystem::copy_file(as_float, huge, std::filesystem::copy_options::overwrite_existing);
    auto big = test::run_cli("filter meanshift " + huge + " " + never_big + " --backend cpu");
    EXPECT_NE(big.exit_code, 0);
    EXPECT_NE(big.output.find("too large"), std::string::npos) << big.output;
    EXPECT_FALSE(fs::exists(never_big));
    const std::string out16 = test::temp_path("i16_out.nii.gz");
    auto r = test::run_cli("filter meanshift " + as_int + " " + out16 + " --spatial 2 --range 100 --backend cpu");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(read_volume(out16).nifti_datatype, 4);
  }
  // A sequence: one folder of slices per frame.
  const std::string seq = test::temp_path("seq"), seq_out = test::temp_path("seq_out");
  fs::remove_all(seq);
  for (int t = 0; t < 2; ++t) {
    fs::create_directories(seq + "/t" + std::to_string(t));
    for (int z = 0; z < 3; ++z)
      write_image(seq + "/t" + std::to_string(t) + "/s" + std::to_string(z) + ".pgm",
                  HostView<const std::uint8_t>(vol.view().crop(0, (t * 3 + z) * 12, 16, 12)));
  }
  auto r = test::run_cli("filter meanshift " + seq + " " + seq_out + " --volume --spatial 3 --range 30 --time 1.5 --backend cpu");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  p.time = 1.5f;
  mean_shift_filter_volume<std::uint8_t>(vol.view(), expect.view(), VolumeShape{3, 2}, p);
  for (int t = 0; t < 2; ++t)
    for (int z = 0; z < 3; ++z) {
      const auto got = read_grey8(seq_out + "/t" + std::to_string(t) + "/s" + std::to_string(z) + ".pgm");
      Image<std::uint8_t> want(16, 12);
      copy<std::uint8_t>(HostView<const std::uint8_t>(expect.view().crop(0, (t * 3 + z) * 12, 16, 12)), want.view());
      EXPECT_EQ(max_difference(got, want), 0) << t << "/" << z;
    }
  r = test::run_cli("filter meanshift " + seq + "/t0/s0.pgm " + test::temp_path("x.pgm") + " --spatial 0");
  EXPECT_NE(r.exit_code, 0);
}

}  // namespace gpuvis::filters

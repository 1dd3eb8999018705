// Segmentation and region tree: hand-built frames with known regions, adjacency per reacTIVision's
// rule, saturation, the parent forest, and cost that grows with pixels.
#include <gtest/gtest.h>

#include <set>

#include "gpuvis/segment/region_tree.hpp"
#include "segment/cpu/segment.hpp"
#include "segment_reference.hpp"
#include "test_support.hpp"

using namespace gpuvis;
using namespace gpuvis::segment;

namespace {
Image<std::uint8_t> draw(const std::vector<std::string>& rows) {  // '#' black, '.' white
  Image<std::uint8_t> img(static_cast<int>(rows[0].size()), static_cast<int>(rows.size()));
  for (int y = 0; y < img.height(); ++y)
    for (int x = 0; x < img.width(); ++x) img(x, y) = rows[y][x] == '#' ? 0 : 255;
  return img;
}
std::set<int> neighbours(const RegionTree& t, int r) { return {t.neighbours(r), t.neighbours(r) + t.degree(r)}; }
int region_at(const RegionTree& t, int x, int y) {
  for (int r = 0; r < t.size(); ++r)
    for (int i = t.run_begin[r]; i < t.run_begin[r + 1]; ++i)
      if (t.runs[i].y == y && t.runs[i].x0 <= x && x <= t.runs[i].x1) return r;
  return -1;
}
}  // namespace

TEST(Segment, NestedShapesGiveTheNestingTree) {
  const auto img = draw({"..........",
                         ".########.",
                         ".#......#.",
                         ".#.##...#.",
                         ".#.##.#.#.",
                         ".#......#.",
                         ".########.",
                         ".........."});
  RegionTree t;
  segment_cpu(img.view(), 19, t);
  ASSERT_EQ(t.size(), 5);  // background, ring, inside, 2x2 dot, single-pixel dot
  const int bg = region_at(t, 0, 0), ring = region_at(t, 1, 1), inside = region_at(t, 2, 2);
  const int dot = region_at(t, 3, 3), pix = region_at(t, 6, 4);
  EXPECT_EQ(bg, 0);  // regions are numbered in raster order of their first pixel
  EXPECT_EQ(t.area[ring], 8 + 8 + 4 * 2);
  EXPECT_EQ(t.area[dot], 4);
  EXPECT_EQ(t.area[pix], 1);
  EXPECT_EQ(t.area[bg] + t.area[ring] + t.area[inside] + t.area[dot] + t.area[pix], 80);
  EXPECT_EQ(t.left[dot], 3);
  EXPECT_EQ(t.right[dot], 4);
  EXPECT_EQ(t.top[dot], 3);
  EXPECT_EQ(t.bottom[dot], 4);
  EXPECT_DOUBLE_EQ(t.centroid_x(dot), 3.5);
  EXPECT_DOUBLE_EQ(t.centroid_y(dot), 3.5);
  EXPECT_TRUE(t.flags[bg] & kBorder);
  EXPECT_FALSE(t.flags[ring] & kBorder);
  EXPECT_EQ(neighbours(t, ring), (std::set<int>{bg, inside}));
  EXPECT_EQ(neighbours(t, inside), (std::set<int>{ring, dot, pix}));
  EXPECT_EQ(neighbours(t, dot), (std::set<int>{inside}));
  EXPECT_EQ(t.parent[bg], -1);
  EXPECT_EQ(t.parent[ring], bg);
  EXPECT_EQ(t.parent[inside], ring);
  EXPECT_EQ(t.parent[dot], inside);
  EXPECT_EQ(t.parent[pix], inside);
  EXPECT_EQ(t.depth[pix], 3);
  EXPECT_EQ(t.child_count[inside], 2);
  EXPECT_EQ(t.descendant_count[bg], 4);
  EXPECT_EQ(t.descendant_count[ring], 3);
  EXPECT_EQ(t.colour[ring], 0);
  EXPECT_EQ(t.colour[inside], 255);
}

TEST(Segment, DiagonalContactDoesNotConnectAndAdjacencyNeedsARunStart) {
  // 2x2 checkerboard: four regions. Adjacency is recorded only where a run starts below a
  // different colour (spec §3.3): the lower two touch horizontally but are not adjacent.
  const auto img = draw({"#.", ".#"});
  RegionTree t;
  segment_cpu(img.view(), 19, t);
  ASSERT_EQ(t.size(), 4);
  EXPECT_EQ(neighbours(t, 0), (std::set<int>{1, 2}));
  EXPECT_EQ(neighbours(t, 1), (std::set<int>{0, 3}));
  EXPECT_EQ(neighbours(t, 2), (std::set<int>{0}));
  EXPECT_EQ(neighbours(t, 3), (std::set<int>{1}));
  for (int r = 0; r < 4; ++r) EXPECT_TRUE(t.flags[r] & kBorder);
}

TEST(Segment, RegionsWithTooManyNeighboursAreSaturated) {
  // A white field with 6 black dots inside a black frame; cap 4 saturates the field.
  const auto img = draw({"###########",
                         "#.........#",
                         "#.#.#.#...#",
                         "#.........#",
                         "#.#.#.#...#",
                         "#.........#",
                         "###########"});
  RegionTree t;
  segment_cpu(img.view(), 4, t);
  const int field = region_at(t, 1, 1), dot = region_at(t, 2, 2);
  EXPECT_TRUE(t.flags[field] & kSaturated);
  EXPECT_EQ(t.degree(field), 0);
  EXPECT_TRUE(t.flags[dot] & kFragmented);
  EXPECT_EQ(t.degree(dot), 0);
  segment_cpu(img.view(), 19, t);
  EXPECT_FALSE(t.flags[field] & kSaturated);
  EXPECT_EQ(t.degree(field), 7);  // frame + 6 dots
}

TEST(Segment, AreasAddUpAndLabelsAreConsistentOnNoise) {
  const auto noise = test::random_image(97, 61, 3);
  Image<std::uint8_t> bin(97, 61);
  for (int y = 0; y < 61; ++y)
    for (int x = 0; x < 97; ++x) bin(x, y) = noise(x, y) > 127 ? 255 : 0;
  RegionTree t;
  segment_cpu(bin.view(), 19, t);
  long total = 0;
  for (int r = 0; r < t.size(); ++r) {
    total += t.area[r];
    long run_area = 0;
    for (int i = t.run_begin[r]; i < t.run_begin[r + 1]; ++i) {
      const segment::Run& run = t.runs[i];
      run_area += run.x1 - run.x0 + 1;
      for (int x = run.x0; x <= run.x1; ++x) ASSERT_EQ(bin(x, run.y), t.colour[r]);
    }
    EXPECT_EQ(run_area, t.area[r]);
    for (int k = 0; k < t.degree(r); ++k) EXPECT_NE(t.colour[t.neighbours(r)[k]], t.colour[r]);
    if (t.parent[r] >= 0) {
      EXPECT_LT(t.parent[r], r);
    }
  }
  EXPECT_EQ(total, 97 * 61);
  // 4-connectivity: horizontally or vertically touching equal pixels share a region.
  std::vector<int> label(97 * 61);
  for (int r = 0; r < t.size(); ++r)
    for (int i = t.run_begin[r]; i < t.run_begin[r + 1]; ++i)
      for (int x = t.runs[i].x0; x <= t.runs[i].x1; ++x) label[t.runs[i].y * 97 + x] = r;
  for (int y = 0; y < 61; ++y)
    for (int x = 0; x < 97; ++x) {
      if (x + 1 < 97 && bin(x, y) == bin(x + 1, y)) {
        EXPECT_EQ(label[y * 97 + x], label[y * 97 + x + 1]);
      }
      if (y + 1 < 61 && bin(x, y) == bin(x, y + 1)) {
        EXPECT_EQ(label[y * 97 + x], label[(y + 1) * 97 + x]);
      }
    }
}

TEST(Segment, OnePixelAndOneRowFrames) {
  RegionTree t;
  Image<std::uint8_t> one(1, 1);
  one.fill(0);
  segment_cpu(one.view(), 19, t);
  EXPECT_EQ(t.size(), 1);
  EXPECT_TRUE(t.flags[0] & kBorder);
  const auto row = draw({"#.#..#"});
  segment_cpu(row.view(), 19, t);
  EXPECT_EQ(t.size(), 5);
  EXPECT_EQ(neighbours(t, 1), (std::set<int>{0, 2}));
}

// Every field of the fast segmentation equals the pixel-by-pixel reference of docs/segmentation.md,
// on the frames that stress it: white noise at several densities (tens of thousands of regions),
// blocky noise, checkerboards, stripes, all-black, all-white, one-pixel-wide frames, and caps small
// enough that noise saturates.
TEST(Segment, EqualsThePixelReferenceOnEveryKindOfFrame) {
  struct Case {
    int w, h;
    double white;
    int block, cap;
  };
  const Case cases[] = {{1, 1, 0.5, 1, 19},   {1, 57, 0.5, 1, 19},  {57, 1, 0.5, 1, 19},  {97, 61, 0.5, 1, 19},
                        {97, 61, 0.1, 1, 19},  {97, 61, 0.9, 1, 19}, {97, 61, 0.5, 1, 3},  {97, 61, 0.5, 3, 4},
                        {320, 240, 0.5, 1, 19}, {320, 240, 0.3, 2, 19}, {200, 150, 0.5, 5, 6}, {64, 64, 0.0, 1, 19},
                        {64, 64, 1.0, 1, 19}};
  RegionTree fast, no_runs;
  std::uint32_t seed = 1;
  for (const Case& c : cases) {
    const auto bin = test::binary_noise(c.w, c.h, c.white, c.block, seed++);
    segment_cpu(bin.view(), c.cap, fast);
    auto reference = test::segment_reference(bin.view(), c.cap);
    EXPECT_TRUE(test::same_region_tree(reference, fast))
        << c.w << "x" << c.h << " white " << c.white << " block " << c.block << " cap " << c.cap;
    // Without run lists (what fiducial detection asks for) everything else is the same.
    segment_cpu(bin.view(), c.cap, no_runs, {.runs = false});
    EXPECT_TRUE(no_runs.run_begin.empty() && no_runs.runs.empty());
    reference.run_begin.clear();
    reference.runs.clear();
    EXPECT_TRUE(test::same_region_tree(reference, no_runs)) << "without run lists, " << c.w << "x" << c.h;
  }
  // Checkerboard and one-pixel stripes in both directions.
  Image<std::uint8_t> checker(41, 33), hstripes(41, 33), vstripes(41, 33);
  for (int y = 0; y < 33; ++y)
    for (int x = 0; x < 41; ++x) {
      checker(x, y) = ((x + y) & 1) ? 255 : 0;
      hstripes(x, y) = (y & 1) ? 255 : 0;
      vstripes(x, y) = (x & 1) ? 255 : 0;
    }
  for (const auto* img : {&checker, &hstripes, &vstripes}) {
    segment_cpu(img->view(), 19, fast);
    EXPECT_TRUE(test::same_region_tree(test::segment_reference(img->view(), 19), fast));
  }
  // Non-binary input: any non-zero value is white.
  auto grey = test::random_image(80, 50, 9);
  segment_cpu(grey.view(), 19, fast);
  EXPECT_TRUE(test::same_region_tree(test::segment_reference(grey.view(), 19), fast));
}

#include "gpuvis/core/parallel.hpp"

// On several threads the frame is labelled in bands of rows that are then joined: the region tree
// is the pixel reference's whatever the thread count, with components that cross every band border
// (vertical stripes, a spiral of one region), bands of the least height and one row more, and noise.
TEST(Segment, TheRegionTreeDoesNotDependOnTheThreadCount) {
  Image<std::uint8_t> stripes(64, 480), comb(90, 241);
  for (int y = 0; y < 480; ++y)
    for (int x = 0; x < 64; ++x) stripes(x, y) = (x / 3) & 1 ? 255 : 0;
  for (int y = 0; y < 241; ++y)  // teeth joined at the top and bottom rows: each tooth joins in the last band
    for (int x = 0; x < 90; ++x) comb(x, y) = (y == 0 || y == 240 || (x % 6) < 2) ? 0 : 255;
  std::vector<Image<std::uint8_t>> frames;
  frames.push_back(std::move(stripes));
  frames.push_back(std::move(comb));
  frames.push_back(test::binary_noise(640, 480, 0.5, 1, 21));
  frames.push_back(test::binary_noise(97, 96, 0.5, 2, 22));   // two bands of the least height
  frames.push_back(test::binary_noise(97, 97, 0.4, 1, 23));   // and one row more
  frames.push_back(test::binary_noise(333, 355, 0.5, 3, 24));
  // Enough runs and pairs for the bands' numbering and adjacency lists (kLeastBandedRuns, kLeastBandedPairs).
  frames.push_back(test::binary_noise(1280, 960, 0.5, 1, 25));
  RegionTree tree;
  for (int threads : {1, 2, 3, 4, 7})
    for (std::size_t i = 0; i < frames.size(); ++i) {
      set_num_threads(threads);
      segment_cpu(frames[i].view(), 19, tree);
      set_num_threads(0);
      EXPECT_TRUE(test::same_region_tree(test::segment_reference(frames[i].view(), 19), tree)) << "frame " << i << ", " << threads << " threads";
    }
}

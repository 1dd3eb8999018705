#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <vector>

#include "core/streaming_copy.hpp"
#include "gpuvis/core/parallel.hpp"

using namespace gpuvis;

TEST(Parallel, CoversEveryIndexExactlyOnce) {
  for (int threads : {1, 2, 5}) {
    set_num_threads(threads);
    std::vector<std::atomic<int>> hits(1001);
    parallel_for(0, 1001, 3, [&](std::ptrdiff_t b, std::ptrdiff_t e) {
      for (auto i = b; i < e; ++i) hits[static_cast<std::size_t>(i)]++;
    });
    for (auto& h : hits) EXPECT_EQ(h.load(), 1);
  }
  set_num_threads(0);
}

TEST(Parallel, RethrowsWorkerExceptions) {
  set_num_threads(3);
  EXPECT_THROW(parallel_for(0, 100, 1,
                            [](std::ptrdiff_t b, std::ptrdiff_t) {
                              if (b >= 50) throw std::runtime_error("boom");
                            }),
               std::runtime_error);
  // The pool still works afterwards.
  std::atomic<int> n{0};
  parallel_for(0, 10, 1, [&](std::ptrdiff_t b, std::ptrdiff_t e) { n += static_cast<int>(e - b); });
  EXPECT_EQ(n.load(), 10);
  set_num_threads(0);
}

TEST(Parallel, NestedCallsRunInline) {
  std::atomic<int> n{0};
  parallel_for(0, 8, 1, [&](std::ptrdiff_t, std::ptrdiff_t) {
    parallel_for(0, 4, 1, [&](std::ptrdiff_t b, std::ptrdiff_t e) { n += static_cast<int>(e - b); });
  });
  EXPECT_EQ(n.load(), 32);
}

// Work handed to a pool right after its workers were started: every worker joins the first job
// exactly once (a worker that woke for the start-up itself once lost a chunk or counted itself
// twice, and the caller then waited forever: ~2 % of runs with 16 threads).
TEST(Parallel, AFreshPoolRunsItsFirstJobCompletely) {
  for (int round = 0; round < 300; ++round) {
    set_num_threads(16);
    std::vector<std::atomic<int>> hits(640);
    parallel_for(0, 640, 1, [&](std::ptrdiff_t b, std::ptrdiff_t e) {
      for (auto i = b; i < e; ++i) hits[static_cast<std::size_t>(i)]++;
    });
    for (auto& h : hits) ASSERT_EQ(h.load(), 1) << "round " << round;
  }
  set_num_threads(0);
}

// The streaming copy (host images into the GPU's staging buffers) and the copy that releases its
// source's cache lines (results out of them) copy every byte, for every alignment of source and
// destination and every length around their 64-byte blocks, write nothing outside the
// destination and leave the source as it was.
TEST(StreamingCopy, CopiesEveryByteAtAnyAlignment) {
  std::vector<unsigned char> src(5000), dst(5200);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i * 7 + 3);
  const std::vector<unsigned char> original = src;
  for (auto* copy : {&copy_streaming, &copy_and_release_source})
    for (std::size_t dst_at : {0, 1, 5, 16, 33})
      for (std::size_t src_at : {0, 3, 16})
        for (std::size_t bytes : {0, 1, 63, 255, 256, 257, 319, 4096, 4700}) {
          std::fill(dst.begin(), dst.end(), 0xEE);
          copy(dst.data() + dst_at, src.data() + src_at, bytes);
          ASSERT_TRUE(std::equal(src.begin() + src_at, src.begin() + src_at + bytes, dst.begin() + dst_at))
              << "dst +" << dst_at << " src +" << src_at << " bytes " << bytes;
          ASSERT_EQ(src, original);
          const auto untouched = [](unsigned char v) { return v == 0xEE; };
          ASSERT_TRUE(std::all_of(dst.begin(), dst.begin() + dst_at, untouched));
          ASSERT_TRUE(std::all_of(dst.begin() + dst_at + bytes, dst.end(), untouched));
        }
}

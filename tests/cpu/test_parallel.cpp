#include <gtest/gtest.h>

#include <atomic>
#include <vector>

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

// gpuvis lab on CUDA: every matrix product passes its reference check at sizes that are and are not
// multiples of the tiles, and every lesson's correct variants are correct while its races lose updates.
#include <gtest/gtest.h>

#include "gpuvis/lab/lab.hpp"
#include "test_support.hpp"

namespace gpuvis::lab {
namespace {

TEST(LabCuda, EveryMatrixProductPassesItsCheck) {
  GPUVIS_REQUIRE_GPU();
  for (Precision p : {Precision::f32, Precision::bf16, Precision::f64})
    for (int n : {1, 33, 130, 256, 512, 600}) {  // 600: whole 16-byte rows, not whole tiles
      MatmulParams o;
      o.n = n;
      o.precision = p;
      o.runs = 2;
      o.impls = {MatmulImpl::naive_blocks, MatmulImpl::naive, MatmulImpl::tiled, MatmulImpl::regblock, MatmulImpl::tensor, MatmulImpl::cublas};
      if (p == Precision::f32) o.impls.push_back(MatmulImpl::cublas_tf32);
      const Table t = matmul(o);
      for (const auto& r : t.rows) EXPECT_TRUE(r.correct) << to_string(p) << " n=" << n << " " << r.name << ": " << r.check;
    }
}

TEST(LabCuda, LessonsAreCorrectAndRacesLoseUpdates) {
  GPUVIS_REQUIRE_GPU();
  LessonParams o;
  o.backend = Backend::cuda;
  o.size = 1 << 22;
  o.runs = 3;
  for (auto fn : {dot, atomics, memory, streams}) {
    const Table t = fn(o);
    for (const auto& r : t.rows) {
      if (!r.demonstration) {
        EXPECT_TRUE(r.correct) << t.title << " " << r.name << ": " << r.check;
      }
    }
  }
  const Table a = atomics(o);
  for (const auto& r : a.rows) {
    if (r.name == "cuda-race") {
      EXPECT_LT(r.value, static_cast<double>(o.size)) << "the race lost no update";
    }
  }
}

}  // namespace
}  // namespace gpuvis::lab

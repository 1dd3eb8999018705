// gpuvis lab on the CPU: the OpenBLAS product passes its reference check, the reductions and
// counters that must be right are right, and the GPU-only lessons say so without a device.
#include <gtest/gtest.h>

#include "gpuvis/core/error.hpp"
#include "gpuvis/cuda/runtime.hpp"
#include "gpuvis/lab/lab.hpp"
#include "test_support.hpp"

namespace gpuvis::lab {
namespace {

const Row& row(const Table& t, const std::string& name) {
  for (const auto& r : t.rows)
    if (r.name == name) return r;
  throw std::runtime_error("no row " + name);
}

TEST(LabMatmul, CpuProductPassesItsReferenceCheck) {
  if (!blas_available()) GTEST_SKIP() << "built without OpenBLAS";
  for (Precision p : {Precision::f32, Precision::f64, Precision::bf16})
    for (int n : {1, 7, 64, 300}) {
      MatmulParams o;
      o.n = n;
      o.precision = p;
      o.impls = {MatmulImpl::cpu};
      o.runs = 2;
      const Table t = matmul(o);
      ASSERT_EQ(t.rows.size(), 1u);
      EXPECT_TRUE(t.rows[0].correct) << to_string(p) << " n=" << n << ": " << t.rows[0].check;
      EXPECT_GT(t.rows[0].value, 0);
    }
}

TEST(LabMatmul, RefusesBadRequests) {
  MatmulParams o;
  o.n = 0;
  EXPECT_THROW(matmul(o), Error);
  o.n = 64;
  o.impls = {MatmulImpl::cublas_tf32};  // TF32 math exists for f32 matrices only
  o.precision = Precision::f64;
  EXPECT_THROW(matmul(o), Error);
  o.precision = Precision::bf16;
  EXPECT_THROW(matmul(o), Error);
  EXPECT_THROW(parse_matmul_impl("fast"), Error);
  EXPECT_THROW(parse_precision("f16"), Error);
}

TEST(LabLessons, CpuReductionsAndCountersThatMustBeRightAreRight) {
  LessonParams o;
  o.backend = Backend::cpu;
  o.size = 1 << 20;
  o.runs = 3;
  const Table d = dot(o);
  EXPECT_TRUE(row(d, "cpu-threads").correct) << row(d, "cpu-threads").check;
  EXPECT_TRUE(row(d, "cpu-shared-sum-race").demonstration);
  EXPECT_TRUE(row(d, "cpu-serial-float").demonstration);
  const Table a = atomics(o);
  EXPECT_TRUE(row(a, "cpu-fetch-add").correct);
  EXPECT_TRUE(row(a, "cpu-local-then-add").correct);
  EXPECT_EQ(row(a, "cpu-local-then-add").value, 1 << 20);
  EXPECT_TRUE(row(a, "cpu-race").demonstration);
}

TEST(LabLessons, GpuOnlyLessonsSaySoOnTheCpu) {
  LessonParams o;
  o.backend = Backend::cpu;
  for (auto fn : {memory, streams}) {
    try {
      fn(o);
      ADD_FAILURE() << "ran on the CPU";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::unsupported);
      EXPECT_NE(std::string(e.what()).find("GPU"), std::string::npos) << e.what();
    }
  }
}

TEST(LabCli, PrintsTablesAndFailsClearly) {
  auto r = test::run_cli("lab atomics --size 100000 --backend cpu --runs 2");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("cpu-local-then-add"), std::string::npos) << r.output;
  r = test::run_cli("lab matmul --size 0");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  r = test::run_cli("lab matmul --impl fastest");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("unknown matmul implementation"), std::string::npos) << r.output;
  if (cuda::device_count() == 0) {
    r = test::run_cli("lab streams");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.output.find("runs on the GPU only"), std::string::npos) << r.output;
  }
}

}  // namespace
}  // namespace gpuvis::lab

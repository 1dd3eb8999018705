#pragma once
// The CUDA lessons behind the lab's tables (src/lab/cuda); they throw ErrorCode::unsupported in
// builds without CUDA (cuda_absent.cpp).
#include <vector>

#include "gpuvis/lab/lab.hpp"

namespace gpuvis::lab {

namespace cuda_impl {
struct MatmulRun {
  double kernel_us = 0;      // median kernel time (CUDA events), matrices on the device
  double end_to_end_us = 0;  // median of upload A, B (pinned) + kernel + download C
};
// A and B hold values exact in `precision`; C receives the product.
MatmulRun matmul(MatmulImpl impl, Precision precision, int n, const std::vector<double>& a, const std::vector<double>& b,
                 std::vector<double>& c, int runs);
void dot(const LessonParams& options, const std::vector<float>& x, const std::vector<float>& y, double reference, Table& table);
Table memory(const LessonParams& options);
void atomics(const LessonParams& options, Table& table);
Table streams(const LessonParams& options);
}  // namespace cuda_impl

}  // namespace gpuvis::lab

// Builds without CUDA: the lessons' GPU halves are unavailable.
#include "gpuvis/core/error.hpp"
#include "gpuvis/lab/lab.hpp"
#include "lab/backends.hpp"

namespace gpuvis::lab::cuda_impl {
namespace {
[[noreturn]] void absent() { fail(ErrorCode::unsupported, "this gpuvis was built without the CUDA backend"); }
}  // namespace

MatmulRun matmul(MatmulImpl, Precision, int, const std::vector<double>&, const std::vector<double>&, std::vector<double>&, int) { absent(); }
void dot(const LessonParams&, const std::vector<float>&, const std::vector<float>&, double, Table&) { absent(); }
Table memory(const LessonParams&) { absent(); }
void atomics(const LessonParams&, Table&) { absent(); }
Table streams(const LessonParams&) { absent(); }

}  // namespace gpuvis::lab::cuda_impl

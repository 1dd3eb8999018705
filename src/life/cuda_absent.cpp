// Builds without CUDA: the CUDA simulation is unavailable.
#include "gpuvis/core/error.hpp"
#include "gpuvis/life/life.hpp"
#include "life/backends.hpp"

namespace gpuvis::life::cuda_impl {

std::unique_ptr<Simulation> make_simulation(const Board&, const Params&) {
  fail(ErrorCode::unsupported, "this gpuvis was built without the CUDA backend");
}

}  // namespace gpuvis::life::cuda_impl

// The second look's deconvolutions on the GPU (deconvolver.hpp): motion_blur.cpp's deconvolve, one
// thread block per kernel of a group, by the per-pixel rule that restores the CPU's bits
// (deconvolve_rule.hpp).
#include <algorithm>
#include <vector>

#include "cuda/check.hpp"
#include "cuda/memory.hpp"
#include "pipeline/second_look/deconvolve_rule.hpp"
#include "pipeline/second_look/deconvolver.hpp"

namespace gpuvis::pipeline::second_look {
namespace {

constexpr int kThreads = 1024;

struct KernelSpan {
  int first, count;  // its taps in the tap list
  int matrix;        // a blur that varies across the patch: its index among the matrices, else -1
};

struct Problem {
  const float* blurred;  // w x h, rows packed
  int w, h;
  const Tap* taps;
  const KernelSpan* kernels;
  // The matrices' rows: matrix m's at row_starts + 2m(n + 1), its transpose's at (2m + 1)(n + 1),
  // indices into columns and weights.
  const int *row_starts, *columns;
  const float* weights;
  const float* momenta;  // one per iteration
  int iterations, early;
  float lambda, step, lo, hi;
  float* work;  // per kernel: u, v, residual, nx, ny, the early estimate (w x h each)
};

// One block per kernel: every pixel's residual and total-variation normal, then every pixel's step
// (deconvolve_rule.hpp), a barrier after each.
__global__ void __launch_bounds__(kThreads) deconvolve_kernel(Problem p) {
  const int n = p.w * p.h;
  const KernelSpan span = p.kernels[blockIdx.x];
  const Tap* taps = p.taps + span.first;
  const int* rows = span.matrix >= 0 ? p.row_starts + static_cast<std::size_t>(2 * span.matrix) * (n + 1) : nullptr;
  const int* adjoint_rows = rows ? rows + n + 1 : nullptr;
  float* u = p.work + static_cast<std::size_t>(blockIdx.x) * 6 * n;
  float *v = u + n, *residual = v + n, *nx = residual + n, *ny = nx + n, *at_early = ny + n;
  for (int i = threadIdx.x; i < n; i += kThreads) u[i] = v[i] = rule::clamp(p.blurred[i], p.lo, p.hi);
  __syncthreads();
  for (int it = 0; it < p.iterations; ++it) {
    for (int i = threadIdx.x; i < n; i += kThreads) {
      const int x = i % p.w, y = i / p.w;
      const float blurred = rows ? rule::row_sum_at(v, rows, p.columns, p.weights, i) : rule::convolve_at<1>(v, p.w, p.h, x, y, taps, span.count);
      residual[i] = rule::sub(blurred, p.blurred[i]);
      if (p.lambda > 0) rule::tv_normal_at(v, p.w, p.h, x, y, nx[i], ny[i]);
    }
    __syncthreads();
    const float momentum = p.momenta[it];
    for (int i = threadIdx.x; i < n; i += kThreads) {
      const int x = i % p.w, y = i / p.w;
      float g = rows ? rule::row_sum_at(residual, adjoint_rows, p.columns, p.weights, i)
                     : rule::convolve_at<-1>(residual, p.w, p.h, x, y, taps, span.count);
      if (p.lambda > 0) g = rule::with_smoothness(g, nx, ny, p.w, x, y, p.lambda);
      rule::step_at(u[i], v[i], g, p.step, momentum, p.lo, p.hi);
      if (it + 1 == p.early) at_early[i] = u[i];
    }
    __syncthreads();
  }
}

class CudaDeconvolver final : public Deconvolver {
 public:
  bool batches() const override { return true; }
  void run(HostView<const float> blurred, std::span<const Blur> kernels, const DeconvolveSettings& settings,
           std::vector<Image<float>>& restored, std::vector<Image<float>>& at_early) override {
    const int w = blurred.width, h = blurred.height;
    const std::size_t n = static_cast<std::size_t>(w) * h, jobs = kernels.size();
    restored.clear();
    at_early.clear();
    restored.resize(jobs);
    at_early.resize(jobs);
    if (jobs == 0 || n == 0) return;
    std::vector<Tap> taps;
    std::vector<KernelSpan> spans;
    std::vector<int> row_starts, columns;
    std::vector<float> weights;
    for (const auto& k : kernels) {
      spans.push_back({static_cast<int>(taps.size()), static_cast<int>(k.taps.size()), -1});
      taps.insert(taps.end(), k.taps.begin(), k.taps.end());
      if (!k.varies()) continue;
      spans.back().matrix = static_cast<int>(row_starts.size() / (2 * (n + 1)));
      for (const BlurMatrix* a : {k.matrix.get(), k.adjoint.get()}) {
        const int base = static_cast<int>(columns.size());
        for (const int r : a->row_start) row_starts.push_back(base + r);
        columns.insert(columns.end(), a->column.begin(), a->column.end());
        weights.insert(weights.end(), a->weight.begin(), a->weight.end());
      }
    }
    const std::vector<float> momenta = fista_momentum(std::max(settings.iterations, 1));
    blurred_.reserve(n * sizeof(float));
    taps_.reserve(std::max<std::size_t>(taps.size(), 1) * sizeof(Tap));
    spans_.reserve(jobs * sizeof(KernelSpan));
    momenta_.reserve(momenta.size() * sizeof(float));
    work_.reserve(jobs * 6 * n * sizeof(float));
    row_starts_.reserve(std::max<std::size_t>(row_starts.size(), 1) * sizeof(int));
    columns_.reserve(std::max<std::size_t>(columns.size(), 1) * sizeof(int));
    weights_.reserve(std::max<std::size_t>(weights.size(), 1) * sizeof(float));
    if (!row_starts.empty()) {
      GPUVIS_CUDA_CHECK(cudaMemcpyAsync(row_starts_.get(), row_starts.data(), row_starts.size() * sizeof(int), cudaMemcpyHostToDevice, stream_));
      GPUVIS_CUDA_CHECK(cudaMemcpyAsync(columns_.get(), columns.data(), columns.size() * sizeof(int), cudaMemcpyHostToDevice, stream_));
      GPUVIS_CUDA_CHECK(cudaMemcpyAsync(weights_.get(), weights.data(), weights.size() * sizeof(float), cudaMemcpyHostToDevice, stream_));
    }
    GPUVIS_CUDA_CHECK(cudaMemcpy2DAsync(blurred_.get(), w * sizeof(float), blurred.data, blurred.stride,
                                        w * sizeof(float), h, cudaMemcpyHostToDevice, stream_));
    GPUVIS_CUDA_CHECK(
        cudaMemcpyAsync(taps_.get(), taps.data(), taps.size() * sizeof(Tap), cudaMemcpyHostToDevice, stream_));
    GPUVIS_CUDA_CHECK(
        cudaMemcpyAsync(spans_.get(), spans.data(), jobs * sizeof(KernelSpan), cudaMemcpyHostToDevice, stream_));
    GPUVIS_CUDA_CHECK(cudaMemcpyAsync(momenta_.get(), momenta.data(), momenta.size() * sizeof(float),
                                      cudaMemcpyHostToDevice, stream_));
    // As deconvolve takes them.
    const float lambda = static_cast<float>(settings.smoothness);
    const float lo = std::max(settings.bounds.lo, 1.0f), hi = std::max(settings.bounds.hi, lo);
    const Problem problem{blurred_.as<float>(),
                          w,
                          h,
                          taps_.as<Tap>(),
                          spans_.as<KernelSpan>(),
                          row_starts_.as<int>(),
                          columns_.as<int>(),
                          weights_.as<float>(),
                          momenta_.as<float>(),
                          settings.iterations,
                          settings.early,
                          lambda,
                          deconvolve_step(lambda),
                          lo,
                          hi,
                          work_.as<float>()};
    deconvolve_kernel<<<static_cast<unsigned>(jobs), kThreads, 0, stream_>>>(problem);
    GPUVIS_CUDA_CHECK_LAUNCH();
    for (std::size_t j = 0; j < jobs; ++j) {
      const float* u = work_.as<float>() + j * 6 * n;
      restored[j] = Image<float>(w, h);
      GPUVIS_CUDA_CHECK(cudaMemcpy2DAsync(restored[j].data(), restored[j].view().stride, u, w * sizeof(float),
                                          w * sizeof(float), h, cudaMemcpyDeviceToHost, stream_));
      if (settings.early > 0 && settings.early <= settings.iterations) {
        at_early[j] = Image<float>(w, h);
        GPUVIS_CUDA_CHECK(cudaMemcpy2DAsync(at_early[j].data(), at_early[j].view().stride, u + 5 * n, w * sizeof(float),
                                            w * sizeof(float), h, cudaMemcpyDeviceToHost, stream_));
      }
    }
    stream_.synchronize();
  }

 private:
  cuda::Stream stream_;
  cuda::DeviceBuffer blurred_, taps_, spans_, momenta_, work_, row_starts_, columns_, weights_;
};

}  // namespace

std::unique_ptr<Deconvolver> make_cuda_deconvolver() { return std::make_unique<CudaDeconvolver>(); }

}  // namespace gpuvis::pipeline::second_look

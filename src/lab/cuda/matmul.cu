// The matrix products of gpuvis lab matmul, from one thread per block to tensor cores, and cuBLAS.
// Row-major n x n matrices, C = A B; bf16 inputs accumulate and store in f32. The tensor-core
// kernels are in matmul_tensor.cu.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <memory>
#include <string>

#include "lab/lab_common.hpp"
#include "core/lazy_library.hpp"
#include "lab/cuda/arrays.cuh"
#include "lab/cuda/matmul_tensor.cuh"
#include "cuda/check.hpp"
#include "cuda/memory.hpp"
#include "gpuvis/cuda/runtime.hpp"
#include "gpuvis/lab/lab.hpp"
#include "lab/backends.hpp"

namespace gpuvis::lab::cuda_impl {
namespace {

using bf16 = __nv_bfloat16;

template <class T> struct Traits { using acc = T; using out = T; };
template <> struct Traits<bf16> { using acc = float; using out = float; };
template <class T> using acc_t = typename Traits<T>::acc;
template <class T> using out_t = typename Traits<T>::out;

template <class T> __device__ __forceinline__ acc_t<T> up(T v) { return static_cast<acc_t<T>>(v); }
template <> __device__ __forceinline__ float up<bf16>(bf16 v) { return __bfloat162float(v); }

// The course's first kernel: one block of one thread per element.
template <class T>
__global__ void naive_blocks_kernel(const T* a, const T* b, out_t<T>* c, int n) {
  const int i = blockIdx.y, j = blockIdx.x;
  acc_t<T> s = 0;
  for (int k = 0; k < n; ++k) s += up(a[static_cast<long long>(i) * n + k]) * up(b[static_cast<long long>(k) * n + j]);
  c[static_cast<long long>(i) * n + j] = s;
}

// One thread per element.
template <class T>
__global__ void naive_kernel(const T* a, const T* b, out_t<T>* c, int n) {
  const int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || j >= n) return;
  acc_t<T> s = 0;
  for (int k = 0; k < n; ++k) s += up(a[static_cast<long long>(i) * n + k]) * up(b[static_cast<long long>(k) * n + j]);
  c[static_cast<long long>(i) * n + j] = s;
}

// 32 x 32 tiles of A and B staged in shared memory: each element read from global memory once per tile.
constexpr int tile = 32;
template <class T>
__global__ void tiled_kernel(const T* a, const T* b, out_t<T>* c, int n) {
  __shared__ acc_t<T> as[tile][tile], bs[tile][tile + 1];
  const int ty = threadIdx.y, tx = threadIdx.x;
  const int i = blockIdx.y * tile + ty, j = blockIdx.x * tile + tx;
  acc_t<T> s = 0;
  for (int k0 = 0; k0 < n; k0 += tile) {
    as[ty][tx] = (i < n && k0 + tx < n) ? up(a[static_cast<long long>(i) * n + k0 + tx]) : acc_t<T>(0);
    bs[ty][tx] = (k0 + ty < n && j < n) ? up(b[static_cast<long long>(k0 + ty) * n + j]) : acc_t<T>(0);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < tile; ++k) s += as[ty][k] * bs[k][tx];
    __syncthreads();
  }
  if (i < n && j < n) c[static_cast<long long>(i) * n + j] = s;
}

// Register blocking: a 256-thread block computes a 128 x 128 tile of C, each thread 8 x 8 outputs
// held in registers, over k-slices of 16 staged in shared memory (A transposed, so both operands
// are read as contiguous vectors) with two buffers: the next slice is fetched from global memory
// while the current one is multiplied. A thread's 8 x 8 outputs are four 4 x 4 blocks 64 rows and
// columns apart, so the 16 lanes that share a row of threads read 16 consecutive 16-byte vectors
// of B: shared memory serves them without bank conflicts.
// The kernels accumulating in float ask for two blocks per SM: left alone nvcc gives the f32
// vector kernel 139-143 registers a thread, one 256-thread block per SM and nothing to hide a
// slice's latency behind; capped at 128 it keeps two blocks resident and runs 1.04x faster (H200,
// 4096^2: 44.9 against 43.2 TFLOP/s). The f64 kernel needs its 232 registers.
constexpr int rb_m = 128, rb_n = 128, rb_k = 16;
template <class T, bool Vec>
__global__ void __launch_bounds__(256, sizeof(acc_t<T>) == 4 ? 2 : 1) regblock_kernel(const T* __restrict__ a, const T* __restrict__ b, out_t<T>* __restrict__ c, int n) {
  using A = acc_t<T>;
  // Two buffers in 32 KB for f32; f64 keeps one (two would pass the 48 KB of static shared memory).
  constexpr int stages = sizeof(A) == 8 ? 1 : 2;
  __shared__ __align__(16) A as[stages][rb_k][rb_m];
  __shared__ __align__(16) A bs[stages][rb_k][rb_n];
  const int tid = threadIdx.x;
  const int row0 = blockIdx.y * rb_m, col0 = blockIdx.x * rb_n;
  const int tr = tid / 16, tc = tid % 16;
  // Loading: A rows a_r and a_r + 64, 4 consecutive k from a_c; B rows b_r and b_r + 8, 4 consecutive columns from b_c.
  const int a_r = tid / 4, a_c = (tid % 4) * 4, b_r = tid / 32, b_c = (tid % 32) * 4;
  A ra[2][4], rbv[2][4];
  auto fetch4 = [&](const T* base, int r, int c0, A (&out)[4]) {
    if (Vec && r < n && c0 + 3 < n) {
      const float4 v = *reinterpret_cast<const float4*>(reinterpret_cast<const float*>(base) + static_cast<long long>(r) * n + c0);
      out[0] = v.x, out[1] = v.y, out[2] = v.z, out[3] = v.w;
    } else {
#pragma unroll
      for (int q = 0; q < 4; ++q) out[q] = (r < n && c0 + q < n) ? up(base[static_cast<long long>(r) * n + c0 + q]) : A(0);
    }
  };
  auto fetch = [&](int k0) {
    fetch4(a, row0 + a_r, k0 + a_c, ra[0]);
    fetch4(a, row0 + a_r + 64, k0 + a_c, ra[1]);
    fetch4(b, k0 + b_r, col0 + b_c, rbv[0]);
    fetch4(b, k0 + b_r + 8, col0 + b_c, rbv[1]);
  };
  auto stash = [&](int buf) {
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      as[buf][a_c + q][a_r] = ra[0][q];
      as[buf][a_c + q][a_r + 64] = ra[1][q];
    }
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      bs[buf][b_r][b_c + q] = rbv[0][q];
      bs[buf][b_r + 8][b_c + q] = rbv[1][q];
    }
  };
  A acc[8][8] = {};
  fetch(0);
  stash(0);
  __syncthreads();
  int buf = 0;
  for (int k0 = 0; k0 < n; k0 += rb_k) {
    const bool more = k0 + rb_k < n;
    if (more) fetch(k0 + rb_k);
#pragma unroll
    for (int k = 0; k < rb_k; ++k) {
      A av[8], bv[8];
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        av[q] = as[buf][k][tr * 4 + q];
        av[4 + q] = as[buf][k][64 + tr * 4 + q];
        bv[q] = bs[buf][k][tc * 4 + q];
        bv[4 + q] = bs[buf][k][64 + tc * 4 + q];
      }
#pragma unroll
      for (int x = 0; x < 8; ++x)
#pragma unroll
        for (int y = 0; y < 8; ++y) acc[x][y] += av[x] * bv[y];
    }
    if (more) {
      if constexpr (stages == 1) {
        __syncthreads();  // everyone has read the slice before it is replaced
        stash(0);
      } else {
        stash(buf ^ 1);
        buf ^= 1;
      }
      __syncthreads();
    }
  }
#pragma unroll
  for (int x = 0; x < 8; ++x) {
    const int i = row0 + (x < 4 ? tr * 4 + x : 64 + tr * 4 + x - 4);
    if (i >= n) continue;
#pragma unroll
    for (int y = 0; y < 8; ++y) {
      const int j = col0 + (y < 4 ? tc * 4 + y : 64 + tc * 4 + y - 4);
      if (j < n) c[static_cast<long long>(i) * n + j] = acc[x][y];
    }
  }
}

// The cuBLAS functions the lab calls, loaded on first use (see lazy_library.hpp). cublasGemmEx is
// overloaded in C++, so its C entry point's type is spelled out.
using GemmExFn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*, const void*,
                                    cudaDataType, int, const void*, cudaDataType, int, const void*, void*, cudaDataType, int,
                                    cublasComputeType_t, cublasGemmAlgo_t);
struct CublasApi {
  decltype(&cublasCreate_v2) create;
  decltype(&cublasDestroy_v2) destroy;
  decltype(&cublasSetStream_v2) set_stream;
  decltype(&cublasSetMathMode) set_math_mode;
  decltype(&cublasSgemm_v2) sgemm;
  decltype(&cublasDgemm_v2) dgemm;
  GemmExFn gemm_ex;
  decltype(&cublasGetStatusString) status_string;
};

const CublasApi& cublas() {
  static const LazyLibrary lib({GPUVIS_CUBLAS_PATH, "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR), "libcublas.so"}, "cuBLAS");
  static const CublasApi api{lib.get<decltype(&cublasCreate_v2)>("cublasCreate_v2"), lib.get<decltype(&cublasDestroy_v2)>("cublasDestroy_v2"),
                             lib.get<decltype(&cublasSetStream_v2)>("cublasSetStream_v2"), lib.get<decltype(&cublasSetMathMode)>("cublasSetMathMode"),
                             lib.get<decltype(&cublasSgemm_v2)>("cublasSgemm_v2"), lib.get<decltype(&cublasDgemm_v2)>("cublasDgemm_v2"),
                             lib.get<GemmExFn>("cublasGemmEx"), lib.get<decltype(&cublasGetStatusString)>("cublasGetStatusString")};
  return api;
}

void check_cublas(cublasStatus_t s) {
  if (s != CUBLAS_STATUS_SUCCESS) fail(ErrorCode::cuda, std::string("cuBLAS call failed: ") + cublas().status_string(s));
}

struct Cublas {
  cublasHandle_t h = nullptr;
  // Default math: no TF32 for f32, the SGEMM this lab compares the f32 kernels with; TF32 tensor
  // math for cublas-tf32, the peer of the TF32 tensor-core kernel.
  Cublas(cudaStream_t s, bool tf32) {
    check_cublas(cublas().create(&h));
    check_cublas(cublas().set_stream(h, s));
    check_cublas(cublas().set_math_mode(h, tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH));
  }
  ~Cublas() { cublas().destroy(h); }
};

template <class T>
void launch(MatmulImpl impl, const T* a, const T* b, out_t<T>* c, int n, cudaStream_t s, Cublas* blas) {
  const unsigned g32 = static_cast<unsigned>((n + 31) / 32), g128 = static_cast<unsigned>((n + 127) / 128);
  switch (impl) {
    case MatmulImpl::naive_blocks:
      naive_blocks_kernel<T><<<dim3(n, n), 1, 0, s>>>(a, b, c, n);
      break;
    case MatmulImpl::naive:
      naive_kernel<T><<<dim3((n + 15) / 16, (n + 15) / 16), dim3(16, 16), 0, s>>>(a, b, c, n);
      break;
    case MatmulImpl::tiled:
      tiled_kernel<T><<<dim3(g32, g32), dim3(tile, tile), 0, s>>>(a, b, c, n);
      break;
    case MatmulImpl::regblock:
      if constexpr (std::is_same_v<T, float>) {
        if (n % 4 == 0) regblock_kernel<T, true><<<dim3(g128, g128), 256, 0, s>>>(a, b, c, n);
        else regblock_kernel<T, false><<<dim3(g128, g128), 256, 0, s>>>(a, b, c, n);
      } else {
        regblock_kernel<T, false><<<dim3(g128, g128), 256, 0, s>>>(a, b, c, n);
      }
      break;
    case MatmulImpl::tensor:
      if (cuda::current_device_major() < 8)
        fail(ErrorCode::unsupported, "the tensor-core kernel needs compute capability 8.0 or newer (mma.sync on bf16, TF32 and f64)");
      launch_tensor(a, b, c, n, s);
      break;
    case MatmulImpl::cublas_tf32:
      if constexpr (std::is_same_v<T, float>) {
        const float one = 1, zero = 0;
        check_cublas(cublas().sgemm(blas->h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b, n, a, n, &zero, c, n));
      } else {
        fail(ErrorCode::invalid_argument, "cublas-tf32 multiplies f32 matrices");
      }
      break;
    case MatmulImpl::cublas: {
      // Row-major C = A B is column-major C^T = B^T A^T: pass B first.
      if constexpr (std::is_same_v<T, float>) {
        const float one = 1, zero = 0;
        check_cublas(cublas().sgemm(blas->h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b, n, a, n, &zero, c, n));
      } else if constexpr (std::is_same_v<T, double>) {
        const double one = 1, zero = 0;
        check_cublas(cublas().dgemm(blas->h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b, n, a, n, &zero, c, n));
      } else {
        const float one = 1, zero = 0;
        check_cublas(cublas().gemm_ex(blas->h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b, CUDA_R_16BF, n, a, CUDA_R_16BF, n, &zero, c,
                                  CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
      }
      break;
    }
    case MatmulImpl::cpu:
      fail(ErrorCode::invalid_argument, "the CPU product does not run on the device");
  }
  GPUVIS_CUDA_CHECK(cudaGetLastError());  // a launch the device refuses is an error, never a silent 0 ms
}

template <class T>
MatmulRun run(MatmulImpl impl, int n, const std::vector<double>& a, const std::vector<double>& b, std::vector<double>& c, int runs) {
  using O = out_t<T>;
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  PinnedArray<T> ha(nn), hb(nn);
  PinnedArray<O> hc(nn);
  for (std::size_t i = 0; i < nn; ++i) {
    ha.p[i] = static_cast<T>(static_cast<float>(a[i]));
    hb.p[i] = static_cast<T>(static_cast<float>(b[i]));
    if constexpr (std::is_same_v<T, double>) ha.p[i] = a[i], hb.p[i] = b[i];
  }
  DeviceArray<T> da(nn), db(nn);
  DeviceArray<O> dc(nn);
  cuda::Stream stream;
  const cudaStream_t s = stream.get();
  std::unique_ptr<Cublas> blas;
  if (impl == MatmulImpl::cublas || impl == MatmulImpl::cublas_tf32) blas = std::make_unique<Cublas>(s, impl == MatmulImpl::cublas_tf32);
  cuda::Event start, end;
  const cudaEvent_t e0 = start.get(), e1 = end.get();

  auto upload = [&] {
    GPUVIS_CUDA_CHECK(cudaMemcpyAsync(da.p, ha.p, nn * sizeof(T), cudaMemcpyHostToDevice, s));
    GPUVIS_CUDA_CHECK(cudaMemcpyAsync(db.p, hb.p, nn * sizeof(T), cudaMemcpyHostToDevice, s));
  };
  auto download = [&] { GPUVIS_CUDA_CHECK(cudaMemcpyAsync(hc.p, dc.p, nn * sizeof(O), cudaMemcpyDeviceToHost, s)); };
  auto timed = [&](auto&& body) {
    GPUVIS_CUDA_CHECK(cudaEventRecord(e0, s));
    body();
    GPUVIS_CUDA_CHECK(cudaEventRecord(e1, s));
    GPUVIS_CUDA_CHECK(cudaEventSynchronize(e1));
    float ms = 0;
    GPUVIS_CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
    return ms * 1000.0;
  };

  upload();
  GPUVIS_CUDA_CHECK(cudaMemsetAsync(dc.p, 0, nn * sizeof(O), s));
  // Warm-up (two runs); slow kernels (over half a second) are then timed three times.
  double first = timed([&] { launch<T>(impl, da.p, db.p, dc.p, n, s, blas.get()); });
  first = std::min(first, timed([&] { launch<T>(impl, da.p, db.p, dc.p, n, s, blas.get()); }));
  const int kernel_runs = first > 5e5 ? 3 : runs;
  std::vector<double> kernel, e2e;
  for (int r = 0; r < kernel_runs; ++r) kernel.push_back(timed([&] { launch<T>(impl, da.p, db.p, dc.p, n, s, blas.get()); }));
  for (int r = 0; r < std::min(kernel_runs, 5); ++r)
    e2e.push_back(timed([&] {
      upload();
      launch<T>(impl, da.p, db.p, dc.p, n, s, blas.get());
      download();
    }));
  c.assign(hc.p, hc.p + nn);
  return {median(kernel), median(e2e)};
}

}  // namespace

MatmulRun matmul(MatmulImpl impl, Precision precision, int n, const std::vector<double>& a, const std::vector<double>& b,
                 std::vector<double>& c, int runs) {
  switch (precision) {
    case Precision::f32: return run<float>(impl, n, a, b, c, runs);
    case Precision::f64: return run<double>(impl, n, a, b, c, runs);
    case Precision::bf16: return run<bf16>(impl, n, a, b, c, runs);
  }
  return {};
}

}  // namespace gpuvis::lab::cuda_impl

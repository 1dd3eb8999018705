// Tensor-core matrix products. A block of 256 threads computes a BM x BN tile of C over k-slices of
// BK staged in shared memory by asynchronous copies (cp.async), STAGES slices in flight, so global
// loads of later slices overlap the multiplications of the current one. Each of the 8 warps owns a
// WM x WN piece of the tile and feeds the tensor cores from shared memory: ldmatrix for bf16 (and
// for TF32's A operand, whose 32-bit elements it moves as pairs of 16-bit ones), plain shared loads
// for the rest. Row pitches are padded so that the eight 16-byte rows one ldmatrix reads, and the
// lanes of one shared load, fall in different banks. Fragment layouts: the PTX ISA's mma.sync
// sections (m16n8k16 bf16, m16n8k8 tf32, m8n8k4 and m16n8k8 f64).
#include "lab/cuda/matmul_tensor.cuh"

#include "cuda/check.hpp"
#include "gpuvis/cuda/runtime.hpp"

namespace gpuvis::lab::cuda_impl {
namespace {

using bf16 = __nv_bfloat16;

// mma.sync on bf16/TF32/f64 and cp.async exist from compute capability 8.0 on: older machine code
// gets a kernel that traps, which the host never launches there (it checks the device first).
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
#define GPUVIS_LAB_MMA 1
#endif

// Per element type: the output type and the row padding (elements) of the A and B tiles. With
// these pitches ldmatrix's eight rows start 16 bytes apart modulo 128 (bf16, TF32's A), and the
// lanes of TF32's B loads and of f64's loads hit distinct banks.
template <class T> struct Op;
template <> struct Op<bf16> { using out = float; static constexpr int pad_a = 8, pad_b = 8; };
template <> struct Op<float> { using out = float; static constexpr int pad_a = 4, pad_b = 8; };
template <> struct Op<double> { using out = double; static constexpr int pad_a = 4, pad_b = 4; };

template <class T, int BM, int BN, int BK, int WARPS_M, int STAGES, int SHAPE = 0>
struct Tile {
  static constexpr int bm = BM, bn = BN, bk = BK, stages = STAGES, shape = SHAPE;
  static constexpr int warps_n = 8 / WARPS_M, wm = BM / WARPS_M, wn = BN / warps_n;
  static constexpr int pitch_a = BK + Op<T>::pad_a, pitch_b = BN + Op<T>::pad_b;
  static constexpr int a_elems = BM * pitch_a, stage_elems = a_elems + BK * pitch_b;
  static constexpr std::size_t smem_bytes = static_cast<std::size_t>(STAGES) * stage_elems * sizeof(T);
};

#ifdef GPUVIS_LAB_MMA
__device__ __forceinline__ unsigned smem_address(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

// 16 bytes from global to shared memory, or 16 zero bytes when `in` is false (src is then not read).
__device__ __forceinline__ void copy16_async(void* dst, const void* src, bool in) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_address(dst)), "l"(src), "r"(in ? 16 : 0));
}
__device__ __forceinline__ void commit_copies() { asm volatile("cp.async.commit_group;\n" ::); }
template <int Pending>
__device__ __forceinline__ void wait_copies() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending));
}

// ROWS x COLS elements of the n x n matrix m from (r0, c0) into a tile of row pitch `pitch`, zeros
// outside the matrix. Aligned (n a multiple of 16 bytes' elements): every 16-byte piece is wholly
// in or out, and is copied asynchronously; else element by element.
template <class T, int ROWS, int COLS, bool Aligned>
__device__ __forceinline__ void load_tile(T* tile, int pitch, const T* m, int n, int r0, int c0) {
  constexpr int per_copy = 16 / sizeof(T), per_row = COLS / per_copy;
  for (int q = threadIdx.x; q < ROWS * per_row; q += 256) {
    const int r = q / per_row, c = (q % per_row) * per_copy, gr = r0 + r, gc = c0 + c;
    T* dst = tile + r * pitch + c;
    if constexpr (Aligned) {
      const bool in = gr < n && gc < n;
      copy16_async(dst, in ? m + static_cast<long long>(gr) * n + gc : m, in);
    } else {
#pragma unroll
      for (int e = 0; e < per_copy; ++e)
        dst[e] = (gr < n && gc + e < n) ? m[static_cast<long long>(gr) * n + gc + e] : static_cast<T>(0.0f);
    }
  }
}

__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_address(p)));
}
__device__ __forceinline__ void ldmatrix_x4_trans(unsigned (&r)[4], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_address(p)));
}
__device__ __forceinline__ unsigned to_tf32(float x) {
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
  return r;
}

// One k-step's operands of a warp's WM x WN piece (load: from the slice in shared memory at k0)
// and its products (multiply: acc += A B on the tensor cores). Per type and mma shape.
template <class T, class Cfg, int Shape> struct Step;

// bf16, m16n8k16.
template <class Cfg> struct Step<bf16, Cfg, 0> {
  static constexpr int k = 16, mt = Cfg::wm / 16, nt = Cfg::wn / 8;
  unsigned a[mt][4], b[nt][2];
  __device__ __forceinline__ void load(const bf16* as, const bf16* bs, int k0, int wm0, int wn0, int lane) {
#pragma unroll
    for (int i = 0; i < mt; ++i) ldmatrix_x4(a[i], as + (wm0 + i * 16 + lane % 16) * Cfg::pitch_a + k0 + (lane / 16) * 8);
#pragma unroll
    for (int j = 0; j < nt; j += 2) {  // four 8 x 8 blocks of B: k 0-7 and 8-15 of two 8-column tiles
      unsigned r[4];
      ldmatrix_x4_trans(r, bs + (k0 + lane % 16) * Cfg::pitch_b + wn0 + j * 8 + (lane / 16) * 8);
      b[j][0] = r[0], b[j][1] = r[1], b[j + 1][0] = r[2], b[j + 1][1] = r[3];
    }
  }
  __device__ __forceinline__ void multiply(float (&acc)[mt][nt][4]) const {
#pragma unroll
    for (int i = 0; i < mt; ++i)
#pragma unroll
      for (int j = 0; j < nt; ++j)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                     : "+f"(acc[i][j][0]), "+f"(acc[i][j][1]), "+f"(acc[i][j][2]), "+f"(acc[i][j][3])
                     : "r"(a[i][0]), "r"(a[i][1]), "r"(a[i][2]), "r"(a[i][3]), "r"(b[j][0]), "r"(b[j][1]));
  }
};

// f32 rounded to TF32, m16n8k8.
template <class Cfg> struct Step<float, Cfg, 0> {
  static constexpr int k = 8, mt = Cfg::wm / 16, nt = Cfg::wn / 8;
  unsigned a[mt][4], b[nt][2];
  __device__ __forceinline__ void load(const float* as, const float* bs, int k0, int wm0, int wn0, int lane) {
#pragma unroll
    for (int i = 0; i < mt; ++i) {  // 8 x 4-float blocks: rows 0-7 / 8-15, k 0-3 / 4-7 (a0..a3)
      ldmatrix_x4(a[i], as + (wm0 + i * 16 + lane % 16) * Cfg::pitch_a + k0 + (lane / 16) * 4);
#pragma unroll
      for (int q = 0; q < 4; ++q) a[i][q] = to_tf32(__uint_as_float(a[i][q]));
    }
#pragma unroll
    for (int j = 0; j < nt; ++j) {
      const float* col = bs + wn0 + j * 8 + lane / 4;
      b[j][0] = to_tf32(col[(k0 + lane % 4) * Cfg::pitch_b]);
      b[j][1] = to_tf32(col[(k0 + lane % 4 + 4) * Cfg::pitch_b]);
    }
  }
  __device__ __forceinline__ void multiply(float (&acc)[mt][nt][4]) const {
#pragma unroll
    for (int i = 0; i < mt; ++i)
#pragma unroll
      for (int j = 0; j < nt; ++j)
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                     : "+f"(acc[i][j][0]), "+f"(acc[i][j][1]), "+f"(acc[i][j][2]), "+f"(acc[i][j][3])
                     : "r"(a[i][0]), "r"(a[i][1]), "r"(a[i][2]), "r"(a[i][3]), "r"(b[j][0]), "r"(b[j][1]));
  }
};

// f64, m8n8k4 (compute capability 8.0 on): one element of A and of B per lane.
template <class Cfg> struct Step<double, Cfg, 0> {
  static constexpr int k = 4, mt = Cfg::wm / 8, nt = Cfg::wn / 8;
  double a[mt], b[nt];
  __device__ __forceinline__ void load(const double* as, const double* bs, int k0, int wm0, int wn0, int lane) {
#pragma unroll
    for (int i = 0; i < mt; ++i) a[i] = as[(wm0 + i * 8 + lane / 4) * Cfg::pitch_a + k0 + lane % 4];
#pragma unroll
    for (int j = 0; j < nt; ++j) b[j] = bs[(k0 + lane % 4) * Cfg::pitch_b + wn0 + j * 8 + lane / 4];
  }
  __device__ __forceinline__ void multiply(double (&acc)[mt][nt][2]) const {
#pragma unroll
    for (int i = 0; i < mt; ++i)
#pragma unroll
      for (int j = 0; j < nt; ++j)
        asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
                     : "+d"(acc[i][j][0]), "+d"(acc[i][j][1])
                     : "d"(a[i]), "d"(b[j]));
  }
};

// f64, m16n8k8 (compute capability 9.0): A as TF32's layout, B two elements per lane.
template <class Cfg> struct Step<double, Cfg, 1> {
  static constexpr int k = 8, mt = Cfg::wm / 16, nt = Cfg::wn / 8;
  double a[mt][4], b[nt][2];
  __device__ __forceinline__ void load(const double* as, const double* bs, int k0, int wm0, int wn0, int lane) {
#pragma unroll
    for (int i = 0; i < mt; ++i) {
      const double* r = as + (wm0 + i * 16 + lane / 4) * Cfg::pitch_a + k0 + lane % 4;
      a[i][0] = r[0], a[i][1] = r[8 * Cfg::pitch_a], a[i][2] = r[4], a[i][3] = r[8 * Cfg::pitch_a + 4];
    }
#pragma unroll
    for (int j = 0; j < nt; ++j) {
      const double* col = bs + wn0 + j * 8 + lane / 4;
      b[j][0] = col[(k0 + lane % 4) * Cfg::pitch_b];
      b[j][1] = col[(k0 + lane % 4 + 4) * Cfg::pitch_b];
    }
  }
  __device__ __forceinline__ void multiply(double (&acc)[mt][nt][4]) const {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
#pragma unroll
    for (int i = 0; i < mt; ++i)
#pragma unroll
      for (int j = 0; j < nt; ++j)
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                     : "+d"(acc[i][j][0]), "+d"(acc[i][j][1]), "+d"(acc[i][j][2]), "+d"(acc[i][j][3])
                     : "d"(a[i][0]), "d"(a[i][1]), "d"(a[i][2]), "d"(a[i][3]), "d"(b[j][0]), "d"(b[j][1]));
#else
    (void)acc;
    __trap();
#endif
  }
};

// One k-slice of the warp's piece, the operands of step s + 1 loaded before the products of step s
// are issued (two sets of fragment registers), so shared-memory latency hides behind the mma.
template <class T, class Cfg, int Shape, class Acc>
__device__ __forceinline__ void multiply_slice(const T* as, const T* bs, int wm0, int wn0, int lane, Acc& acc) {
  using S = Step<T, Cfg, Shape>;
  constexpr int steps = Cfg::bk / S::k;
  S frag[2];
  frag[0].load(as, bs, 0, wm0, wn0, lane);
#pragma unroll
  for (int s = 0; s < steps; ++s) {
    if (s + 1 < steps) frag[(s + 1) % 2].load(as, bs, (s + 1) * S::k, wm0, wn0, lane);
    frag[s % 2].multiply(acc);
  }
}

// C[row][col], C[row][col + 1] where inside; one 8- or 16-byte store when both are and n is even.
template <class O>
__device__ __forceinline__ void store_pair(O* c, int n, int row, int col, O v0, O v1) {
  if (row >= n || col >= n) return;
  O* p = c + static_cast<long long>(row) * n + col;
  if (col + 1 >= n) {
    p[0] = v0;
  } else if (n % 2 == 0) {
    if constexpr (sizeof(O) == 4) *reinterpret_cast<float2*>(p) = make_float2(v0, v1);
    else *reinterpret_cast<double2*>(p) = make_double2(v0, v1);
  } else {
    p[0] = v0, p[1] = v1;
  }
}

// Accumulators: m16n8 tiles of four values (bf16 and TF32 in f32, f64 in the m16n8k8 shape), or
// m8n8 tiles of two doubles (f64, m8n8k4).
template <class T, class Cfg, int Shape> struct Accumulators { typename Op<T>::out v[Cfg::wm / 16][Cfg::wn / 8][4] = {}; };
template <class Cfg> struct Accumulators<double, Cfg, 0> { double v[Cfg::wm / 8][Cfg::wn / 8][2] = {}; };
#endif

template <class T, class Cfg, bool Aligned>
__global__ void __launch_bounds__(256) mma_kernel(const T* __restrict__ a, const T* __restrict__ b, typename Op<T>::out* __restrict__ c, int n) {
  static_assert(Cfg::bk % 16 == 0 && Cfg::wm % 16 == 0 && Cfg::wn % 16 == 0 && Cfg::stages >= 2 && Cfg::shape >= 0,
                "a slice is whole mma steps, a warp whole fragments, and one slice loads while another is used");
#ifdef GPUVIS_LAB_MMA
  extern __shared__ __align__(16) unsigned char smem[];
  T* const tiles = reinterpret_cast<T*>(smem);
  // Block order: groups of 8 block rows sweep the columns together, so the panels of B they share
  // are still in L2 when the group's next block row reads them.
  const int grid_m = (n + Cfg::bm - 1) / Cfg::bm, grid_n = (n + Cfg::bn - 1) / Cfg::bn;
  const int per_group = 8 * grid_n, first = static_cast<int>(blockIdx.x) / per_group * 8;
  const int rows_in_group = min(grid_m - first, 8), in_group = static_cast<int>(blockIdx.x) % per_group;
  const int row0 = (first + in_group % rows_in_group) * Cfg::bm, col0 = in_group / rows_in_group * Cfg::bn;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int wm0 = warp / Cfg::warps_n * Cfg::wm, wn0 = warp % Cfg::warps_n * Cfg::wn;
  const int k_tiles = (n + Cfg::bk - 1) / Cfg::bk;
  auto load = [&](int kt) {
    T* s = tiles + (kt % Cfg::stages) * Cfg::stage_elems;
    load_tile<T, Cfg::bm, Cfg::bk, Aligned>(s, Cfg::pitch_a, a, n, row0, kt * Cfg::bk);
    load_tile<T, Cfg::bk, Cfg::bn, Aligned>(s + Cfg::a_elems, Cfg::pitch_b, b, n, kt * Cfg::bk, col0);
  };
  Accumulators<T, Cfg, Cfg::shape> acc;
#pragma unroll
  for (int s = 0; s < Cfg::stages - 1; ++s) {
    if (s < k_tiles) load(s);
    commit_copies();  // one group per slice, empty ones included, so the wait below counts slices
  }
  for (int kt = 0; kt < k_tiles; ++kt) {
    wait_copies<Cfg::stages - 2>();  // slice kt has landed
    __syncthreads();                 // ... for every thread, and all are done with slice kt - 1
    if (kt + Cfg::stages - 1 < k_tiles) load(kt + Cfg::stages - 1);  // into slice kt - 1's buffer
    commit_copies();
    const T* s = tiles + (kt % Cfg::stages) * Cfg::stage_elems;
    multiply_slice<T, Cfg, Cfg::shape>(s, s + Cfg::a_elems, wm0, wn0, lane, acc.v);
  }
  const int g = lane / 4, t2 = lane % 4 * 2;
  if constexpr (sizeof(T) == 8 && Cfg::shape == 0) {
#pragma unroll
    for (int i = 0; i < Cfg::wm / 8; ++i)
#pragma unroll
      for (int j = 0; j < Cfg::wn / 8; ++j)
        store_pair(c, n, row0 + wm0 + i * 8 + g, col0 + wn0 + j * 8 + t2, acc.v[i][j][0], acc.v[i][j][1]);
  } else {
#pragma unroll
    for (int i = 0; i < Cfg::wm / 16; ++i)
#pragma unroll
      for (int j = 0; j < Cfg::wn / 8; ++j) {
        const int row = row0 + wm0 + i * 16 + g, col = col0 + wn0 + j * 8 + t2;
        store_pair(c, n, row, col, acc.v[i][j][0], acc.v[i][j][1]);
        store_pair(c, n, row + 8, col, acc.v[i][j][2], acc.v[i][j][3]);
      }
  }
#else
  __trap();
#endif
}

template <class T, class Cfg, bool Aligned>
void launch_tile(const T* a, const T* b, typename Op<T>::out* c, int n, cudaStream_t stream) {
  static const bool ready = [] {  // more than 48 KB of dynamic shared memory is opted into once
    GPUVIS_CUDA_CHECK(cudaFuncSetAttribute(mma_kernel<T, Cfg, Aligned>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(Cfg::smem_bytes)));
    return true;
  }();
  (void)ready;
  const unsigned blocks = static_cast<unsigned>((n + Cfg::bm - 1) / Cfg::bm) * static_cast<unsigned>((n + Cfg::bn - 1) / Cfg::bn);
  mma_kernel<T, Cfg, Aligned><<<blocks, 256, Cfg::smem_bytes, stream>>>(a, b, c, n);
}

template <class T, class Cfg>
void launch_any(const T* a, const T* b, typename Op<T>::out* c, int n, cudaStream_t stream) {
  if (n % (16 / static_cast<int>(sizeof(T))) == 0) launch_tile<T, Cfg, true>(a, b, c, n, stream);
  else launch_tile<T, Cfg, false>(a, b, c, n, stream);
}

}  // namespace

// Block tiles: BM x BN x BK, warps along m, slices in flight (and f64's mma shape), the fastest of
// those tried on an H200 at n = 4096 (bf16, f32) and 2048 (f64); docs/benchmarks/lab.md.
void launch_tensor(const bf16* a, const bf16* b, float* c, int n, cudaStream_t stream) {
#if GPUVIS_LAB_WGMMA
  if (cuda::current_device_major() == 9 && n % 8 == 0) return launch_tensor_wgmma(a, b, c, n, stream);
#endif
  launch_any<bf16, Tile<bf16, 128, 128, 64, 2, 3>>(a, b, c, n, stream);
}

void launch_tensor(const float* a, const float* b, float* c, int n, cudaStream_t stream) {
#if GPUVIS_LAB_WGMMA
  if (cuda::current_device_major() == 9 && n % 4 == 0) return launch_tensor_wgmma(a, b, c, n, stream);
#endif
  launch_any<float, Tile<float, 128, 256, 32, 2, 3>>(a, b, c, n, stream);
}

void launch_tensor(const double* a, const double* b, double* c, int n, cudaStream_t stream) {
  // Hopper's m16n8k8 moves four times m8n8k4's work per instruction: 1.5x the speed there.
  if (cuda::current_device_major() >= 9) launch_any<double, Tile<double, 128, 128, 16, 2, 3, 1>>(a, b, c, n, stream);
  else launch_any<double, Tile<double, 128, 128, 16, 2, 3, 0>>(a, b, c, n, stream);
}

}  // namespace gpuvis::lab::cuda_impl

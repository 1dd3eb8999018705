// Hopper's warpgroup matrix products (wgmma, sm_90a) for the lab's tensor-core kernel. A block of
// two warpgroups computes a 128 x 256 tile of C, each warpgroup 64 rows with one
// wgmma.m64n256 per k-step, its operands read by the tensor cores straight from shared memory.
// Slices of 128 bytes of k (64 bf16 or 32 TF32 values) are copied in with cp.async, four buffers
// deep, two slices ahead, in the 128-byte swizzled K-major layout the wgmma descriptors name: each
// 8-row group of a tile is 1024 bytes, and 16-byte piece c of row r sits at piece c ^ (r mod 8),
// so the tensor cores read eight rows without bank conflicts. wgmma reads B K-major as well (for
// TF32 it must), so B is first transposed into a scratch matrix, TF32 inputs rounded to nearest on
// the way (the tensor cores would truncate them); that pass is part of the timed product.
#include "lab/cuda/matmul_tensor.cuh"

#include <cstdint>
#include <mutex>

#include "cuda/check.hpp"
#include "cuda/memory.hpp"

namespace gpuvis::lab::cuda_impl {
namespace {

using bf16 = __nv_bfloat16;

#if defined(__CUDA_ARCH_FEAT_SM90_ALL) || !defined(__CUDA_ARCH__)
#define GPUVIS_LAB_WGMMA_CODE 1
#endif

constexpr int kTile = 128, kStages = 4, kAhead = kStages - 2, kThreads = 256;  // kTile: rows of C per block
constexpr int kTileBytes = kTile * 128;  // A's slice: 128 rows of 128 bytes
// Shared memory for BN columns of C per block: per stage A's slice and BN rows of B^T's, + room to
// align to 1024 bytes.
constexpr int smem_bytes(int bn) { return kStages * (kTileBytes + bn * 128) + 1024; }

__device__ __forceinline__ unsigned smem_address(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

// The wgmma descriptor of a K-major operand in the 128-byte swizzle: start address, 8-row groups
// 1024 bytes apart (the leading offset is unused in this layout).
__device__ __forceinline__ std::uint64_t descriptor(unsigned address) {
  return static_cast<std::uint64_t>((address & 0x3FFFF) >> 4) | (std::uint64_t{1} << 16) | (std::uint64_t{1024 >> 4} << 32) |
         (std::uint64_t{1} << 62);
}

#ifdef GPUVIS_LAB_WGMMA_CODE
// d (N / 2 floats per thread) += A B over one k-step of 32 bytes (bf16 k = 16, TF32 k = 8), for a
// 64 x N piece of C.
template <class T, int N>
__device__ __forceinline__ void wgmma_step(float (&d)[N / 2], std::uint64_t a, std::uint64_t b);
template <>
__device__ __forceinline__ void wgmma_step<bf16, 256>(float (&d)[128], std::uint64_t a, std::uint64_t b) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\nwgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, %128, %129, p, 1, 1, 0, 0;\n}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
               : "l"(a), "l"(b), "r"(1));  // scale-d 1: D += A B
}
template <>
__device__ __forceinline__ void wgmma_step<float, 256>(float (&d)[128], std::uint64_t a, std::uint64_t b) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\nwgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, %128, %129, p, 1, 1;\n}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
               : "l"(a), "l"(b), "r"(1));  // scale-d 1: D += A B
}

// Keeps the compiler from moving the accumulators between registers while the tensor cores own
// them (from a wgmma's issue to the wait for it).
template <int M>
__device__ __forceinline__ void pin(float (&d)[M]) {
#pragma unroll
  for (int i = 0; i < M; ++i) asm volatile("" : "+f"(d[i])::"memory");
}
#endif

// One Rows x 128-byte slice of an n x n row-major matrix from (r0, byte column k0 * sizeof(T)) into
// a swizzled tile; pieces outside the matrix are zeros (n is a multiple of 16 bytes' elements).
template <class T, int Rows>
__device__ __forceinline__ void load_slice(unsigned tile, const T* m, int n, int r0, int k0) {
  constexpr int per_piece = 16 / sizeof(T);
  for (int q = threadIdx.x; q < Rows * 8; q += kThreads) {
    const int r = q / 8, c = q % 8, gr = r0 + r, gk = k0 + c * per_piece;
    const bool in = gr < n && gk < n;
    const T* src = in ? m + static_cast<long long>(gr) * n + gk : m;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(tile + r * 128 + ((c ^ (r & 7)) << 4)), "l"(src), "r"(in ? 16 : 0));
  }
}

// C = A B^T-stored: `bt` holds B transposed (row j = column j of B), both K-major.
template <class T, int BN>
__global__ void __launch_bounds__(kThreads, 1) wgmma_kernel(const T* __restrict__ a, const T* __restrict__ bt, float* __restrict__ c, int n) {
#ifdef GPUVIS_LAB_WGMMA_CODE
  extern __shared__ unsigned char smem[];
  const unsigned base = (smem_address(smem) + 1023) & ~1023u;  // the swizzle repeats every 1024 bytes
  constexpr int stage_bytes = kTileBytes + BN * 128;
  auto a_tile = [&](int slot) { return base + slot * stage_bytes; };
  auto b_tile = [&](int slot) { return base + slot * stage_bytes + kTileBytes; };
  constexpr int k_slice = 128 / sizeof(T);
  // Groups of 8 block rows sweep the columns together, so their panels of B stay in L2.
  const int grid_m = (n + kTile - 1) / kTile, grid_n = (n + BN - 1) / BN;
  const int per_group = 8 * grid_n, first = static_cast<int>(blockIdx.x) / per_group * 8;
  const int rows_in_group = min(grid_m - first, 8), in_group = static_cast<int>(blockIdx.x) % per_group;
  const int row0 = (first + in_group % rows_in_group) * kTile, col0 = in_group / rows_in_group * BN;
  const int group = threadIdx.x / 128, k_tiles = (n + k_slice - 1) / k_slice;
  auto load = [&](int kt) {
    load_slice<T, kTile>(a_tile(kt % kStages), a, n, row0, kt * k_slice);
    load_slice<T, BN>(b_tile(kt % kStages), bt, n, col0, kt * k_slice);
  };
  float d[BN / 2];
#pragma unroll
  for (int i = 0; i < BN / 2; ++i) d[i] = 0.0f;
  pin(d);
#pragma unroll
  for (int s = 0; s < kAhead; ++s) {
    if (s < k_tiles) load(s);
    asm volatile("cp.async.commit_group;\n" ::);
  }
  for (int kt = 0; kt < k_tiles; ++kt) {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(kAhead - 1));  // slice kt has landed
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");  // ... and is visible to the tensor cores
    __syncthreads();  // for every thread; every warpgroup is also done with slice kt - 2 (waited below)
    if (kt + kAhead < k_tiles) load(kt + kAhead);  // into slice kt - 2's buffers
    asm volatile("cp.async.commit_group;\n" ::);
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    pin(d);
    const unsigned at = a_tile(kt % kStages) + group * 64 * 128, bt_at = b_tile(kt % kStages);
#pragma unroll
    for (int s = 0; s < 4; ++s) wgmma_step<T, BN>(d, descriptor(at + s * 32), descriptor(bt_at + s * 32));
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");  // slice kt - 1's products are done
    pin(d);
  }
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  pin(d);
  // Accumulator layout: warp w of the group holds rows 16w .. 16w + 15; d[4j .. 4j + 3] are
  // columns 8j + 2t, + 1 of rows g and g + 8 (g = lane / 4, t = lane % 4), as in mma.sync's m16n8.
  const int warp = threadIdx.x % 128 / 32, lane = threadIdx.x % 32;
  const int row = row0 + group * 64 + warp * 16 + lane / 4;
#pragma unroll
  for (int j = 0; j < BN / 8; ++j) {
    const int col = col0 + j * 8 + lane % 4 * 2;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int r = row + h * 8;
      if (r >= n || col >= n) continue;
      float* p = c + static_cast<long long>(r) * n + col;
      if (col + 1 < n) *reinterpret_cast<float2*>(p) = make_float2(d[j * 4 + h * 2], d[j * 4 + h * 2 + 1]);
      else p[0] = d[j * 4 + h * 2];
    }
  }
#else
  __trap();
#endif
}

// B^T of an n x n matrix (TF32: each value rounded to nearest TF32, as cvt.rna does), by 32 x 32
// tiles through shared memory so both the reads and the writes are whole rows.
template <class T>
__global__ void transpose_kernel(const T* __restrict__ b, T* __restrict__ bt, int n) {
  __shared__ T tile[32][33];
  const int x = blockIdx.x * 32 + threadIdx.x;
  for (int y = blockIdx.y * 32 + threadIdx.y, i = threadIdx.y; i < 32; y += 8, i += 8)
    if (x < n && y < n) tile[i][threadIdx.x] = b[static_cast<long long>(y) * n + x];
  __syncthreads();
  const int tx = blockIdx.y * 32 + threadIdx.x;
  for (int ty = blockIdx.x * 32 + threadIdx.y, i = threadIdx.y; i < 32; ty += 8, i += 8)
    if (tx < n && ty < n) {
      T v = tile[threadIdx.x][i];
      if constexpr (sizeof(T) == 4) {
        unsigned r;
        asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(v));
        v = __uint_as_float(r);
      }
      bt[static_cast<long long>(ty) * n + tx] = v;
    }
}

// A rounded to TF32 (TF32 only: bf16 A is used as it is).
__global__ void round_tf32_kernel(const float* __restrict__ a, float* __restrict__ out, long long count) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count; i += static_cast<long long>(gridDim.x) * blockDim.x) {
    unsigned r;
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(a[i]));
    out[i] = __uint_as_float(r);
  }
}

// Scratch matrices for B^T (and TF32's rounded A), kept between calls so a timed product does not
// allocate.
struct Scratch {
  std::mutex lock;
  cuda::DeviceBuffer bt, a;
};
Scratch& scratch() {
  static Scratch s;
  return s;
}

template <class T, int BN>
void launch_with(const T* a, const T* bt, float* c, int n, cudaStream_t stream) {
  static const bool ready = [] {
    GPUVIS_CUDA_CHECK(cudaFuncSetAttribute(wgmma_kernel<T, BN>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes(BN)));
    return true;
  }();
  (void)ready;
  const unsigned blocks = static_cast<unsigned>((n + kTile - 1) / kTile) * static_cast<unsigned>((n + BN - 1) / BN);
  wgmma_kernel<T, BN><<<blocks, kThreads, smem_bytes(BN), stream>>>(a, bt, c, n);
}

template <class T>
void launch(const T* a, const T* b, float* c, int n, cudaStream_t stream) {
  Scratch& s = scratch();
  std::lock_guard<std::mutex> hold(s.lock);
  const std::size_t count = static_cast<std::size_t>(n) * n;
  s.bt.reserve(count * sizeof(T));
  const unsigned tiles = static_cast<unsigned>((n + 31) / 32);
  transpose_kernel<T><<<dim3(tiles, tiles), dim3(32, 8), 0, stream>>>(b, s.bt.as<T>(), n);
  const T* a_used = a;
  if constexpr (sizeof(T) == 4) {
    s.a.reserve(count * sizeof(T));
    round_tf32_kernel<<<1024, 256, 0, stream>>>(a, s.a.as<float>(), static_cast<long long>(count));
    a_used = s.a.as<float>();
  }
  // 128 x 256 tiles: at n = 4096 on an H200 1.37x (bf16) and 1.37x (TF32) the speed of 128 x 128,
  // whose two warpgroups each read the whole slice of B for half the products.
  launch_with<T, 256>(a_used, s.bt.as<T>(), c, n, stream);
}

}  // namespace

void launch_tensor_wgmma(const bf16* a, const bf16* b, float* c, int n, cudaStream_t stream) { launch(a, b, c, n, stream); }
void launch_tensor_wgmma(const float* a, const float* b, float* c, int n, cudaStream_t stream) { launch(a, b, c, n, stream); }

}  // namespace gpuvis::lab::cuda_impl

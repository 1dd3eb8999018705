// Hopper's warpgroup matrix products (wgmma, sm_90a) for the lab's tensor-core kernel. A block of
// three warpgroups computes a 128 x 256 tile of C: two consumers of 64 rows each, one
// wgmma.m64n256 per k-step with the operands read by the tensor cores straight from shared memory,
// and a producer whose one thread has the bulk tensor copy engine (TMA) bring in slices of 128
// bytes of k (64 bf16 or 32 TF32 values), four stages deep, each handed over on mbarriers. The
// copy engine writes the 128-byte swizzled K-major layout the wgmma descriptors name: each 8-row
// group of a tile is 1024 bytes, and 16-byte piece c of row r sits at piece c ^ (r mod 8), so the
// tensor cores read eight rows without bank conflicts. wgmma reads B K-major as well (for TF32 it
// must), so B is first transposed into a scratch matrix, TF32 inputs rounded to nearest on the way
// (the tensor cores would truncate them); that pass is part of the timed product.
#include "lab/cuda/matmul_tensor.cuh"

#include <cuda.h>
#include <cudaTypedefs.h>

#include <cstdint>
#include <mutex>
#include <string>

#include "cuda/check.hpp"
#include "cuda/memory.hpp"
#include "gpuvis/core/error.hpp"

namespace gpuvis::lab::cuda_impl {
namespace {

using bf16 = __nv_bfloat16;

#if defined(__CUDA_ARCH_FEAT_SM90_ALL) || !defined(__CUDA_ARCH__)
#define GPUVIS_LAB_WGMMA_CODE 1
#endif

constexpr int kTile = 128, kStages = 4;  // kTile: rows of C per block
constexpr int kTileBytes = kTile * 128;  // A's slice: 128 rows of 128 bytes
// Shared memory for BN columns of C per block: per stage A's slice and BN rows of B^T's, room to
// align to 1024 bytes, and two mbarriers per stage.
constexpr int smem_bytes(int bn) { return kStages * (kTileBytes + bn * 128) + 1024 + 2 * kStages * 8; }

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

// mbarriers in shared memory (the copy engine completes a stage's bytes on "full", the consumers
// release it on "empty").
__device__ __forceinline__ void barrier_init(unsigned bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void barrier_expect_bytes(unsigned bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void barrier_arrive(unsigned bar) { asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory"); }
// Waits until the barrier's phase of this parity has completed (a fresh barrier's phase "1" counts
// as complete, so a producer's first pass through the ring does not wait).
__device__ __forceinline__ void barrier_wait(unsigned bar, unsigned parity) {
  asm volatile(
      "{\n.reg .pred done;\nretry:\nmbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n@!done bra retry;\n}\n" ::"r"(bar), "r"(parity)
      : "memory");
}
// One box of a tensor map (x: the inner, k coordinate; y: the row) into shared memory, counted on bar.
__device__ __forceinline__ void copy_box(unsigned dst, const CUtensorMap* map, int x, int y, unsigned bar) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::"r"(dst),
               "l"(reinterpret_cast<std::uint64_t>(map)), "r"(x), "r"(y), "r"(bar)
               : "memory");
}

constexpr int kConsumers = 2, kThreads = 128 * (kConsumers + 1);

// C = A B^T-stored (the tensor maps' `bt` holds B transposed: row j = column j of B, both
// K-major). One thread of the first warpgroup (the producer) issues each stage's two boxes and the
// two consumer warpgroups multiply, so no barrier of the whole block stands between two slices and
// no consumer thread spends an instruction on loading: on an H200 at n = 4096, 1.44x (bf16) and
// 1.50x (TF32) the speed of the same tiles loaded by every thread with cp.async and a block
// barrier per slice.
template <class T, int BN>
__global__ void __launch_bounds__(kThreads, 1)
    wgmma_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map, float* __restrict__ c, int n) {
#ifdef GPUVIS_LAB_WGMMA_CODE
  extern __shared__ unsigned char smem[];
  const unsigned base = (smem_address(smem) + 1023) & ~1023u;  // the swizzle repeats every 1024 bytes
  constexpr int stage_bytes = kTileBytes + BN * 128;
  auto a_tile = [&](int slot) { return base + slot * stage_bytes; };
  auto b_tile = [&](int slot) { return base + slot * stage_bytes + kTileBytes; };
  const unsigned bars = base + kStages * stage_bytes;
  auto full = [&](int slot) { return bars + 8 * slot; };
  auto empty = [&](int slot) { return bars + 8 * (kStages + slot); };
  constexpr int k_slice = 128 / sizeof(T);
  // Groups of 8 block rows sweep the columns together, so their panels of B stay in L2.
  const int grid_m = (n + kTile - 1) / kTile, grid_n = (n + BN - 1) / BN;
  const int per_group = 8 * grid_n, first = static_cast<int>(blockIdx.x) / per_group * 8;
  const int rows_in_group = min(grid_m - first, 8), in_group = static_cast<int>(blockIdx.x) % per_group;
  const int row0 = (first + in_group % rows_in_group) * kTile, col0 = in_group / rows_in_group * BN;
  const int k_tiles = (n + k_slice - 1) / k_slice, role = threadIdx.x / 128;
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      barrier_init(full(s), 1);
      barrier_init(empty(s), kConsumers * 128);
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  if (role == 0) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n" ::: "memory");
    if (threadIdx.x == 0) {
      for (int kt = 0; kt < k_tiles; ++kt) {
        const int s = kt % kStages;
        barrier_wait(empty(s), ((kt / kStages) & 1) ^ 1);
        barrier_expect_bytes(full(s), stage_bytes);  // boxes reaching past the matrix still deliver every byte (zeros)
        copy_box(a_tile(s), &a_map, kt * k_slice, row0, full(s));
        copy_box(b_tile(s), &b_map, kt * k_slice, col0, full(s));
      }
    }
  } else {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n" ::: "memory");
    const int group = role - 1;
    float d[BN / 2];
#pragma unroll
    for (int i = 0; i < BN / 2; ++i) d[i] = 0.0f;
    pin(d);
    for (int kt = 0; kt < k_tiles; ++kt) {
      const int s = kt % kStages;
      barrier_wait(full(s), (kt / kStages) & 1);
      asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
      pin(d);
      const unsigned at = a_tile(s) + group * 64 * 128, bt_at = b_tile(s);
#pragma unroll
      for (int q = 0; q < 4; ++q) wgmma_step<T, BN>(d, descriptor(at + q * 32), descriptor(bt_at + q * 32));
      asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
      asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");  // slice kt - 1's products are done ...
      pin(d);
      if (kt > 0) barrier_arrive(empty((kt - 1) % kStages));  // ... so its stage may be refilled
    }
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    pin(d);
    // Accumulator layout: warp w of the group holds rows 16w .. 16w + 15; d[4j .. 4j + 3] are
    // columns 8j + 2t, + 1 of rows g and g + 8 (g = lane / 4, t = lane % 4), as in mma.sync's m16n8.
    const int thread = threadIdx.x - 128 * role, warp = thread / 32, lane = thread % 32;
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

// A tensor map of an n x n row-major matrix read in boxes of 128 bytes of k by `rows` rows, in the
// 128-byte swizzle the wgmma descriptors name; boxes past the edges are filled with zeros.
template <class T>
CUtensorMap tensor_map(const T* m, int n, int rows) {
  static const PFN_cuTensorMapEncodeTiled_v12000 encode = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found{};
    GPUVIS_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess || fn == nullptr) fail(ErrorCode::unsupported, "the CUDA driver has no cuTensorMapEncodeTiled");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
  }();
  CUtensorMap map{};
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(n), static_cast<cuuint64_t>(n)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(n) * sizeof(T)};
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(128 / sizeof(T)), static_cast<cuuint32_t>(rows)}, steps[2] = {1, 1};
  const CUtensorMapDataType type = sizeof(T) == 2 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  const CUresult r = encode(&map, type, 2, const_cast<T*>(m), dims, strides, box, steps, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) fail(ErrorCode::unsupported, "cuTensorMapEncodeTiled refused the matrix (error " + std::to_string(static_cast<int>(r)) + ")");
  return map;
}

template <class T, int BN>
void launch_tiles(const T* a, const T* bt, float* c, int n, cudaStream_t stream) {
  constexpr int smem = smem_bytes(BN);
  static const bool ready = [] {
    GPUVIS_CUDA_CHECK(cudaFuncSetAttribute(wgmma_kernel<T, BN>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    return true;
  }();
  (void)ready;
  const unsigned blocks = static_cast<unsigned>((n + kTile - 1) / kTile) * static_cast<unsigned>((n + BN - 1) / BN);
  wgmma_kernel<T, BN><<<blocks, kThreads, smem, stream>>>(tensor_map(a, n, kTile), tensor_map(bt, n, BN), c, n);
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
  // 128 x 256 tiles: at n = 4096 on an H200 1.37x (bf16) and 1.37x (TF32) the speed of 128 x 128
  // (both loaded with cp.async), whose two warpgroups each read the whole slice of B for half the
  // products.
  launch_tiles<T, 256>(a_used, s.bt.as<T>(), c, n, stream);
}

}  // namespace

void launch_tensor_wgmma(const bf16* a, const bf16* b, float* c, int n, cudaStream_t stream) { launch(a, b, c, n, stream); }
void launch_tensor_wgmma(const float* a, const float* b, float* c, int n, cudaStream_t stream) { launch(a, b, c, n, stream); }

}  // namespace gpuvis::lab::cuda_impl

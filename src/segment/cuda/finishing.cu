// Stage 4 of the CUDA segmenter (tree_arrays.cuh): flags, parent forest and neighbour lists.
#include "cuda/chain.cuh"
#include "cuda/check.hpp"
#include "segment/cuda/block_prefix_sum.cuh"
#include "segment/cuda/tree_arrays.cuh"

namespace gpuvis::segment::cuda_impl {
namespace {

// --- Per-region finishing -----------------------------------------------------------------------
//
// Three steps per region, separated by barriers: link (degree, flags, parent), judge (kept
// neighbours, depth, descendant counts) and, after the scan of the kept counts, write (the tree's
// neighbour lists). Each step is one device function of one region, run by a kernel per step on
// large frames and by one block with barriers between the steps on camera frames
// (finish_regions_in_one_block). A region's step is a chain of dependent loads, so neighbour slots
// are loaded kBatch at a time (one by one, each would be a memory latency).

constexpr int kBatch = 8;

// A region's neighbours, slots [base, base + kBatch) of its set (kEmpty past `count`).
__device__ __forceinline__ void load_slots(const std::int32_t* slots, int base, int count, int (&v)[kBatch]) {
#pragma unroll
  for (int j = 0; j < kBatch; ++j) v[j] = base + j < count ? slots[base + j] : kEmpty;
}

// The region's neighbour count: its filled slots (they fill in order, add_neighbour).
__device__ __forceinline__ int filled_slots(const RegionArrays& r, int i) {
  const std::int32_t* slots = r.slots + i * r.slot_count;
  int d = 0;
  for (int base = 0; base < r.slot_count; base += kBatch) {
    int v[kBatch];
    load_slots(slots, base, r.slot_count, v);
#pragma unroll
    for (int j = 0; j < kBatch; ++j) d += v[j] != kEmpty;
    if (v[kBatch - 1] == kEmpty) break;
  }
  return d;
}

// Degree, saturation, border, and the parent link (the region above the first pixel).
__device__ void link_region(int i, int w, int h, int cap, const std::int32_t* label, const Numbering& num,
                            const RegionArrays& r) {
  const int degree = filled_slots(r, i);
  r.degree[i] = degree;
  std::uint32_t flags = 0;
  if (degree > cap) flags |= kSaturated;
  const bool border = r.left[i] == 0 || r.top[i] == 0 || r.right[i] == w - 1 || r.bottom[i] == h - 1;
  if (border) {
    flags |= kBorder;
    r.parent[i] = -1;
  } else {
    const int p = num.region_of(label, (r.first_y[i] - 1) * w + r.first_x[i]);
    r.parent[i] = p;
    if (r.nesting) atomicAdd(&r.child_count[p], 1);
  }
  r.wide_flags[i] = flags;
}

// A region's kept neighbours when it has at most kSortInRegisters (nearly all regions of a camera
// frame, the roots of symbols included): loaded at once, each neighbour's degree loaded at once,
// and each kept one written to its rank among them, so the sort costs no memory latency (sorting
// into the slots one by one costs a dependent load per step, on the frame's path). Neighbours are
// distinct. Marks the region fragmented when a neighbour is saturated; returns the kept count.
constexpr int kSortInRegisters = 2 * kBatch;
__device__ int keep_neighbours_in_registers(int i, int degree, int cap, const RegionArrays& r) {
  std::int32_t* slots = r.slots + i * r.slot_count;
  int v[kSortInRegisters];
#pragma unroll
  for (int j = 0; j < kSortInRegisters; ++j) v[j] = j < degree ? slots[j] : kEmpty;
  unsigned keep = 0, saturated = 0;
#pragma unroll
  for (int j = 0; j < kSortInRegisters; ++j) {
    const int d = v[j] != kEmpty ? r.degree[v[j]] : 0;
    if (v[j] != kEmpty) (d > cap ? saturated : keep) |= 1u << j;
  }
#pragma unroll
  for (int j = 0; j < kSortInRegisters; ++j) {
    if (!(keep >> j & 1u)) continue;
    int rank = 0;
#pragma unroll
    for (int k = 0; k < kSortInRegisters; ++k) rank += (keep >> k & 1u) && v[k] < v[j];
    slots[rank] = v[j];
  }
  if (saturated) r.wide_flags[i] |= kFragmented;
  return __popc(keep);
}

// Fragmentation and the kept neighbours (sorted, in the region's own slots), and, when the tree's
// nesting is asked for, the ancestor walk: depth is the chain's length, and the region adds itself
// to every ancestor's descendant count (the work is the sum of depths: small on camera frames,
// bounded by the nesting on others; a chain of dependent loads as long as the depth). Returns the
// kept count.
__device__ int judge_region(int i, int cap, const RegionArrays& r) {
  int kept = 0;
  const int degree = r.degree[i];
  if (degree <= cap && degree <= kSortInRegisters) {
    kept = keep_neighbours_in_registers(i, degree, cap, r);
  } else if (degree <= cap) {
    std::int32_t* slots = r.slots + i * r.slot_count;
    bool fragmented = false;
    for (int base = 0; base < degree; base += kBatch) {
      int v[kBatch], dv[kBatch];
      load_slots(slots, base, degree, v);
#pragma unroll
      for (int j = 0; j < kBatch; ++j) dv[j] = v[j] != kEmpty ? r.degree[v[j]] : 0;
      // The batch is in registers, and the sorted prefix stays below it: writing slots[0 .. kept]
      // overwrites nothing not yet read.
#pragma unroll
      for (int j = 0; j < kBatch; ++j) {
        if (v[j] == kEmpty) continue;
        if (dv[j] > cap) {
          fragmented = true;
          continue;
        }
        int k = kept++;  // insertion sort into slots[0 .. kept)
        for (; k > 0 && slots[k - 1] > v[j]; --k) slots[k] = slots[k - 1];
        slots[k] = v[j];
      }
    }
    if (fragmented) r.wide_flags[i] |= kFragmented;
  }
  if (r.nesting) {
    int d = 0;
    for (int p = r.parent[i]; p >= 0; p = r.parent[p]) {
      atomicAdd(&r.descendant_count[p], 1);
      ++d;
    }
    r.depth[i] = d;
  }
  return kept;
}

// The flags, the kept neighbours and the clean leaves into the tree (adj_begin is the scan of the
// kept counts); then the region's neighbour slots are emptied for the next frame, so that no
// launch has to clear them before it.
__device__ void write_region(int i, const RegionArrays& r) {
  const std::uint32_t flags = r.wide_flags[i];
  const int kept = r.kept[i], begin = r.adj_begin[i];
  r.flags[i] = static_cast<std::uint8_t>(flags);
  if (kept == 1 && !(flags & (kSaturated | kFragmented | kBorder))) r.leaves[atomicAdd(r.leaf_count, 1)] = i;
  std::int32_t* slots = r.slots + i * r.slot_count;
  for (int base = 0; base < kept; base += kBatch) {
    int v[kBatch];
    load_slots(slots, base, kept, v);
#pragma unroll
    for (int j = 0; j < kBatch; ++j)
      if (base + j < kept) r.adj[begin + base + j] = v[j];
  }
  for (int k = 0; k < r.slot_count; ++k) slots[k] = kEmpty;
}

// One thread, before the lists: the list offsets' scan writes from adj_begin[1], and write_region
// appends to the clean leaves.
__device__ __forceinline__ void start_lists(const RegionArrays& r) {
  r.adj_begin[0] = 0;
  *r.leaf_count = 0;
}

__global__ void link_regions(Counts c, int w, int h, int cap, const std::int32_t* label, Numbering num,
                             RegionArrays r) {
  gpuvis::cuda::await_previous_kernel();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (c.overflow() || i >= c.regions()) return;
  link_region(i, w, h, cap, label, num, r);
}

__global__ void judge_regions(Counts c, int cap, RegionArrays r) {
  gpuvis::cuda::await_previous_kernel();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) start_lists(r);
  if (i >= c.region_capacity) return;
  // The list offsets' scan runs over the whole capacity: past the count, nothing is kept.
  r.kept[i] = c.overflow() || i >= c.regions() ? 0 : judge_region(i, cap, r);
}

__global__ void write_neighbours(Counts c, RegionArrays r) {
  gpuvis::cuda::await_previous_kernel();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (c.overflow() || i >= c.regions()) return;
  write_region(i, r);
}

// The whole finishing of a camera frame in one launch of one block: the steps above with barriers
// between them (and the list offsets scanned over the count, not the capacity) instead of four
// launches, each of which costs more than a step of a few hundred regions. Chosen by
// Impl::finishes_in_one_block (kOneBlockRegions, kOneBlockUpTo, kOneBlockBackAt).
__global__ void __launch_bounds__(kScanThreads)
    finish_regions_in_one_block(Counts c, int w, int h, int cap, const std::int32_t* label, Numbering num, RegionArrays r) {
  gpuvis::cuda::await_previous_kernel();
  if (threadIdx.x == 0) start_lists(r);
  if (c.overflow()) return;  // the same for every thread
  const int n = c.regions();
  for (int i = threadIdx.x; i < n; i += blockDim.x) link_region(i, w, h, cap, label, num, r);
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) r.kept[i] = judge_region(i, cap, r);
  __syncthreads();
  block_prefix_sum_in_block<true>(static_cast<const std::int32_t*>(r.kept), r.adj_begin + 1, n);
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) write_region(i, r);
}

}  // namespace

void enqueue_finishing_in_one_block(const Counts& c, int w, int h, int cap, const std::int32_t* label, const Numbering& num,
                                    const RegionArrays& r, cudaStream_t stream) {
  gpuvis::cuda::launch_chained(finish_regions_in_one_block, dim3(1), dim3(kScanThreads), 0, stream, c, w, h, cap, label, num, r);
}

void enqueue_link_and_judge(const Counts& c, int w, int h, int cap, const std::int32_t* label, const Numbering& num,
                            const RegionArrays& r, cudaStream_t stream) {
  const dim3 per_region(blocks(c.region_capacity));
  gpuvis::cuda::launch_chained(link_regions, per_region, dim3(256), 0, stream, c, w, h, cap, label, num, r);
  gpuvis::cuda::launch_chained(judge_regions, per_region, dim3(256), 0, stream, c, cap, r);
}

void enqueue_write_neighbours(const Counts& c, const RegionArrays& r, cudaStream_t stream) {
  gpuvis::cuda::launch_chained(write_neighbours, dim3(blocks(c.region_capacity)), dim3(256), 0, stream, c, r);
}

}  // namespace gpuvis::segment::cuda_impl

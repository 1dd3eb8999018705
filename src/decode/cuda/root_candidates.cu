// Stage 3 of CUDA decoding: root candidates (as decode::find_root_candidates). Stage 2 marked the
// decoded roots and their neighbours taken; the qualifying regions are numbered in region order
// (select_roots), so the first `limit` are the CPU's. Last, the band moves on to this frame's symbols, as
// decode::RootCandidateFinder does on the host for the CPU backend: the next frame needs no host round trip
// (and a frame queued behind this one still gets its band).
#include <cub/block/block_scan.cuh>

#include <climits>

#include "decode/cuda/decode_kernels.cuh"
#include "cuda/chain.cuh"
#include "cuda/check.hpp"

namespace gpuvis::decode::cuda_impl {
namespace {

// Every load first, then one combined test: a chain of short-circuit tests waits for each load in
// turn, and at camera frame sizes the select is one block evaluating this for a few thousand
// regions. (Regions past the count hold stale values: read, then masked.)
struct InBand {
  DeviceTree t;
  const std::int32_t* taken;
  const RootBand* band;
  __device__ bool operator()(int r) const {
    const int count = region_count(t), min_size = band->min_size, max_size = band->max_size;
    const int taken_r = taken[r], colour = t.colour[r], flags = t.flags[r], degree = degree_of(t, r);
    const int w = t.right[r] - t.left[r] + 1, h = t.bottom[r] - t.top[r] + 1;
    return (r < count) & qualifies_as_root(w, h, colour, flags, degree, taken_r != 0, min_size, max_size);
  }
};

// Which regions qualify (InBand), numbered in region order: a block scan gives each qualifying
// region its place within its block of regions, and the last block to finish (a ticket) turns the
// blocks' counts into their offsets and the totals. One launch instead of CUB's select (two).
__global__ void __launch_bounds__(kSelectThreads) select_roots(InBand pred, Scratch s) {
  gpuvis::cuda::await_previous_kernel();
  const int capacity = pred.t.capacity;
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  const bool in = r < capacity && pred(r);
  using Scan = cub::BlockScan<int, kSelectThreads>;
  __shared__ typename Scan::TempStorage scan;
  __shared__ bool last;
  int before = 0, total = 0;
  Scan(scan).ExclusiveSum(in ? 1 : 0, before, total);
  if (r < capacity) s.select_before[r] = in ? before : -1;
  if (threadIdx.x == 0) {  // publish the block's total (one thread fences), draw the ticket
    s.select_blocks[blockIdx.x] = total;
    __threadfence();
    last = atomicAdd(s.select_ticket, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  const int g = static_cast<int>(gridDim.x);
  const int per = (g + kSelectThreads - 1) / kSelectThreads;
  const int begin = min(g, static_cast<int>(threadIdx.x) * per), end = min(g, begin + per);
  int own = 0;
  for (int k = begin; k < end; ++k) own += __ldcg(s.select_blocks + k);  // other blocks' writes: not from L1
  __syncthreads();  // the scan's storage is reused
  int at = 0, found = 0;
  Scan(scan).ExclusiveSum(own, at, found);
  for (int k = begin; k < end; ++k) {
    const int v = __ldcg(s.select_blocks + k);
    s.select_blocks[k] = at;
    at += v;
  }
  if (threadIdx.x == 0) {
    s.results->roots_found = found;
    s.results->roots_kept = min(found, s.band->limit);
  }
}

// Root record i (one of the first `limit`) for region r.
__device__ void write_root(const DeviceTree& t, const Scratch& s, int r, int i) {
  s.selected[i] = r;
  RootRecord rec;
  rec.x = centroid_x(t, r);
  rec.y = centroid_y(t, r);
  rec.size = max(t.right[r] - t.left[r] + 1, t.bottom[r] - t.top[r] + 1);
  rec.colour = t.colour[r];
  rec.region = r;
  rec.pad = 0;
  record_slot(s.results->root, s.root_overflow, i) = rec;
}

// The whole block, after every thread has read the band: the next frame's band (next_root_band)
// from this frame's valid symbols, when it has any; and this frame's band kept in its slot, to run
// the frame again with it.
__device__ void move_band_on(const Scratch& s) {
  __shared__ int smallest, largest;
  if (threadIdx.x == 0) {
    *s.band_used = *s.band;
    smallest = INT_MAX;
    largest = 0;
  }
  __syncthreads();
  for (int i = threadIdx.x; i < s.results->symbols; i += blockDim.x) {
    const SymbolRecord& rec = symbol_record(s, i);
    if (rec.id < 0) continue;
    atomicMin(&smallest, rec.root_size);
    atomicMax(&largest, rec.root_size);
  }
  __syncthreads();
  if (threadIdx.x == 0 && largest > 0) {
    const RootSizeBand next = next_root_band(smallest, largest);
    s.band->min_size = next.min_size;
    s.band->max_size = next.max_size;
  }
}

// The first `limit` qualifying regions, in region order, as root records (and their regions, for
// stage 4's object blobs); block 0 also moves the band on (the other blocks read only its limit).
__global__ void __launch_bounds__(kSelectThreads) write_roots(DeviceTree t, Scratch s) {
  gpuvis::cuda::await_previous_kernel();
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  const int place = r < t.capacity ? s.select_before[r] : -1;
  if (place >= 0) {
    const int i = s.select_blocks[blockIdx.x] + place;
    if (i < s.band->limit) write_root(t, s, r, i);
  }
  if (blockIdx.x != 0) return;
  __syncthreads();  // every thread of block 0 has read the band
  move_band_on(s);
}

// Select and records of a camera frame in one launch of one block: the frame's regions (its count,
// not the capacity) a block at a time in region order, with the running count of qualifying
// regions carried from block to block; then the band moves on, and the block publishes the results
// when it is the frame's last launch. Used for the frames the segmenter finished in one block
// (DeviceTree::one_block: few regions): two or three launches cost more than their work.
__global__ void __launch_bounds__(kSelectThreads) select_roots_in_one_block(InBand pred, Scratch s, Publish publish) {
  gpuvis::cuda::await_previous_kernel();
  const DeviceTree& t = pred.t;
  const int count = region_count(t), limit = s.band->limit;
  using Scan = cub::BlockScan<int, kSelectThreads>;
  __shared__ typename Scan::TempStorage scan;
  int found = 0;  // qualifying regions before this block of regions
  for (int base = 0; base < count; base += kSelectThreads) {
    const int r = base + static_cast<int>(threadIdx.x);
    const bool in = r < count && pred(r);
    int before = 0, total = 0;
    Scan(scan).ExclusiveSum(in ? 1 : 0, before, total);
    if (in && found + before < limit) write_root(t, s, r, found + before);
    found += total;
    __syncthreads();  // the scan's storage is reused
  }
  if (threadIdx.x == 0) {
    s.results->roots_found = found;
    s.results->roots_kept = min(found, limit);
  }
  move_band_on(s);
  if (publish.words == 0) return;
  __syncthreads();  // this block's records and counts are written
  publish.run_in_one_block(s.results);
}

}  // namespace

bool find_root_candidates(const DeviceTree& tree, const Scratch& s, const Publish& publish, bool chained, cudaStream_t stream) {
  // The band lives on the device (it changes every frame, a graph does not), so the stage always
  // runs; an empty band selects nothing.
  // Chained only when it directly follows stage 2: with two frames in flight the first launch also
  // waits (an event) for the previous frame's band, a chained launch relaxes its dependency on the
  // stream's previous work, and the documentation does not say that an event wait between the two
  // survives that. (Both kernels start with await_previous_kernel(), a no-op in a plain launch.)
  const InBand pred{tree, s.taken, s.band};
  const auto launch = [&](auto kernel, int blocks, auto... args) {
    if (chained) {
      gpuvis::cuda::launch_chained(kernel, dim3(blocks), dim3(kSelectThreads), 0, stream, args...);
    } else {
      kernel<<<blocks, kSelectThreads, 0, stream>>>(args...);
      GPUVIS_CUDA_CHECK_LAUNCH();
    }
  };
  if (tree.one_block) {
    launch(select_roots_in_one_block, 1, pred, s, publish);
    return publish.words > 0;
  }
  const int blocks = grid_for(tree.capacity, kSelectThreads);
  launch(select_roots, blocks, pred, s);
  gpuvis::cuda::launch_chained(write_roots, dim3(blocks), dim3(kSelectThreads), 0, stream, tree, s);
  return false;
}

}  // namespace gpuvis::decode::cuda_impl

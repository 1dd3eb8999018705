// Stage 3 of CUDA decoding: root candidates (as decode::find_root_candidates). Stage 2 marked the
// decoded roots and their neighbours taken; the qualifying regions are numbered in region order
// (select_roots), so the first `limit` are the CPU's. Last, the band moves on to this frame's symbols, as
// pipeline::Detector does on the host for the CPU backend: the next frame needs no host round trip
// (and a frame queued behind this one still gets its band).
#include <cub/block/block_scan.cuh>

#include <climits>

#include "decode_kernels.cuh"
#include "gpuvis/cuda/chain.cuh"
#include "gpuvis/cuda/check.hpp"

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
    const int taken_r = taken[r], flags = t.flags[r], degree = degree_of(t, r);
    const int w = t.right[r] - t.left[r] + 1, h = t.bottom[r] - t.top[r] + 1;
    const int size = max(w, h);
    return (r < count) & (taken_r == 0) & ((flags & (segment::kBorder | segment::kSaturated)) == 0) & (degree >= 1) &
           (size >= min_size) & (size <= max_size) & (abs(w - h) < min(w, h));
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

// The first `limit` qualifying regions, in region order, as root records (and their regions, for
// stage 4's object blobs); block 0 also moves the band on.
__global__ void __launch_bounds__(kSelectThreads) write_roots(DeviceTree t, Scratch s) {
  gpuvis::cuda::await_previous_kernel();
  if (blockIdx.x == 0 && threadIdx.x == 0) *s.band_used = *s.band;  // to run the frame again with it
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  const int place = r < t.capacity ? s.select_before[r] : -1;
  if (place >= 0) {
    const int i = s.select_blocks[blockIdx.x] + place;
    if (i < s.band->limit) {
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
  }
  if (blockIdx.x != 0) return;
  // The next frame's band (next_root_band) from this frame's valid symbols, when it has any
  // (the other blocks read only the band's limit).
  __shared__ int smallest, largest;
  if (threadIdx.x == 0) {
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

}  // namespace

void find_root_candidates(const DeviceTree& tree, const Scratch& s, cudaStream_t stream) {
  // The band lives on the device (it changes every frame, a graph does not), so the stage always
  // runs; an empty band selects nothing.
  const int blocks = grid_for(tree.capacity, kSelectThreads);
  // Not chained: with two frames in flight this launch also waits (an event) for the previous
  // frame's band. A chained launch relaxes its dependency on the stream's previous kernel, and the
  // documentation does not say that an event wait between the two survives that, so it stays plain.
  select_roots<<<blocks, kSelectThreads, 0, stream>>>(InBand{tree, s.taken, s.band}, s);
  GPUVIS_CUDA_CHECK_LAUNCH();
  gpuvis::cuda::launch_chained(write_roots, dim3(blocks), dim3(kSelectThreads), 0, stream, tree, s);
}

}  // namespace gpuvis::decode::cuda_impl

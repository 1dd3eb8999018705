// Stage 3 of CUDA decoding: root candidates (as decode::find_root_candidates). Stage 2 marked the
// decoded roots and their neighbours taken; CUB's select keeps the qualifying regions in region
// order, so the first `limit` are the CPU's. Last, the band moves on to this frame's symbols, as
// pipeline::Detector does on the host for the CPU backend: the next frame needs no host round trip
// (and a frame queued behind this one still gets its band).
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <climits>

#include "decode_kernels.cuh"
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

__global__ void write_roots(DeviceTree t, Scratch s) {
  if (blockIdx.x == 0 && threadIdx.x == 0) *s.band_used = *s.band;  // to run the frame again with it
  const int count = min(s.results->roots_found, s.band->limit);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x) {
    const int r = s.selected[i];
    RootRecord rec;
    rec.x = centroid_x(t, r);
    rec.y = centroid_y(t, r);
    rec.size = max(t.right[r] - t.left[r] + 1, t.bottom[r] - t.top[r] + 1);
    rec.colour = t.colour[r];
    rec.region = r;
    rec.pad = 0;
    record_slot(s.results->root, s.root_overflow, i) = rec;
  }
  if (blockIdx.x != 0) return;
  // The next frame's band (next_root_band) from this frame's valid symbols, when it has any
  // (the other blocks read only the band's limit).
  __shared__ int smallest, largest;
  if (threadIdx.x == 0) {
    s.results->roots_kept = count;
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

void find_root_candidates(const DeviceTree& tree, const Scratch& s, gpuvis::cuda::DeviceBuffer& temp,
                          cudaStream_t stream) {
  // The band lives on the device (it changes every frame, a graph does not), so the stage always
  // runs; an empty band selects nothing.
  const InBand pred{tree, s.taken, s.band};
  thrust::counting_iterator<int> regions(0);
  std::size_t bytes = 0;
  GPUVIS_CUDA_CHECK(cub::DeviceSelect::If(nullptr, bytes, regions, s.selected, &s.results->roots_found, tree.capacity,
                                          pred, stream));
  temp.reserve(bytes);
  GPUVIS_CUDA_CHECK(cub::DeviceSelect::If(temp.get(), bytes, regions, s.selected, &s.results->roots_found,
                                          tree.capacity, pred, stream));
  write_roots<<<8, 128, 0, stream>>>(tree, s);
  GPUVIS_CUDA_CHECK_LAUNCH();
}

}  // namespace gpuvis::decode::cuda_impl

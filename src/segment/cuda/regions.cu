// Stage 3 of the CUDA segmenter (tree_arrays.cuh): regions, runs, statistics and neighbour sets.
#include "cuda/chain.cuh"
#include "cuda/check.hpp"
#include "segment/cuda/tree_arrays.cuh"

namespace gpuvis::segment::cuda_impl {
namespace {

// Adds v to region a's neighbour set (lock-free: a slot goes from empty to a value once). When all
// cap + 1 slots hold other values, a has more than cap neighbours and v need not be recorded.
// (Reading the slots eight at a time from L2, bypassing L1, made this kernel slower: 9.6 -> 13.8 us
// on a 640x480 frame, and 1920x1080 and 3840x2160 frames 35 and 77 us slower end to end; H100,
// run of 2026-11-22 (0e0bbb0).)
__device__ void add_neighbour(const RegionArrays& r, int a, int v) {
  std::int32_t* slots = r.slots + a * r.slot_count;
  for (int s = 0; s < r.slot_count; ++s) {
    int cur = slots[s];
    if (cur == kEmpty) cur = atomicCAS(&slots[s], kEmpty, v);
    if (cur == kEmpty || cur == v) return;
  }
}

// Per pixel: each run's row and start (at its first pixel) and end (at its last pixel) and its
// region; each region, created at its first pixel (colour, first pixel, and the starting values of
// the statistics the next kernels accumulate: no separate initialisation launch); and the §3.3
// adjacency pairs at run starts (row 0: with the run to the west; below: with the pixel above when
// its colour differs), into both regions' neighbour sets (empty at the start of every frame:
// write_neighbours empties the slots it has read). Which pixels start a run or a region is
// read from the word marks (a run ends where the next one starts), so the pixels in the middle of
// a run — most of a clean frame — cost one broadcast load per warp.
__global__ void emit_runs_and_pairs(DeviceView<const std::uint8_t> bin, const std::int32_t* label, Numbering num,
                                    Run* runs, std::int32_t* run_region, Counts c, RegionArrays r) {
  gpuvis::cuda::await_previous_kernel();
  const int n = bin.width * bin.height;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || c.overflow()) return;
  const WordMarks m = num.marks[i >> 5];
  const unsigned bit = 1u << (i & 31);
  const bool start = m.run_starts & bit, root = m.roots & bit;
  const bool end = i == n - 1 || ((i & 31) == 31 ? (num.marks[(i >> 5) + 1].run_starts & 1u) : (m.run_starts & (bit << 1)));
  if (!start && !end && !root) return;
  const int w = bin.width, y = i / w, x = i - y * w;
  const int run = num.run_at(i, m.run_starts);
  if (end) runs[run].x1 = x;
  if (!start && !root) return;
  const bool white = bin.row(y)[x] != 0;
  const int reg = num.region_of(label, i);
  if (root) {
    r.colour[reg] = white ? 255 : 0;
    r.first_x[reg] = x;
    r.first_y[reg] = y;
    r.top[reg] = y;
    r.wide_flags[reg] = 0;
    r.area[reg] = 0;
    r.left[reg] = kLarge;
    r.right[reg] = -1;
    r.bottom[reg] = -1;
    r.sum_2x[reg] = 0;
    r.sum_y[reg] = 0;
    r.child_count[reg] = 0;
    r.descendant_count[reg] = 0;
  }
  if (!start) return;
  runs[run].y = y;
  runs[run].x0 = x;
  run_region[run] = reg;
  int other = -1;
  if (y == 0) {
    if (x > 0) other = num.region_of(label, i - 1);
  } else if (white != (bin.row(y - 1)[x] != 0)) {
    other = num.region_of(label, i - w);
  }
  if (other >= 0) {
    add_neighbour(r, reg, other);
    add_neighbour(r, other, reg);
  }
}

// Per-run statistics. Consecutive runs often belong to the same region (a big background region
// takes every other run), so on sm_80+ the lanes of a warp first reduce their values per region
// (match + warp reductions) and one lane per region does the atomics: far less contention on the
// background's counters. `narrow` says a warp's partial coordinate sums fit in 32 bits (width up
// to 8191).
__global__ void accumulate_runs(Counts c, const Run* runs, const std::int32_t* run_region, bool narrow, RegionArrays r) {
  gpuvis::cuda::await_previous_kernel();
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  const int nruns = c.overflow() ? 0 : c.runs();
  const bool valid = k < nruns;
  const Run run = valid ? runs[k] : Run{0, 0, 0};
  const int reg = valid ? run_region[k] : -1;
  const unsigned len = static_cast<unsigned>(run.x1 - run.x0 + 1);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if (narrow) {
    const unsigned sx = static_cast<unsigned>(run.x0 + run.x1) * len, sy = static_cast<unsigned>(run.y) * len;
    const unsigned group = __match_any_sync(0xffffffffu, reg);
    const unsigned area = __reduce_add_sync(group, len);
    const int left = __reduce_min_sync(group, run.x0), right = __reduce_max_sync(group, run.x1);
    const int bottom = __reduce_max_sync(group, run.y);
    const unsigned sum_x = __reduce_add_sync(group, sx), sum_y = __reduce_add_sync(group, sy);
    if (reg < 0 || static_cast<int>(threadIdx.x % 32) != __ffs(group) - 1) return;
    atomicAdd(&r.area[reg], static_cast<int>(area));
    atomicMin(&r.left[reg], left);
    atomicMax(&r.right[reg], right);
    atomicMax(&r.bottom[reg], bottom);
    atomicAdd(&r.sum_2x[reg], static_cast<unsigned long long>(sum_x));
    atomicAdd(&r.sum_y[reg], static_cast<unsigned long long>(sum_y));
    return;
  }
#else
  (void)narrow;
#endif
  if (reg < 0) return;
  atomicAdd(&r.area[reg], static_cast<int>(len));
  atomicMin(&r.left[reg], run.x0);
  atomicMax(&r.right[reg], run.x1);
  atomicMax(&r.bottom[reg], run.y);
  atomicAdd(&r.sum_2x[reg], static_cast<unsigned long long>(run.x0 + run.x1) * static_cast<unsigned long long>(len));
  atomicAdd(&r.sum_y[reg], static_cast<unsigned long long>(run.y) * static_cast<unsigned long long>(len));
}

}  // namespace

void enqueue_regions(DeviceView<const std::uint8_t> bin, const std::int32_t* label, const Numbering& num, Run* runs,
                     std::int32_t* run_region, const Counts& c, const RegionArrays& r, bool narrow, cudaStream_t stream) {
  using gpuvis::cuda::launch_chained;
  const long long n = static_cast<long long>(bin.width) * bin.height;
  launch_chained(emit_runs_and_pairs, dim3(blocks(n)), dim3(256), 0, stream, bin, label, num, runs, run_region, c, r);
  launch_chained(accumulate_runs, dim3(blocks(c.run_capacity)), dim3(256), 0, stream, c, static_cast<const Run*>(runs),
                 static_cast<const std::int32_t*>(run_region), narrow, r);
}

}  // namespace gpuvis::segment::cuda_impl

// Stage 1 of CUDA decoding: the upward propagation of docs/decoding.md in synchronous rounds.
// There are at most Dmax + 1 rounds and a round is usually a few hundred regions, so one block
// runs them all with a barrier between rounds (one launch instead of one per round); a region
// visited in round k is marked with k, and visits read only marks below k, so the order of the
// threads within a round does not matter.
#include <algorithm>

#include "decode/yamaarashi_rules.hpp"
#include "decode/cuda/decode_kernels.cuh"
#include "cuda/chain.cuh"
#include "cuda/check.hpp"

namespace gpuvis::decode::cuda_impl {
namespace {

using segment::kBorder;
using segment::kFragmented;
using segment::kSaturated;

constexpr int kRoundThreads = 1024;
constexpr int kBatch = 8;  // neighbours loaded at once

// The largest clearing run_rounds does itself before its first round (its 1024 threads store
// 16 bytes at a time); a larger one is a launch of its own over the whole GPU (clear_frame). On an
// H100 (run of 2026-11-22 (0e0bbb0)) a 640x480 frame's 24 001 ints made the rounds 1.4 us longer and saved
// the 2.6 us clearing launch; the limit itself (16 stores per thread) is not a measured optimum.
constexpr long long kClearInRoundsMax = 65536;

// A large frame's clearing in one launch (two memset nodes cost more).
__global__ void clear_frame(FrameClear clear) {
  gpuvis::cuda::await_previous_kernel();
  clear.run(blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x, static_cast<long long>(gridDim.x) * blockDim.x);
}

// `clear` is empty when clear_frame ran before.
__global__ void __launch_bounds__(kRoundThreads) run_rounds(DeviceTree t, SetBounds b, Scratch s, FrameClear clear) {
  gpuvis::cuda::await_previous_kernel();
  clear.run(threadIdx.x, blockDim.x);
  __syncthreads();  // the counts and marks are zero before anything below reads or adds to them
  __shared__ int count, next_count;
  // The first round visits the segmenter's list of clean leaves (read only); later rounds
  // alternate between the two frontier arrays.
  const std::int32_t* cur = t.leaves;
  std::int32_t* cur_out = nullptr;  // where skipped entries are struck out (rounds > 1)
  std::int32_t* next = s.frontier_a;
  std::int32_t* spare = s.frontier_b;
  if (threadIdx.x == 0) {
    count = region_count(t) > 0 ? *t.leaf_count : 0;  // an overflowed frame has no tree
    next_count = 0;
    s.results->totals = *t.totals;
    s.results->leaves = count;
  }
  __syncthreads();
  for (int round = 1; count > 0; ++round) {
    // A thread's first region of the round keeps what the push below needs in registers (a
    // camera frame's round has fewer regions than the block has threads); later ones reread it.
    int first_desc = 0, first_height = 0, first_parent = -1, first_flags = 0;
    // Visit: descendants and height from the neighbours traversed in earlier rounds, and which of
    // the neighbours are its children (visited in an earlier round) as bits in neighbour order,
    // for the candidate decoder's walk down the subtree.
    for (int i = threadIdx.x; i < count; i += blockDim.x) {
      const int r = cur[i];
      // Every load that does not depend on another goes out at once: the round is a chain of
      // memory latencies, one per dependent step.
      const int begin = t.adj_begin[r], end = t.adj_begin[r + 1], flags = t.flags[r];
      if (round > 1) {
        const int seen = s.visit_round[r], blocked = s.blocked[r], pushed = s.cvc[r];
        if (seen | blocked | (pushed != pushes_needed(flags, end - begin))) {
          cur_out[i] = -1;
          continue;
        }
      }
      // The neighbours' loads are issued a batch at a time (one by one, each neighbour would cost
      // two dependent global-memory latencies, and the rounds run one after the other). A
      // neighbour's desc and height count only when it was visited in an earlier round, i.e.
      // before the last barrier.
      int desc = 0, height = 0, parent = -1;
      unsigned long long children = 0;
      for (int k0 = begin; k0 < end; k0 += kBatch) {
        int a[kBatch], seen[kBatch], d[kBatch], h[kBatch];
#pragma unroll
        for (int j = 0; j < kBatch; ++j) a[j] = k0 + j < end ? t.adj[k0 + j] : -1;
#pragma unroll
        for (int j = 0; j < kBatch; ++j) {
          const int q = a[j] < 0 ? r : a[j];
          seen[j] = s.visit_round[q];
          d[j] = s.desc[q];
          h[j] = s.height[q];
        }
#pragma unroll
        for (int j = 0; j < kBatch; ++j) {
          if (a[j] < 0) continue;
          if (seen[j] && seen[j] < round) {
            desc += d[j] + 1;
            height = max(height, h[j] + 1);
            if (k0 + j - begin < 64) children |= 1ull << (k0 + j - begin);  // a symbol's node has fewer
          } else {
            parent = a[j];
          }
        }
      }
      s.desc[r] = desc;
      s.height[r] = height;
      s.parent[r] = parent;
      s.children[r] = children;
      s.visit_round[r] = round;
      if (i == static_cast<int>(threadIdx.x)) {
        first_desc = desc;
        first_height = height;
        first_parent = parent;
        first_flags = flags;
      }
    }
    __syncthreads();
    // Candidates stop; the others push to their parent, which is visited next round when this
    // round completed its count.
    for (int i = threadIdx.x; i < count; i += blockDim.x) {
      const int r = cur[i];
      if (r < 0) continue;
      const bool first = i == static_cast<int>(threadIdx.x);
      const int desc = first ? first_desc : s.desc[r], height = first ? first_height : s.height[r];
      const int p = first ? first_parent : s.parent[r], flags = first ? first_flags : t.flags[r];
      // §4.2's special test for the yamaarashi core (yamaarashi_rules.hpp), as the CPU Decoder.
      const bool core = b.yamaarashi && desc == yamaarashi::kDescendants &&
                        yamaarashi::special_candidate(desc, t.colour[r] != 0, t.adj_begin[r + 1] - t.adj_begin[r],
                                                      !(flags & (kBorder | kFragmented)));
      if (height >= b.dmin && height <= b.dmax && ((desc >= b.rmin && desc <= b.tmax) || core)) {
        s.candidates[atomicAdd(&s.results->candidates, 1)] = r;
      } else if (p >= 0 && !(flags & (kSaturated | kBorder))) {
        // The parent's flags and degree go out with the push (the atomic's answer is awaited last).
        const int parent_flags = t.flags[p], parent_begin = t.adj_begin[p], parent_end = t.adj_begin[p + 1];
        const int pushed = atomicAdd(&s.cvc[p], 1) + 1;
        if (!(desc < b.tmax && height < b.dmax && !(parent_flags & kSaturated))) s.blocked[p] = 1;
        if (pushed == pushes_needed(parent_flags, parent_end - parent_begin)) next[atomicAdd(&next_count, 1)] = p;
      }
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      count = next_count;
      next_count = 0;
    }
    cur = cur_out = next;
    next = spare;
    spare = cur_out;
    __syncthreads();
  }
}

}  // namespace

void propagate(const DeviceTree& tree, const SetBounds& bounds, const Scratch& s, const FrameClear& clear,
               cudaStream_t stream) {
  FrameClear in_rounds = clear;
  if (clear.ints > kClearInRoundsMax) {
    const long long grid = std::min<long long>(grid_for(clear.ints / 4 + 1, 256), 1024);
    gpuvis::cuda::launch_chained(clear_frame, dim3(static_cast<unsigned>(grid)), dim3(256), 0, stream, clear);
    in_rounds = {};
  }
  gpuvis::cuda::launch_chained(run_rounds, dim3(1), dim3(kRoundThreads), 0, stream, tree, bounds, s, in_rounds);
}

}  // namespace gpuvis::decode::cuda_impl

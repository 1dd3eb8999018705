#pragma once
// What the segmenter's stages share on the device (segmenter.cu runs them; regions.cu and
// finishing.cu hold their kernels): the frame's counts, which stay on the device, the numbering of
// regions and runs from the word scan, and the per-region arrays being built; and the host calls
// that enqueue stages 3 and 4.
#include <cuda_runtime_api.h>

#include <climits>
#include <cstdint>

#include "gpuvis/core/image.hpp"
#include "gpuvis/segment/region_tree.hpp"
#include "segment/cuda/labels.cuh"

namespace gpuvis::segment::cuda_impl {

inline int blocks(long long n, int threads = 256) { return static_cast<int>((n + threads - 1) / threads); }

constexpr int kEmpty = -1;  // an unused neighbour slot
constexpr int kLarge = INT_MAX;

// The region and run counts of the frame stay on the device (the scan's totals); the per-region and
// per-run arrays have a capacity chosen by the host. A frame with more of either than the capacity
// writes nothing past the scan (every later kernel returns at once) and is segmented again with
// more room (Segmenter::accept).
struct Counts {
  const unsigned long long* totals;
  int region_capacity, run_capacity;
  __device__ int regions() const { return static_cast<int>(*totals >> 32); }
  __device__ int runs() const { return static_cast<int>(*totals & 0xffffffffu); }
  __device__ bool overflow() const { return regions() > region_capacity || runs() > run_capacity; }
};

// --- Region and run numbers ---------------------------------------------------------------------

// A word's count of region first pixels (high half) and run starts (low half), and 0 past the last
// word, so that one exclusive scan over the words gives each word the regions and runs before it,
// and the totals at index `words`. Scanning words, not pixels, reads and writes 16 bytes per 32
// pixels (at 4K, 4 MB instead of the 130 MB a per-pixel scan moved).
struct WordCounts {
  const WordMarks* marks;
  int words;
  __device__ unsigned long long operator()(int k) const {
    if (k >= words) return 0;
    const WordMarks m = marks[k];
    return static_cast<unsigned long long>(__popc(m.roots)) << 32 | static_cast<unsigned long long>(__popc(m.run_starts));
  }
};

// A pixel's region and run numbers from its word's prefix and the bits below it in the word.
struct Numbering {
  const WordMarks* marks;
  const unsigned long long* prefix;  // per word (exclusive), the totals after the last
  // The region whose first pixel is `root` (a label value).
  __device__ int region_of_root(int root) const {
    const unsigned below = (1u << (root & 31)) - 1u;
    return static_cast<int>(prefix[root >> 5] >> 32) + __popc(marks[root >> 5].roots & below);
  }
  // The run containing pixel i: the run starts at or before it, less one.
  __device__ int run_at(int i, unsigned run_starts) const {
    const unsigned upto = 0xffffffffu >> (31 - (i & 31));
    return static_cast<int>(prefix[i >> 5] & 0xffffffffu) + __popc(run_starts & upto) - 1;
  }
  __device__ int region_of(const std::int32_t* label, int pixel) const { return region_of_root(label[pixel]); }
};

struct RegionArrays {
  std::uint8_t* colour;
  std::uint8_t* flags;
  std::uint32_t* wide_flags;  // RegionFlags while building (atomicOr needs 32 bits)
  std::int32_t *area, *left, *top, *right, *bottom, *first_x, *first_y;
  unsigned long long *sum_2x, *sum_y;
  std::int32_t *parent, *child_count, *descendant_count, *depth, *degree, *kept, *adj_begin, *adj;
  std::int32_t* slots;  // cap + 1 per region
  int slot_count;       // cap + 1
  std::int32_t *leaves, *leaf_count;
  bool nesting;  // child counts, descendant counts and depths are computed (TreeFields::all)
};

// Stage 3, regions (regions.cu): per pixel the runs, the regions at their first pixels and the
// adjacency pairs into the neighbour sets; then per run the statistics. `narrow`: a warp's partial
// sums fit in 32 bits (frames under 8192 pixels a side).
void enqueue_regions(DeviceView<const std::uint8_t> bin, const std::int32_t* label, const Numbering& num, Run* runs,
                     std::int32_t* run_region, const Counts& c, const RegionArrays& r, bool narrow, cudaStream_t stream);

// Stage 4, finishing (finishing.cu): flags, parent forest and neighbour lists. In one block with
// barriers between the steps (a camera frame's few regions), or as link and judge, then (after the
// caller's scan of the kept counts into adj_begin + 1) write.
void enqueue_finishing_in_one_block(const Counts& c, int w, int h, int cap, const std::int32_t* label, const Numbering& num,
                                    const RegionArrays& r, cudaStream_t stream);
void enqueue_link_and_judge(const Counts& c, int w, int h, int cap, const std::int32_t* label, const Numbering& num,
                            const RegionArrays& r, cudaStream_t stream);
void enqueue_write_neighbours(const Counts& c, const RegionArrays& r, cudaStream_t stream);

}  // namespace gpuvis::segment::cuda_impl

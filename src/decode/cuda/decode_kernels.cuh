#pragma once
// What the CUDA decoding stages share: the per-frame scratch, the result records that come back to
// the host, and the launchers of each stage (propagate.cu, symbols.cu, root_candidates.cu).
#include <cuda_runtime_api.h>

#include <cstdint>

#include "decode/blob_rules.hpp"
#include "cuda/memory.hpp"
#include "gpuvis/decode/blobs.hpp"
#include "decode/cuda/decode_cuda.hpp"
#include "segment/cuda/segment_cuda.hpp"

namespace gpuvis::decode::cuda_impl {

using segment::cuda_impl::DeviceTree;

// Derived parameters of the tree set (TreeSet, spec §4.1).
struct SetBounds {
  int tmin, tmax, rmin, dmin, dmax, min_leafs, max_nodes;
  int max_id;  // TreeSet::max_id (0: no limit)
  int yamaarashi, mirror;  // TreeSet::yamaarashi and mirror
};

// The tree set in device memory: keys (colour letter + canonical depth string) sorted in byte
// order, each zero-padded to kKeyBytes, and the ID of each.
constexpr int kKeyBytes = 64;
struct DeviceTreeTable {
  const char* keys = nullptr;
  const std::int32_t* ids = nullptr;
  int size = 0;
};

// One decoded candidate (valid or fuzzy), as it comes back.
struct SymbolRecord {
  double x, y, angle, root_x, root_y;
  std::int32_t id;  // >= 0 valid, -1 fuzzy
  std::int32_t root, root_size, leaves, gated_leaves;
  std::int32_t root_colour;
};

struct RootRecord {
  double x, y;
  std::int32_t size, colour, region, pad;
};

// A blob found by stage 4: a finger, a plain blob, or the blob of a fiducial's root or of a root
// candidate (object blobs; the host matches them to their symbol or candidate by region).
enum BlobKind : std::int32_t { kFingerBlob = 0, kPlainBlob = 1, kRegionBlob = 2 };
struct BlobRecord {
  double x, y, width, height, angle, score;
  std::int32_t area, region, kind, pad;
};

// The block that comes back every frame: counts, then the first kInline records of each kind.
// Records past kInline go to the overflow arrays (fetched only when there are any).
constexpr int kInline = 64;
struct ResultBlock {
  unsigned long long totals;  // the segmenter's counts (regions << 32 | runs), for Segmenter::accept
  std::int32_t candidates;  // candidate roots found by the propagation
  std::int32_t symbols;     // valid + fuzzy records written
  std::int32_t roots_found; // root candidates selected (before the limit)
  std::int32_t roots_kept;  // root records written (the first `limit` of them)
  std::int32_t leaves;      // clean leaves (the first round's size)
  std::int32_t blobs;            // blob records written by stage 4
  std::int32_t blob_candidates;  // regions stage 4 measures as possible fingers or blobs
  SymbolRecord symbol[kInline];
  RootRecord root[kInline];
  BlobRecord blob[kInline];  // last: not copied back when stage 4 is off
};

// Per-frame device scratch, sized by the region count. The results block, the overflow arrays and
// band_used belong to the frame's slot (a frame in flight per slot, Decoder::enqueue). `zeroed`
// arrays are cleared each frame by stage 1 (FrameClear): visit_round, cvc, blocked, taken,
// symbol_root (in that order, `regions` ints each), then the select's ticket.
struct Scratch {
  std::int32_t *visit_round, *cvc, *blocked, *taken, *symbol_root;
  std::int32_t *desc, *height, *parent;
  unsigned long long* children;  // a visited region's children: bits of its neighbour list
  std::int32_t *frontier_a, *frontier_b, *candidates;
  std::int32_t* selected;  // root candidates' regions, in region order
  std::int32_t* select_before;  // per region: its place among the qualifying regions of its block, or -1
  std::int32_t* select_blocks;  // per block of regions: the qualifying regions before it
  unsigned* select_ticket;      // in `zeroed`
  RootBand* band;          // the root-candidate band, on the device: this frame's, then the next's
  RootBand* band_used;     // this frame's band, kept in its slot (to run the frame again)
  SymbolRecord* symbol_overflow;
  RootRecord* root_overflow;
  BlobRecord* blob_overflow;
  ResultBlock* results;
};

// Stage 4's scratch (allocated only when fingers, blobs or object blobs are asked for): the runs
// sorted by region (keys and raster indices, then each region's first sorted run) and room for
// the row spans and hull chains of each region too tall for shared memory (5 rows + 2 points, at
// most 5 runs + 2).
struct BlobScratch {
  std::int32_t *keys_in, *keys_out, *index_in, *index_out;  // run_capacity each
  std::int32_t* run_begin;                                  // capacity + 1
  std::int32_t* candidates;  // capacity: region << 2 | plain-blob candidate << 1 | finger candidate
  blob_rules::Point* hull;                                  // 5 run_capacity + 2 capacity
  int key_bits;                                             // bits of the largest key (capacity)
};

// What stage 4 is asked for.
struct BlobStage {
  FingerParams fingers;
  BlobParams blobs;
  bool enabled() const { return measures_blobs(fingers, blobs); }
};

// What a frame clears before stage 1: the `zeroed` ints and the results block's counts.
struct FrameClear {
  std::int32_t* zeroed;  // DeviceBuffer storage: 256-byte aligned, cleared four ints at a time
  long long ints;
  std::int32_t* counts;
  int count_ints;
  // The share of thread `first` of `stride` threads.
  __device__ void run(long long first, long long stride) const {
    if (first < count_ints) counts[first] = 0;
    int4* z4 = reinterpret_cast<int4*>(zeroed);
    const long long quads = ints / 4;
    for (long long k = first; k < quads; k += stride) z4[k] = int4{0, 0, 0, 0};
    for (long long k = quads * 4 + first; k < ints; k += stride) zeroed[k] = 0;
  }
};

// Stage 1: clears the frame (FrameClear), then the rounds from the tree's clean leaves; fills
// scratch.candidates, scratch.children and results->candidates.
void propagate(const DeviceTree& tree, const SetBounds& bounds, const Scratch& s, const FrameClear& clear,
               cudaStream_t stream);
// Stage 2: decodes every candidate into symbol records, and marks the recorded roots (taken,
// symbol_root).
void decode_symbols(const DeviceTree& tree, const SetBounds& bounds, const DeviceTreeTable& table,
                    const Scratch& s, cudaStream_t stream);
// Stage 2b, when yamaarashi symbols are on: the ring of every record whose core looked up as
// yamaarashi (id rules::kYamaarashi), read in the frame's binary image; the record gets its ID
// (or becomes fuzzy) and its refined centre and angle. `rows` as YamaarashiScratch.
struct YamaarashiScratch {
  blob_rules::RowSpan* spans;  // kYamaarashiWarps * rows
  blob_rules::Point* hull;     // kYamaarashiWarps * hull_room(rows)
  int rows;                    // the tallest frame the scratch is sized for
};
constexpr int kYamaarashiWarps = 4;
void decode_yamaarashi(const DeviceTree& tree, const SetBounds& bounds, DeviceView<const std::uint8_t> binary,
                       const Scratch& s, const YamaarashiScratch& y, cudaStream_t stream);

// Where the results block goes when the frame's last stage is done: the slot's pinned host copy as
// the GPU addresses it, written across the bus (a copy operation of the same 6-10 KB costs several
// microseconds more per frame: H100 probe, run of 2026-11-22 (a462652)); `words` 8-byte words (the blob
// records only when stage 4 runs). Then the slot's publication count goes up by one, on the
// device and in pinned host memory (`flag`), after the block: the host waits for that number
// instead of an event behind the frame's graph (Decoder::collect).
struct Publish {
  unsigned long long* host = nullptr;
  int words = 0;
  unsigned long long* count = nullptr;  // device memory: the slot's publications so far
  unsigned long long* flag = nullptr;   // the same number in pinned host memory, as the GPU addresses it
  // One block, once every write to the results is visible to it.
  __device__ void run_in_one_block(const ResultBlock* results) const {
    const auto* from = reinterpret_cast<const unsigned long long*>(results);
    for (int i = threadIdx.x; i < words; i += blockDim.x) host[i] = from[i];
    __threadfence_system();  // this thread's copies reach the host before the flag
    __syncthreads();
    if (threadIdx.x == 0) {
      const unsigned long long n = *count + 1;
      *count = n;
      *reinterpret_cast<volatile unsigned long long*>(flag) = n;
    }
  }
};

// Stage 3: root candidates of the band in s.band (after stage 2), which then becomes the next
// frame's band. With a `publish` target (stage 3 is the frame's last) it also publishes the
// results when it runs in one launch, and returns whether it did. `chained`: its first kernel is
// chained to the stream's previous kernel (stage 2's), which only an event wait may not separate.
bool find_root_candidates(const DeviceTree& tree, const Scratch& s, const Publish& publish, bool chained, cudaStream_t stream);
constexpr int kSelectThreads = 1024;  // stage 3's blocks of regions (Scratch::select_blocks)

// Stage 4: fingers, plain blobs and object blobs (after stage 3), with the grey frame for the
// fingers' contrast. `temp` as for stage 3 (its own buffer: the sizes differ).
void find_blobs(const DeviceTree& tree, DeviceView<const std::uint8_t> grey, const BlobStage& stage, const Scratch& s,
                const BlobScratch& b, gpuvis::cuda::DeviceBuffer& temp, cudaStream_t stream);
// CUB's temporary storage for stage 4's sort of `runs` keys of `key_bits` bits.
std::size_t blob_sort_bytes(int runs, int key_bits);

inline int grid_for(long long n, int threads) { return static_cast<int>((n + threads - 1) / threads); }

// The frame's region count, read on the device; 0 when the frame overflowed the segmenter's
// capacity (nothing is decoded, and the frame is segmented again).
__device__ __forceinline__ int region_count(const DeviceTree& t) {
  const unsigned long long totals = *t.totals;
  const int regions = static_cast<int>(totals >> 32), runs = static_cast<int>(totals & 0xffffffffu);
  return regions <= t.capacity && runs <= t.run_capacity ? regions : 0;
}

// Record i of a kind: the first kInline in the results block, the rest in the overflow array.
template <class Record>
__device__ __forceinline__ Record& record_slot(Record* inline_records, Record* overflow, int i) {
  return i < kInline ? inline_records[i] : overflow[i - kInline];
}
__device__ __forceinline__ const SymbolRecord& symbol_record(const Scratch& s, int i) {
  return record_slot(s.results->symbol, s.symbol_overflow, i);
}

// A region's centroid as the CPU computes it (sum / area; the device keeps the sum of 2x).
__device__ __forceinline__ double centroid_x(const DeviceTree& t, int r) {
  return 0.5 * static_cast<double>(t.sum_2x[r]) / static_cast<double>(t.area[r]);
}
__device__ __forceinline__ double centroid_y(const DeviceTree& t, int r) {
  return static_cast<double>(t.sum_y[r]) / static_cast<double>(t.area[r]);
}

// A region's neighbour count, and the pushes it needs before it is visited (docs/decoding.md).
__device__ __forceinline__ int degree_of(const DeviceTree& t, int r) { return t.adj_begin[r + 1] - t.adj_begin[r]; }
// The pushes a region waits for before its visit: from each neighbour but its parent, or from all of
// them when it has no parent to push to (border or fragmented).
__device__ __forceinline__ int pushes_needed(int flags, int degree) {
  return (flags & (segment::kBorder | segment::kFragmented)) ? degree : degree - 1;
}

}  // namespace gpuvis::decode::cuda_impl

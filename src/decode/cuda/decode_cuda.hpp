#pragma once
// CUDA implementation of stage 3: amoeba decoding and root candidates on a region tree that is
// already in device memory (segment_cuda.hpp), following docs/decoding.md exactly as the CPU
// Decoder and find_root_candidates do. Stages (src/decode/cuda/):
//
//   1. propagate: the leaves, then the upward propagation in synchronous rounds, one block whose
//      threads visit a round's regions in parallel (a round is one barrier, not one launch);
//   2. symbols: one warp per candidate root: its subtree gathered level by level into shared
//      memory (lanes walk the neighbour lists), then the canonical key, the lookup in the tree set
//      held in device memory (binary search, lanes comparing 32 bytes at once), the gates, and the
//      centre and angle;
//   2b. yamaarashi rings, when asked for (yamaarashi_rules.hpp, as the CPU Decoder): one warp per
//      yamaarashi core: the root's oriented box from its runs, the 24 samples in the binary frame;
//   3. root candidates: CUB's order-keeping select over the regions, after the decoded roots and
//      their neighbours have been marked;
//   4. fingers and blobs, when asked for (blob_rules.hpp, as decode::find_fingers_and_blobs): the
//      runs sorted by region, then one warp per 32 regions testing candidates and measuring each
//      candidate's convex hull, box and finger score; and the object blobs of the decoded roots
//      and root candidates.
//
// Only the results come back: a fixed block of a few KB with the first 64 symbols, root
// candidates and blobs (and a second copy in the rare frame that has more). The root-candidate
// band follows the symbols on the device from frame to frame (set_band).
#include <cuda_runtime_api.h>

#include <memory>
#include <vector>

#include "gpuvis/core/image.hpp"
#include "cuda/memory.hpp"
#include "gpuvis/decode/blobs.hpp"
#include "gpuvis/decode/fiducial.hpp"
#include "gpuvis/decode/root_candidates.hpp"
#include "gpuvis/decode/tree_set.hpp"
#include "segment/cuda/segment_cuda.hpp"

namespace gpuvis::decode::cuda_impl {

// The largest symbol (regions, root included) the CUDA decoder handles: its per-candidate
// scratch lives in shared memory. Every shipped set has at most 19.
constexpr int kMaxSymbolNodes = 62;

struct RootBand {
  int min_size = 0, max_size = 0;  // root-candidate sizes; none when max_size <= 0
  int limit = 1024;                // at most this many, in region order (as find_root_candidates)
};

class Decoder {
 public:
  // Uploads the tree set. Throws ErrorCode::unsupported for sets with symbols of more than
  // kMaxSymbolNodes regions. Fingers, blobs and object blobs are found on the device when
  // fingers.size > 0, blobs.max_size > 0 or blobs.object_blobs (stage 4); otherwise stage 4 is off.
  // `slots` frames may be in flight at once: each slot has its own scratch and results, so the
  // frames of different slots may compute at the same time on different streams, provided their
  // band stages (enqueue_band_stage) run in frame order (the band is shared).
  explicit Decoder(const TreeSet& set, const FingerParams& fingers = {}, const BlobParams& blobs = {}, int slots = 1);
  ~Decoder();
  Decoder(Decoder&&) noexcept;
  Decoder& operator=(Decoder&&) noexcept;

  // Enqueues decoding of `tree` (segmented with cap = set.cap(), by segment() or segment_async():
  // the region count is read on the device) with root candidates in `band`, and the copy of the
  // results into the slot's pinned memory, on `stream`. Nothing waits here. `grey` is the frame the
  // tree was thresholded from (the fingers' contrast is measured in it); it may be empty when
  // fingers are off. = reserve() + set_band() + enqueue() + launched().
  // `binary` is the binary frame the tree was segmented from: yamaarashi rings are read there
  // (TreeSet::yamaarashi); it may be empty otherwise.
  void decode(const segment::cuda_impl::DeviceTree& tree, const RootBand& band, DeviceView<const std::uint8_t> grey,
              cudaStream_t stream, int slot = 0, DeviceView<const std::uint8_t> binary = {});

  // decode() in steps, for a caller that captures the per-frame work into a CUDA graph and keeps
  // frames in flight. reserve() (host only) sizes the scratch for a tree's capacities of regions
  // and runs, for `root_limit` root candidates and for frames of `rows` rows (yamaarashi rings);
  // generation() changes whenever it reallocated: work captured before holds stale addresses and
  // must be captured again.
  void reserve(int capacity, int run_capacity, int root_limit = RootBand{}.limit, int rows = 0);
  int generation() const;
  // The root-candidate band lives on the device. Each frame's decoding selects with it and then
  // moves it to that frame's valid symbols (root sizes / 1.2 .. * 1.2, as decode::RootCandidateFinder does
  // for the CPU backend) when it has any, so a stream of frames needs no host round trip for it.
  // set_band() replaces it in stream order (until then the first band, kFirstRootBandMin..Max).
  void set_band(const RootBand& band, cudaStream_t stream);
  // Puts back the band that the last frame of `slot` selected with (to run that frame again).
  void restore_band(int slot, cudaStream_t stream);
  // No allocation, no host wait, no event: can be captured into a CUDA graph.
  // = enqueue_symbols() + enqueue_band_stage().
  void enqueue(const segment::cuda_impl::DeviceTree& tree, DeviceView<const std::uint8_t> grey,
               DeviceView<const std::uint8_t> binary, cudaStream_t stream, int slot = 0);
  // enqueue() in two parts, for frames that compute at the same time in different slots: stages 1
  // and 2 (symbols), which read nothing of other frames, and then stage 3 (root candidates, which
  // reads the band the previous frame left and leaves this frame's), stage 4 and the copy of the
  // results. The caller orders the second parts of consecutive frames (an event between streams).
  // `follows_symbols`: nothing (no event wait) comes between the two parts on the stream, so stage
  // 3's first kernel is chained to stage 2's last (cuda/chain.cuh).
  void enqueue_symbols(const segment::cuda_impl::DeviceTree& tree, DeviceView<const std::uint8_t> binary,
                       cudaStream_t stream, int slot = 0);
  void enqueue_band_stage(const segment::cuda_impl::DeviceTree& tree, DeviceView<const std::uint8_t> grey,
                          cudaStream_t stream, int slot = 0, bool follows_symbols = false);
  // Marks the end of the slot's frame on `stream`, after enqueue() or after launching a graph that
  // holds it (an event recorded while capturing could not be waited for): collect() waits for it.
  void launched(int slot, cudaStream_t stream);
  // The event launched() records (the end of the slot's frame on the device, for GPU timing).
  const gpuvis::cuda::Event& launched_event(int slot) const;

  // Waits for the slot's last launched() frame (not for later work on the stream), then unpacks its
  // results: fiducials as the CPU Decoder orders them (valid by root region, then fuzzy by root
  // region; leaf_begin is 0, the leaf list stays on the device), root candidates in region order,
  // and the counts; with stage 4, into `blobs` (when not null) the fingers and blobs in region
  // order and the object blobs index for index with `fiducials` and `roots` (a Blob with region
  // -1 for a degenerate region).
  void collect(std::vector<Fiducial>& fiducials, std::vector<RootCandidate>& roots, DecodeStats& stats,
               BlobResults* blobs = nullptr, int slot = 0);
  // The segmentation counts of the collected frame (DeviceTree::totals), for Segmenter::accept:
  // when the frame overflowed the segmenter's capacity, nothing was decoded.
  unsigned long long segment_totals() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpuvis::decode::cuda_impl

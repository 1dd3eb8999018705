// The CUDA segmenter: pixel labels (labels.cu) -> region numbers, runs and statistics -> adjacency
// -> parent forest, producing exactly segment_cpu's RegionTree (docs/segmentation.md).
//
// Designed for few launches and no host synchronisation (launch latency, not work, dominates
// small frames; every kernel is chained to the one before it, cuda/chain.cuh): one packed scan
// over the labelling's 32-pixel word marks numbers regions and runs at once (one block on camera
// frames, block_prefix_sum.cuh; CUB's scan on large ones); the counts stay on the device and the
// per-region arrays have a capacity (a frame that exceeds it is redone with more); one per-pixel
// kernel then writes the runs, creates the regions at their first pixels and records adjacency
// straight into per-region sets of cap + 1 slots (a region that fills them has more than cap
// neighbours: saturated), so no sort of pairs is needed; three per-region kernels and one scan
// finish the flags, the parent forest and the neighbour lists (on camera frames one block does
// all four, with barriers between them). The run lists by region are built on the host by
// download() (a counting sort), since only host consumers need them.
//
// Stages: 1. labels (labels.cu), 2. numbering (the scan, here), 3. regions (regions.cu),
// 4. finishing (finishing.cu); this file sizes the buffers, runs the stages in order and hands out
// the tree. segment_cpu has the same stages as functions.
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <climits>
#include <cstring>
#include <vector>

#include "cuda/chain.cuh"
#include "cuda/check.hpp"
#include "cuda/memory.hpp"
#include "segment/cuda/segment_cuda.hpp"
#include "segment/cuda/block_prefix_sum.cuh"
#include "segment/cuda/labels.cuh"
#include "segment/cuda/tree_arrays.cuh"
namespace gpuvis::segment::cuda_impl {
namespace {

// A typed device array that grows on demand and keeps its storage between frames.
template <class T>
class Array {
 public:
  T* ensure(std::size_t n) {
    buf_.reserve(std::max<std::size_t>(n, 1) * sizeof(T));
    return buf_.as<T>();
  }
  T* get() const { return buf_.as<T>(); }

 private:
  gpuvis::cuda::DeviceBuffer buf_;
};

// The per-region arrays download() copies back, laid out in one device block so that they return
// in one copy (each array 256-byte aligned).
struct TreeBlock {
  std::size_t bytes = 0;
  std::size_t colour = 0, flags = 0, area = 0, left = 0, top = 0, right = 0, bottom = 0, first_x = 0, first_y = 0,
              parent = 0, child_count = 0, descendant_count = 0, depth = 0, adj_begin = 0, sum_2x = 0, sum_y = 0;
  explicit TreeBlock(int regions = 0) {
    const std::size_t n = static_cast<std::size_t>(regions);
    auto take = [this](std::size_t b) {
      const std::size_t at = bytes;
      bytes += (b + 255) / 256 * 256;
      return at;
    };
    colour = take(n);
    flags = take(n);
    for (std::size_t* f : {&area, &left, &top, &right, &bottom, &first_x, &first_y, &parent, &child_count,
                           &descendant_count, &depth})
      *f = take(n * sizeof(std::int32_t));
    adj_begin = take((n + 1) * sizeof(std::int32_t));
    sum_2x = take(n * sizeof(unsigned long long));
    sum_y = take(n * sizeof(unsigned long long));
  }
};

// When a frame's finishing runs in one block (finish_regions_in_one_block): its region capacity is
// at most kOneBlockRegions (a 640x480 frame's is 4 800, 800x600's 7 500), and the previous frame
// had at most kOneBlockUpTo regions (one per thread: a camera frame changes little from one frame
// to the next). With more, each thread takes several regions in turn, and the per-step kernels are
// faster: measured on an H100 (run of 2026-11-22 (0e0bbb0)), a 640x480 frame of 3 094 regions took 197-203
// us end to end in one block against 145-150 us before. A segmenter that went over goes back to
// one block below kOneBlockBackAt regions, so that a count near the limit does not switch every
// frame (each switch re-captures the detector's graphs).
constexpr int kOneBlockRegions = 8192;
constexpr int kOneBlockUpTo = 1024;
constexpr int kOneBlockBackAt = 512;
static_assert(kOneBlockRegions <= kOneBlockMax, "the one-block finishing scans its kept counts with block_prefix_sum_in_block");

}  // namespace

struct Segmenter::Impl {
  DeviceTree tree;
  Array<std::int32_t> label;
  Array<WordMarks> marks;                // per 32-pixel word
  Array<unsigned long long> word_prefix;  // per word + 1
  Array<Run> runs;
  Array<std::int32_t> run_region;
  Array<std::uint8_t> tree_block;
  TreeBlock layout;
  Array<std::uint32_t> wide_flags;
  Array<std::int32_t> degree, kept, slots, adj, leaves;
  std::size_t empty_slots = 0;  // leading ints of `slots` known to be kEmpty
  Array<std::uint8_t> temp;
  std::size_t temp_bytes = 0;
  mutable gpuvis::cuda::PinnedBuffer staging;
  mutable std::vector<std::int32_t> run_fill;  // download()'s counting-sort cursors, kept between frames
  int region_capacity = 0, run_capacity = 0;   // room in the per-region and per-run arrays
  bool few_regions = true;  // the last accepted frame had few regions (kOneBlockUpTo, kOneBlockBackAt)

  // Whether a frame of `pixels` pixels is finished in one block (the region capacity is at most
  // the pixel count).
  bool finishes_in_one_block(long long pixels) const {
    return few_regions && std::min<long long>(region_capacity, pixels) <= kOneBlockRegions;
  }
  gpuvis::cuda::Event events[5];  // start, labelled, numbered, regions built, done

  template <class Labels>
  const DeviceTree& segment_async(DeviceView<const std::uint8_t> bin, int cap, cudaStream_t stream, TreeFields fields,
                                  Labels&& label_frame);

  // CUB's two-phase calls: query the temporary storage, grow it, run.
  template <class Call>
  void cub_call(Call&& call) {
    std::size_t need = 0;
    GPUVIS_CUDA_CHECK(call(nullptr, need));
    if (need > temp_bytes) {
      temp.ensure(need);
      temp_bytes = need;
    }
    GPUVIS_CUDA_CHECK(call(temp.get(), temp_bytes));
  }

  // out = the prefix sums of in[0 .. n), exclusive or inclusive: one chained block up to
  // kOneBlockMax elements (block_prefix_sum.cuh), CUB's device-wide scan beyond.
  template <bool kInclusive, class T, class In>
  void prefix_sum(In in, T* out, int n, cudaStream_t stream) {
    if (n <= kOneBlockMax) return launch_block_prefix_sum<kInclusive>(in, out, n, stream);
    cub_call([&](void* t, std::size_t& b) {
      if constexpr (kInclusive) return cub::DeviceScan::InclusiveSum(t, b, in, out, n, stream);
      else return cub::DeviceScan::ExclusiveSum(t, b, in, out, n, stream);
    });
  }

  RegionArrays region_arrays(int n, int cap, cudaStream_t stream) {
    layout = TreeBlock(n);
    std::uint8_t* b = tree_block.ensure(layout.bytes);
    auto i32 = [b](std::size_t at) { return reinterpret_cast<std::int32_t*>(b + at); };
    auto u64 = [b](std::size_t at) { return reinterpret_cast<unsigned long long*>(b + at); };
    const TreeBlock& l = layout;
    RegionArrays r{};
    r.colour = b + l.colour;
    r.flags = b + l.flags;
    r.wide_flags = wide_flags.ensure(n);
    r.area = i32(l.area);
    r.left = i32(l.left);
    r.top = i32(l.top);
    r.right = i32(l.right);
    r.bottom = i32(l.bottom);
    r.first_x = i32(l.first_x);
    r.first_y = i32(l.first_y);
    r.sum_2x = u64(l.sum_2x);
    r.sum_y = u64(l.sum_y);
    r.parent = i32(l.parent);
    r.child_count = i32(l.child_count);
    r.descendant_count = i32(l.descendant_count);
    r.depth = i32(l.depth);
    r.adj_begin = i32(l.adj_begin);
    r.degree = degree.ensure(n);
    r.kept = kept.ensure(n);
    r.leaves = leaves.ensure(n + 1);
    r.leaf_count = r.leaves + n;
    r.slot_count = cap + 1;
    // Neighbour slots are emptied by the frame that used them (write_neighbours); new room is
    // emptied here.
    const std::size_t slot_ints = static_cast<std::size_t>(n) * (cap + 1);
    r.slots = slots.ensure(slot_ints);
    if (slot_ints > empty_slots) {
      GPUVIS_CUDA_CHECK(cudaMemsetAsync(r.slots, 0xff, slot_ints * sizeof(std::int32_t), stream));  // kEmpty
      empty_slots = slot_ints;
    }
    r.adj = adj.ensure(static_cast<std::size_t>(n) * cap);  // at most cap kept per region
    return r;
  }
};

Segmenter::Segmenter() : impl_(std::make_unique<Impl>()) {}
Segmenter::~Segmenter() = default;
Segmenter::Segmenter(Segmenter&&) noexcept = default;
Segmenter& Segmenter::operator=(Segmenter&&) noexcept = default;

const DeviceTree& Segmenter::tree() const { return impl_->tree; }

const DeviceTree& Segmenter::segment_async(DeviceView<const std::uint8_t> bin, int cap, cudaStream_t stream,
                                           TreeFields fields) {
  return impl_->segment_async(bin, cap, stream, fields, [&](std::int32_t* label, WordMarks* marks) {
    label_pixels(bin, label, marks, stream);
  });
}

const DeviceTree& Segmenter::segment_async(const BernsenInput& grey, int cap, cudaStream_t stream, TreeFields fields) {
  return impl_->segment_async(grey.binary, cap, stream, fields, [&](std::int32_t* label, WordMarks* marks) {
    threshold_and_label_pixels(grey, label, marks, stream);
  });
}

// `label_frame(label, marks)` enqueues stage 1, which leaves the binary frame in `bin`.
template <class Labels>
const DeviceTree& Segmenter::Impl::segment_async(DeviceView<const std::uint8_t> bin, int cap, cudaStream_t stream,
                                                 TreeFields fields, Labels&& label_frame) {
  require(bin.channels == 1, "segment: the binary frame must have one channel");
  check_image_shape(bin.width, bin.height, 1);
  require(cap >= 1, "segment: adjacency cap must be at least 1");
  require(static_cast<long long>(bin.width) * bin.height < (1ll << 31) - 1,
          "segment (CUDA): frames must have fewer than 2^31 pixels");
  Impl& m = *this;
  const int w = bin.width, h = bin.height, n = w * h;
  // Room for a camera frame's regions and runs to start with; accept() grows it when a frame has
  // more. Neither count can exceed the pixel count.
  if (m.region_capacity == 0) {
    m.region_capacity = std::max(1024, n / 64);
    m.run_capacity = std::max(4096, n / 8);
  }
  const int region_capacity = std::min(m.region_capacity, n), run_capacity = std::min(m.run_capacity, n);
  m.events[0].record(stream);

  // 1. Pixel labels.
  const int words = word_count(n);
  std::int32_t* label = m.label.ensure(n);
  WordMarks* marks = m.marks.ensure(words);
  label_frame(label, marks);
  m.events[1].record(stream);

  // 2. Region and run numbers by one packed exclusive scan over the words; the totals stay on the
  // device.
  unsigned long long* prefix = m.word_prefix.ensure(words + 1);
  const auto counts = thrust::make_transform_iterator(thrust::counting_iterator<int>(0), WordCounts{marks, words});
  m.prefix_sum<false>(counts, prefix, words + 1, stream);
  m.events[2].record(stream);
  const Counts c{prefix + words, region_capacity, run_capacity};
  const Numbering num{marks, prefix};

  // 3. Regions, runs, statistics and neighbour sets.
  RegionArrays r = m.region_arrays(region_capacity, cap, stream);
  r.nesting = fields == TreeFields::all;
  Run* runs = m.runs.ensure(run_capacity);
  std::int32_t* run_region = m.run_region.ensure(run_capacity);
  // A warp's partial sums of (x0 + x1) * length stay below 32 * 2 * w^2 and of y * length below
  // 32 * h * w: both fit in 32 bits for frames up to 8191 pixels wide and high.
  const bool narrow = w < 8192 && h < 8192;
  enqueue_regions(bin, label, num, runs, run_region, c, r, narrow, stream);
  m.events[3].record(stream);

  // 4. Flags, parent forest and neighbour lists.
  const auto* labels = static_cast<const std::int32_t*>(label);
  const bool one_block = m.finishes_in_one_block(n);
  if (one_block) {
    enqueue_finishing_in_one_block(c, w, h, cap, labels, num, r, stream);
  } else {
    enqueue_link_and_judge(c, w, h, cap, labels, num, r, stream);
    m.prefix_sum<true>(static_cast<const std::int32_t*>(r.kept), r.adj_begin + 1, region_capacity, stream);
    enqueue_write_neighbours(c, r, stream);
  }
  m.events[4].record(stream);

  DeviceTree& t = m.tree;
  t.width = w;
  t.height = h;
  t.cap = cap;
  t.capacity = region_capacity;
  t.run_capacity = run_capacity;
  t.totals = prefix + words;
  t.nesting = r.nesting;
  t.one_block = one_block;
  t.regions = -1;  // known after accept()
  t.runs = -1;
  t.colour = r.colour;
  t.flags = r.flags;
  t.area = r.area;
  t.left = r.left;
  t.top = r.top;
  t.right = r.right;
  t.bottom = r.bottom;
  t.sum_2x = r.sum_2x;
  t.sum_y = r.sum_y;
  t.first_x = r.first_x;
  t.first_y = r.first_y;
  t.parent = r.parent;
  t.child_count = r.child_count;
  t.descendant_count = r.descendant_count;
  t.depth = r.depth;
  t.adj_begin = r.adj_begin;
  t.adj = r.adj;
  t.leaves = r.leaves;
  t.leaf_count = r.leaf_count;
  t.raster_runs = runs;
  t.run_region = run_region;
  return t;
}

bool Segmenter::finishes_in_one_block() const {
  return impl_->finishes_in_one_block(static_cast<long long>(impl_->tree.width) * impl_->tree.height);
}

bool Segmenter::accept(unsigned long long totals) {
  Impl& m = *impl_;
  const int regions = static_cast<int>(totals >> 32), runs = static_cast<int>(totals & 0xffffffffu);
  m.few_regions = regions <= (m.few_regions ? kOneBlockUpTo : kOneBlockBackAt);
  if (regions <= m.tree.capacity && runs <= m.tree.run_capacity) {
    m.tree.regions = regions;
    m.tree.runs = runs;
    return true;
  }
  // Half as much again as this frame needed, so that a slowly growing count does not overflow
  // every frame.
  const long long n = static_cast<long long>(m.tree.width) * m.tree.height;
  m.region_capacity = static_cast<int>(std::min<long long>(n, std::max(m.region_capacity, regions + regions / 2)));
  m.run_capacity = static_cast<int>(std::min<long long>(n, std::max(m.run_capacity, runs + runs / 2)));
  return false;
}

const DeviceTree& Segmenter::segment(DeviceView<const std::uint8_t> bin, int cap, cudaStream_t stream) {
  return segment_until_accepted([&] { return &segment_async(bin, cap, stream); }, stream);
}

const DeviceTree& Segmenter::segment(const BernsenInput& grey, int cap, cudaStream_t stream) {
  return segment_until_accepted([&] { return &segment_async(grey, cap, stream); }, stream);
}

template <class Segment>
const DeviceTree& Segmenter::segment_until_accepted(Segment&& segment_once, cudaStream_t stream) {
  for (;;) {
    const DeviceTree& t = *segment_once();
    impl_->staging.reserve(sizeof(unsigned long long));
    GPUVIS_CUDA_CHECK(cudaMemcpyAsync(impl_->staging.get(), t.totals, sizeof(unsigned long long), cudaMemcpyDeviceToHost,
                                      stream));
    GPUVIS_CUDA_CHECK(cudaStreamSynchronize(stream));
    if (accept(*impl_->staging.as<unsigned long long>())) return t;
  }
}

SegmentTimes Segmenter::stage_times() const {
  const auto& e = impl_->events;
  auto us = [](const gpuvis::cuda::Event& a, const gpuvis::cuda::Event& b) {
    return 1000.0 * gpuvis::cuda::Event::elapsed_ms(a, b);
  };
  return {us(e[0], e[1]), us(e[1], e[2]), us(e[2], e[3]), us(e[3], e[4])};
}

void Segmenter::download(RegionTree& out, cudaStream_t stream) const {
  const Impl& m = *impl_;
  const DeviceTree& t = m.tree;
  require(t.regions >= 0, "Segmenter::download: the frame's counts are not known yet (call accept() first)");
  require(t.nesting, "Segmenter::download: the frame was segmented without its nesting (TreeFields::for_decoder)");
  const auto n = static_cast<std::size_t>(t.regions);
  const auto nruns = static_cast<std::size_t>(t.runs);
  const TreeBlock& l = m.layout;
  // Copies into one pinned staging buffer (sized for the most neighbour entries a tree can keep,
  // cap per region): the per-region block and the runs with their regions, then, once the list
  // offsets have arrived, exactly the kept neighbour entries.
  const std::size_t runs_at = l.bytes, runs_bytes = nruns * sizeof(Run);
  const std::size_t region_at = runs_at + runs_bytes, region_bytes = nruns * sizeof(std::int32_t);
  const std::size_t adj_at = region_at + region_bytes;
  const std::size_t adj_bytes = n * static_cast<std::size_t>(t.cap) * sizeof(std::int32_t);
  m.staging.reserve(adj_at + adj_bytes);
  std::uint8_t* host = m.staging.as<std::uint8_t>();
  // Each array's first n (or n + 1) entries only: the rest of the block was never written for
  // this frame (compute-sanitizer's initcheck reports copies of unwritten memory).
  const auto* block = static_cast<const std::uint8_t*>(m.tree_block.get());
  auto copy_used = [&](std::size_t at, std::size_t bytes) {
    if (bytes) GPUVIS_CUDA_CHECK(cudaMemcpyAsync(host + at, block + at, bytes, cudaMemcpyDeviceToHost, stream));
  };
  copy_used(l.colour, n);
  copy_used(l.flags, n);
  for (std::size_t at : {l.area, l.left, l.top, l.right, l.bottom, l.first_x, l.first_y, l.parent, l.child_count,
                         l.descendant_count, l.depth})
    copy_used(at, n * sizeof(std::int32_t));
  copy_used(l.adj_begin, (n + 1) * sizeof(std::int32_t));
  copy_used(l.sum_2x, n * sizeof(unsigned long long));
  copy_used(l.sum_y, n * sizeof(unsigned long long));
  GPUVIS_CUDA_CHECK(cudaMemcpyAsync(host + runs_at, t.raster_runs, runs_bytes, cudaMemcpyDeviceToHost, stream));
  GPUVIS_CUDA_CHECK(cudaMemcpyAsync(host + region_at, t.run_region, region_bytes, cudaMemcpyDeviceToHost, stream));
  GPUVIS_CUDA_CHECK(cudaStreamSynchronize(stream));
  const auto* adj_begin = reinterpret_cast<const std::int32_t*>(host + l.adj_begin);
  const std::size_t nadj = static_cast<std::size_t>(adj_begin[n]);
  if (nadj)
    GPUVIS_CUDA_CHECK(cudaMemcpyAsync(host + adj_at, t.adj, nadj * sizeof(std::int32_t), cudaMemcpyDeviceToHost, stream));
  GPUVIS_CUDA_CHECK(cudaStreamSynchronize(stream));

  out.width = t.width;
  out.height = t.height;
  out.cap = t.cap;
  auto unpack = [&](auto& vec, std::size_t at, std::size_t count) {
    vec.resize(count);
    if (count) std::memcpy(vec.data(), host + at, count * sizeof(vec[0]));
  };
  unpack(out.colour, l.colour, n);
  unpack(out.flags, l.flags, n);
  unpack(out.area, l.area, n);
  unpack(out.left, l.left, n);
  unpack(out.top, l.top, n);
  unpack(out.right, l.right, n);
  unpack(out.bottom, l.bottom, n);
  unpack(out.first_x, l.first_x, n);
  unpack(out.first_y, l.first_y, n);
  unpack(out.parent, l.parent, n);
  unpack(out.child_count, l.child_count, n);
  unpack(out.descendant_count, l.descendant_count, n);
  unpack(out.depth, l.depth, n);
  unpack(out.adj_begin, l.adj_begin, n + 1);
  unpack(out.adj, adj_at, nadj);
  const auto* sx = reinterpret_cast<const unsigned long long*>(host + l.sum_2x);
  const auto* sy = reinterpret_cast<const unsigned long long*>(host + l.sum_y);
  out.sum_x.resize(n);
  out.sum_y.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    out.sum_x[i] = 0.5 * static_cast<double>(sx[i]);
    out.sum_y[i] = static_cast<double>(sy[i]);
  }
  // Run lists by region, in raster order: a counting sort of the raster-ordered runs.
  const auto* runs = reinterpret_cast<const Run*>(host + runs_at);
  const auto* run_region = reinterpret_cast<const std::int32_t*>(host + region_at);
  out.run_begin.assign(n + 1, 0);
  for (std::size_t k = 0; k < nruns; ++k) ++out.run_begin[run_region[k] + 1];
  for (std::size_t i = 0; i < n; ++i) out.run_begin[i + 1] += out.run_begin[i];
  out.runs.resize(nruns);
  std::vector<std::int32_t>& fill = m.run_fill;
  fill.assign(out.run_begin.begin(), out.run_begin.end() - 1);
  for (std::size_t k = 0; k < nruns; ++k) out.runs[fill[run_region[k]]++] = runs[k];
}

}  // namespace gpuvis::segment::cuda_impl

// The CUDA segmenter: pixel labels (labels.cu) -> region numbers, runs and statistics -> adjacency
// -> parent forest, producing exactly segment_cpu's RegionTree (docs/segmentation.md). Device-wide
// steps use CUB (scans, radix sorts, unique, select); per-element steps are one thread per pixel,
// run, pair or region with atomics. Nothing is walked by a single thread except a region's own
// ancestor chain.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include <bit>
#include <climits>
#include <cstring>

#include "gpuvis/cuda/check.hpp"
#include "gpuvis/cuda/memory.hpp"
#include "gpuvis/segment/segment_cuda.hpp"
#include "labels.cuh"

namespace gpuvis::segment::cuda_impl {
namespace {

using Pair = unsigned long long;  // (region a) << 32 | (region b)

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

// The arrays download() copies back, laid out in one device block so that the tree returns in one
// copy (each array 256-byte aligned).
struct TreeBlock {
  std::size_t bytes = 0;
  std::size_t colour, flags, area, left, top, right, bottom, first_x, first_y, parent, child_count, descendant_count,
      depth, run_begin, adj_begin, sum_2x, sum_y;
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
    run_begin = take((n + 1) * sizeof(std::int32_t));
    adj_begin = take((n + 1) * sizeof(std::int32_t));
    sum_2x = take(n * sizeof(unsigned long long));
    sum_y = take(n * sizeof(unsigned long long));
  }
};

int blocks(int n, int threads = 256) { return (n + threads - 1) / threads; }

// --- Region numbers and runs --------------------------------------------------------------------

// is_root[i] = the pixel is its region's first pixel; run_start[i] = a run begins at the pixel.
// Both arrays have n + 1 entries; the last is 0 so that their exclusive scans end with the totals.
__global__ void mark_roots_and_runs(DeviceView<const std::uint8_t> bin, const std::int32_t* label,
                                    std::int32_t* is_root, std::int32_t* run_start) {
  const int n = bin.width * bin.height;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > n) return;
  if (i == n) {
    is_root[n] = run_start[n] = 0;
    return;
  }
  const int y = i / bin.width, x = i - y * bin.width;
  const std::uint8_t* row = bin.row(y);
  is_root[i] = label[i] == i;
  run_start[i] = x == 0 || (row[x] != 0) != (row[x - 1] != 0);
}

struct RegionArrays {
  std::uint8_t* colour;
  std::uint32_t* flags;  // RegionFlags while building (atomicOr needs 32 bits)
  std::int32_t *area, *left, *top, *right, *bottom, *first_x, *first_y, *run_count;
  unsigned long long *sum_2x, *sum_y;
  std::int32_t *parent, *child_count, *descendant_count, *depth, *degree, *adj_count;
};

__global__ void init_regions(int regions, RegionArrays r) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= regions) return;
  r.flags[i] = 0;
  r.area[i] = 0;
  r.left[i] = INT_MAX;
  r.right[i] = -1;
  r.bottom[i] = -1;
  r.run_count[i] = 0;
  r.sum_2x[i] = 0;
  r.sum_y[i] = 0;
  r.child_count[i] = 0;
  r.descendant_count[i] = 0;
  r.degree[i] = 0;
  r.adj_count[i] = 0;
}

// Writes each run's row and start (at its first pixel) and end (at its last pixel), each run's
// region, and each region's colour and first pixel (at the region's root pixel).
__global__ void emit_runs(DeviceView<const std::uint8_t> bin, const std::int32_t* label, const std::int32_t* region_of_root,
                          const std::int32_t* run_of_start, Run* runs, std::int32_t* run_region, RegionArrays r) {
  const int n = bin.width * bin.height;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int w = bin.width, y = i / w, x = i - y * w;
  const std::uint8_t* row = bin.row(y);
  const bool white = row[x] != 0;
  const bool start = x == 0 || white != (row[x - 1] != 0);
  const bool end = x == w - 1 || white != (row[x + 1] != 0);
  const int run = run_of_start[i] + start - 1;  // the run containing pixel i
  if (start) {
    runs[run].y = y;
    runs[run].x0 = x;
    run_region[run] = region_of_root[label[i]];
  }
  if (end) runs[run].x1 = x;
  if (label[i] == i) {
    const int reg = region_of_root[i];
    r.colour[reg] = white ? 255 : 0;
    r.first_x[reg] = x;
    r.first_y[reg] = y;
    r.top[reg] = y;
  }
}

__global__ void accumulate_runs(int nruns, const Run* runs, const std::int32_t* run_region, RegionArrays r) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= nruns) return;
  const Run run = runs[k];
  const int reg = run_region[k];
  const int len = run.x1 - run.x0 + 1;
  atomicAdd(&r.area[reg], len);
  atomicMin(&r.left[reg], run.x0);
  atomicMax(&r.right[reg], run.x1);
  atomicMax(&r.bottom[reg], run.y);
  atomicAdd(&r.run_count[reg], 1);
  atomicAdd(&r.sum_2x[reg], static_cast<unsigned long long>(run.x0 + run.x1) * static_cast<unsigned long long>(len));
  atomicAdd(&r.sum_y[reg], static_cast<unsigned long long>(run.y) * static_cast<unsigned long long>(len));
}

__global__ void mark_border(int regions, int w, int h, RegionArrays r) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= regions) return;
  if (r.left[i] == 0 || r.top[i] == 0 || r.right[i] == w - 1 || r.bottom[i] == h - 1) r.flags[i] = kBorder;
}

__global__ void iota(int n, std::int32_t* v) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = i;
}

__global__ void gather_runs(int nruns, const std::int32_t* order, const Run* runs, Run* out) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < nruns) out[k] = runs[order[k]];
}

// --- Adjacency ----------------------------------------------------------------------------------

// §3.3 pairs at run starts: in row 0 with the run to the west, elsewhere with the pixel above when
// its colour differs. Both directions are written.
__global__ void emit_pairs(DeviceView<const std::uint8_t> bin, int nruns, const Run* runs, const std::int32_t* run_region,
                           const std::int32_t* label, const std::int32_t* region_of_root, Pair* pairs, int* count) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= nruns) return;
  const Run run = runs[k];
  const int w = bin.width;
  int other = -1;
  if (run.y == 0) {
    if (run.x0 > 0) other = region_of_root[label[run.x0 - 1]];
  } else if ((bin.row(run.y)[run.x0] != 0) != (bin.row(run.y - 1)[run.x0] != 0)) {
    other = region_of_root[label[(run.y - 1) * w + run.x0]];
  }
  if (other < 0) return;
  const Pair a = static_cast<unsigned>(run_region[k]), b = static_cast<unsigned>(other);
  const int at = atomicAdd(count, 2);
  pairs[at] = a << 32 | b;
  pairs[at + 1] = b << 32 | a;
}

__global__ void count_degrees(int npairs, const Pair* pairs, std::int32_t* degree) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < npairs) atomicAdd(&degree[pairs[k] >> 32], 1);
}

// Saturation (more than cap distinct neighbours) and fragmentation (a neighbour is saturated), and
// how many neighbours each region keeps.
__global__ void judge_pairs(int npairs, const Pair* pairs, int cap, RegionArrays r) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= npairs) return;
  const int a = static_cast<int>(pairs[k] >> 32), b = static_cast<int>(pairs[k] & 0xffffffffu);
  if (r.degree[a] > cap) return;
  if (r.degree[b] > cap) atomicOr(&r.flags[a], static_cast<std::uint32_t>(kFragmented));
  else atomicAdd(&r.adj_count[a], 1);
}

struct KeepPair {
  const std::int32_t* degree;
  int cap;
  __device__ bool operator()(Pair p) const {
    return degree[p >> 32] <= cap && degree[p & 0xffffffffu] <= cap;
  }
};

__global__ void neighbour_values(int n, const Pair* kept, std::int32_t* adj) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) adj[k] = static_cast<std::int32_t>(kept[k] & 0xffffffffu);
}

// --- Parent forest ------------------------------------------------------------------------------

__global__ void link_parents(int regions, int w, int cap, const std::int32_t* label, const std::int32_t* region_of_root,
                             RegionArrays r) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= regions) return;
  if (r.degree[i] > cap) r.flags[i] |= kSaturated;
  if (r.flags[i] & kBorder) {
    r.parent[i] = -1;
    return;
  }
  const int p = region_of_root[label[(r.first_y[i] - 1) * w + r.first_x[i]]];
  r.parent[i] = p;
  atomicAdd(&r.child_count[p], 1);
}

// Each region walks its ancestor chain once: its depth is the chain's length, and it adds itself
// to every ancestor's descendant count. The work is the sum of depths (small on camera frames,
// bounded by the frame's nesting on adversarial ones).
__global__ void walk_ancestors(int regions, RegionArrays r) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= regions) return;
  int d = 0;
  for (int p = r.parent[i]; p >= 0; p = r.parent[p]) {
    atomicAdd(&r.descendant_count[p], 1);
    ++d;
  }
  r.depth[i] = d;
}

__global__ void narrow_flags(int regions, const std::uint32_t* wide, std::uint8_t* flags) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < regions) flags[i] = static_cast<std::uint8_t>(wide[i]);
}

}  // namespace

struct Segmenter::Impl {
  DeviceTree tree;
  // Per pixel (+1 for scan totals).
  Array<std::int32_t> label, is_root, region_of_root, run_start, run_of_start;
  // Per run.
  Array<Run> runs, run_list;
  Array<std::int32_t> run_region, run_region_sorted, run_order, run_order_sorted;
  // Per region: the downloaded arrays in one block, the working arrays beside it.
  Array<std::uint8_t> tree_block;
  TreeBlock layout;
  Array<std::uint32_t> wide_flags;
  Array<std::int32_t> run_count, degree, adj_count;
  // Per adjacency entry.
  Array<Pair> pairs, pairs_sorted, pairs_unique, pairs_kept;
  Array<std::int32_t> adj;
  Array<int> counters;  // [0] pairs written, [1] unique pairs, [2] kept pairs
  Array<std::uint8_t> temp;
  std::size_t temp_bytes = 0;
  int* host_counts = nullptr;  // pinned
  int unique_pairs = 0;        // an upper bound of the kept neighbour entries, for download()
  mutable gpuvis::cuda::PinnedBuffer staging;

  Impl() { GPUVIS_CUDA_CHECK(cudaMallocHost(&host_counts, 4 * sizeof(int))); }
  ~Impl() { cudaFreeHost(host_counts); }

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

  RegionArrays region_arrays(int n) {
    layout = TreeBlock(n);
    std::uint8_t* b = tree_block.ensure(layout.bytes);
    auto i32 = [b](std::size_t at) { return reinterpret_cast<std::int32_t*>(b + at); };
    auto u64 = [b](std::size_t at) { return reinterpret_cast<unsigned long long*>(b + at); };
    const TreeBlock& l = layout;
    return {b + l.colour,          wide_flags.ensure(n), i32(l.area),     i32(l.left),
            i32(l.top),            i32(l.right),         i32(l.bottom),   i32(l.first_x),
            i32(l.first_y),        run_count.ensure(n),  u64(l.sum_2x),   u64(l.sum_y),
            i32(l.parent),         i32(l.child_count),   i32(l.descendant_count), i32(l.depth),
            degree.ensure(n),      adj_count.ensure(n)};
  }
};

Segmenter::Segmenter() : impl_(std::make_unique<Impl>()) {}
Segmenter::~Segmenter() = default;
Segmenter::Segmenter(Segmenter&&) noexcept = default;
Segmenter& Segmenter::operator=(Segmenter&&) noexcept = default;

const DeviceTree& Segmenter::tree() const { return impl_->tree; }

const DeviceTree& Segmenter::segment(DeviceView<const std::uint8_t> bin, int cap, cudaStream_t stream) {
  require(bin.channels == 1, "segment: the binary frame must have one channel");
  check_image_shape(bin.width, bin.height, 1);
  require(cap >= 1, "segment: adjacency cap must be at least 1");
  require(static_cast<long long>(bin.width) * bin.height < (1ll << 31) - 1,
          "segment (CUDA): frames must have fewer than 2^31 pixels");
  Impl& m = *impl_;
  const int w = bin.width, h = bin.height, n = w * h;

  // 1. Pixel labels; 2. region numbers and run numbers by exclusive scans.
  std::int32_t* label = m.label.ensure(n);
  label_pixels(bin, label, stream);
  std::int32_t* is_root = m.is_root.ensure(n + 1);
  std::int32_t* run_start = m.run_start.ensure(n + 1);
  std::int32_t* region_of_root = m.region_of_root.ensure(n + 1);
  std::int32_t* run_of_start = m.run_of_start.ensure(n + 1);
  mark_roots_and_runs<<<blocks(n + 1), 256, 0, stream>>>(bin, label, is_root, run_start);
  GPUVIS_CUDA_CHECK_LAUNCH();
  m.cub_call([&](void* t, std::size_t& b) { return cub::DeviceScan::ExclusiveSum(t, b, is_root, region_of_root, n + 1, stream); });
  m.cub_call([&](void* t, std::size_t& b) { return cub::DeviceScan::ExclusiveSum(t, b, run_start, run_of_start, n + 1, stream); });
  GPUVIS_CUDA_CHECK(cudaMemcpyAsync(m.host_counts, region_of_root + n, sizeof(int), cudaMemcpyDeviceToHost, stream));
  GPUVIS_CUDA_CHECK(cudaMemcpyAsync(m.host_counts + 1, run_of_start + n, sizeof(int), cudaMemcpyDeviceToHost, stream));
  GPUVIS_CUDA_CHECK(cudaStreamSynchronize(stream));
  const int regions = m.host_counts[0], nruns = m.host_counts[1];

  // Runs, their regions, and the statistics.
  RegionArrays r = m.region_arrays(regions);
  init_regions<<<blocks(regions), 256, 0, stream>>>(regions, r);
  GPUVIS_CUDA_CHECK_LAUNCH();
  Run* runs = m.runs.ensure(nruns);
  std::int32_t* run_region = m.run_region.ensure(nruns);
  emit_runs<<<blocks(n), 256, 0, stream>>>(bin, label, region_of_root, run_of_start, runs, run_region, r);
  GPUVIS_CUDA_CHECK_LAUNCH();
  accumulate_runs<<<blocks(nruns), 256, 0, stream>>>(nruns, runs, run_region, r);
  GPUVIS_CUDA_CHECK_LAUNCH();
  mark_border<<<blocks(regions), 256, 0, stream>>>(regions, w, h, r);
  GPUVIS_CUDA_CHECK_LAUNCH();
  std::int32_t* run_begin = reinterpret_cast<std::int32_t*>(m.tree_block.get() + m.layout.run_begin);
  GPUVIS_CUDA_CHECK(cudaMemsetAsync(run_begin, 0, sizeof(int), stream));
  m.cub_call([&](void* t, std::size_t& b) { return cub::DeviceScan::InclusiveSum(t, b, r.run_count, run_begin + 1, regions, stream); });

  // Run lists: a stable radix sort of run numbers by region keeps raster order within a region.
  const int region_bits = std::max(1, static_cast<int>(std::bit_width(static_cast<unsigned>(regions))));
  std::int32_t* order = m.run_order.ensure(nruns);
  std::int32_t* order_sorted = m.run_order_sorted.ensure(nruns);
  std::int32_t* region_sorted = m.run_region_sorted.ensure(nruns);
  iota<<<blocks(nruns), 256, 0, stream>>>(nruns, order);
  GPUVIS_CUDA_CHECK_LAUNCH();
  m.cub_call([&](void* t, std::size_t& b) {
    return cub::DeviceRadixSort::SortPairs(t, b, run_region, region_sorted, order, order_sorted, nruns, 0, region_bits, stream);
  });
  Run* run_list = m.run_list.ensure(nruns);
  gather_runs<<<blocks(nruns), 256, 0, stream>>>(nruns, order_sorted, runs, run_list);
  GPUVIS_CUDA_CHECK_LAUNCH();

  // 3. Adjacency: pairs at run starts, sorted and made unique, then degrees, saturation,
  //    fragmentation and the kept neighbour lists (already sorted by region, then neighbour).
  Pair* pairs = m.pairs.ensure(2 * static_cast<std::size_t>(nruns));
  int* counters = m.counters.ensure(4);
  GPUVIS_CUDA_CHECK(cudaMemsetAsync(counters, 0, 4 * sizeof(int), stream));
  emit_pairs<<<blocks(nruns), 256, 0, stream>>>(bin, nruns, runs, run_region, label, region_of_root, pairs, counters);
  GPUVIS_CUDA_CHECK_LAUNCH();
  GPUVIS_CUDA_CHECK(cudaMemcpyAsync(m.host_counts, counters, sizeof(int), cudaMemcpyDeviceToHost, stream));
  GPUVIS_CUDA_CHECK(cudaStreamSynchronize(stream));
  const int npairs = m.host_counts[0];
  Pair* sorted = m.pairs_sorted.ensure(npairs);
  Pair* unique = m.pairs_unique.ensure(npairs);
  int nunique = 0;
  if (npairs > 0) {  // a frame of one region has no pairs
    m.cub_call([&](void* t, std::size_t& b) {
      return cub::DeviceRadixSort::SortKeys(t, b, pairs, sorted, npairs, 0, 32 + region_bits, stream);
    });
    m.cub_call([&](void* t, std::size_t& b) { return cub::DeviceSelect::Unique(t, b, sorted, unique, counters + 1, npairs, stream); });
    GPUVIS_CUDA_CHECK(cudaMemcpyAsync(m.host_counts + 1, counters + 1, sizeof(int), cudaMemcpyDeviceToHost, stream));
    GPUVIS_CUDA_CHECK(cudaStreamSynchronize(stream));
    nunique = m.host_counts[1];
    count_degrees<<<blocks(nunique), 256, 0, stream>>>(nunique, unique, r.degree);
    GPUVIS_CUDA_CHECK_LAUNCH();
    judge_pairs<<<blocks(nunique), 256, 0, stream>>>(nunique, unique, cap, r);
    GPUVIS_CUDA_CHECK_LAUNCH();
  }
  std::int32_t* adj_begin = reinterpret_cast<std::int32_t*>(m.tree_block.get() + m.layout.adj_begin);
  m.cub_call([&](void* t, std::size_t& b) { return cub::DeviceScan::InclusiveSum(t, b, r.adj_count, adj_begin + 1, regions, stream); });
  GPUVIS_CUDA_CHECK(cudaMemsetAsync(adj_begin, 0, sizeof(int), stream));
  m.unique_pairs = nunique;
  Pair* kept = m.pairs_kept.ensure(nunique);
  std::int32_t* adj = m.adj.ensure(nunique);
  if (nunique > 0) {
    m.cub_call([&](void* t, std::size_t& b) {
      return cub::DeviceSelect::If(t, b, unique, kept, counters + 2, nunique, KeepPair{r.degree, cap}, stream);
    });
    neighbour_values<<<blocks(nunique), 256, 0, stream>>>(nunique, kept, adj);  // entries past the kept count are unused
    GPUVIS_CUDA_CHECK_LAUNCH();
  }

  // 4. Parent forest.
  link_parents<<<blocks(regions), 256, 0, stream>>>(regions, w, cap, label, region_of_root, r);
  GPUVIS_CUDA_CHECK_LAUNCH();
  walk_ancestors<<<blocks(regions), 256, 0, stream>>>(regions, r);
  GPUVIS_CUDA_CHECK_LAUNCH();
  std::uint8_t* flags = m.tree_block.get() + m.layout.flags;
  narrow_flags<<<blocks(regions), 256, 0, stream>>>(regions, r.flags, flags);
  GPUVIS_CUDA_CHECK_LAUNCH();

  DeviceTree& t = m.tree;
  t.width = w;
  t.height = h;
  t.cap = cap;
  t.regions = regions;
  t.runs = nruns;
  t.neighbours = -1;  // known on the device (adj_begin[regions]); read by download()
  t.colour = r.colour;
  t.flags = flags;
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
  t.adj_begin = adj_begin;
  t.adj = adj;
  t.run_begin = run_begin;
  t.run_list = run_list;
  return t;
}

void Segmenter::download(RegionTree& out, cudaStream_t stream) const {
  const Impl& m = *impl_;
  const DeviceTree& t = m.tree;
  const auto n = static_cast<std::size_t>(t.regions);
  const TreeBlock& l = m.layout;
  // Three copies into one pinned staging buffer: the per-region block, the run lists and the
  // neighbour lists (copied up to the unique pair count, which bounds the kept entries).
  const std::size_t runs_at = l.bytes, runs_bytes = static_cast<std::size_t>(t.runs) * sizeof(Run);
  const std::size_t adj_at = runs_at + runs_bytes, adj_bytes = static_cast<std::size_t>(m.unique_pairs) * sizeof(std::int32_t);
  m.staging.reserve(adj_at + adj_bytes);
  std::uint8_t* host = m.staging.as<std::uint8_t>();
  GPUVIS_CUDA_CHECK(cudaMemcpyAsync(host, m.tree_block.get(), l.bytes, cudaMemcpyDeviceToHost, stream));
  GPUVIS_CUDA_CHECK(cudaMemcpyAsync(host + runs_at, t.run_list, runs_bytes, cudaMemcpyDeviceToHost, stream));
  if (adj_bytes) GPUVIS_CUDA_CHECK(cudaMemcpyAsync(host + adj_at, t.adj, adj_bytes, cudaMemcpyDeviceToHost, stream));
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
  unpack(out.run_begin, l.run_begin, n + 1);
  unpack(out.adj_begin, l.adj_begin, n + 1);
  unpack(out.runs, runs_at, static_cast<std::size_t>(t.runs));
  unpack(out.adj, adj_at, static_cast<std::size_t>(out.adj_begin[n]));
  const auto* sx = reinterpret_cast<const unsigned long long*>(host + l.sum_2x);
  const auto* sy = reinterpret_cast<const unsigned long long*>(host + l.sum_y);
  out.sum_x.resize(n);
  out.sum_y.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    out.sum_x[i] = 0.5 * static_cast<double>(sx[i]);
    out.sum_y[i] = static_cast<double>(sy[i]);
  }
}

}  // namespace gpuvis::segment::cuda_impl

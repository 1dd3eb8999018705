// Stage 4 of CUDA decoding: fingers, plain blobs and object blobs, as decode::find_fingers_and_blobs
// and decode::region_blob do it on the host, with the same rules (blob_rules.hpp).
//
// The device tree keeps its runs in raster order, and a blob needs its region's runs, so the runs
// are sorted by region first (CUB's radix sort is stable: raster order is kept within a region).
// Then a thread per region tests it as a candidate (white, of finger or blob size and shape, away
// from any symbol) and lists it, and a warp per listed region (and per symbol root and root
// candidate for the object blobs) measures it: the lanes copy the region's runs into shared memory
// and find each row's span, lanes 0 and 1 build the two chains of the convex hull (a sequential
// walk over the rows, in shared memory), and the lanes share the box's edge moments and extents
// and the finger test's boundary pixels and contrast.
#include <algorithm>

#include <cub/device/device_radix_sort.cuh>

#include "decode/cuda/decode_kernels.cuh"
#include "cuda/chain.cuh"
#include "cuda/check.hpp"

namespace gpuvis::decode::cuda_impl {
namespace {

using blob_rules::Point;
using blob_rules::RowSpan;
using segment::Run;

constexpr int kWarps = 4;         // per block
constexpr int kSharedRuns = 256;  // regions with more runs are read through the sorted indices
constexpr int kSharedRows = 192;  // regions with more rows keep their spans and hull in global memory

__device__ __forceinline__ int run_count(const DeviceTree& t) { return static_cast<int>(*t.totals & 0xffffffffu); }

// Keys of the sort: each run's region; the unused tail of the arrays (and every run of a frame
// that overflowed the segmenter) gets the largest key, so it sorts last and is never read.
__global__ void sort_keys(DeviceTree t, BlobScratch b) {
  gpuvis::cuda::await_previous_kernel();
  const int runs = region_count(t) > 0 ? run_count(t) : 0;
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < t.run_capacity; k += gridDim.x * blockDim.x) {
    b.keys_in[k] = k < runs ? t.run_region[k] : t.capacity;
    b.index_in[k] = k;
  }
}

// Region r's runs are sorted entries [run_begin[r], run_begin[r + 1]) (every region has a run).
__global__ void find_run_begins(DeviceTree t, BlobScratch b) {
  gpuvis::cuda::await_previous_kernel();
  const int regions = region_count(t);
  if (regions == 0) return;
  const int runs = run_count(t);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < runs; i += gridDim.x * blockDim.x) {
    const int key = b.keys_out[i];
    if (i == 0 || b.keys_out[i - 1] != key) b.run_begin[key] = i;
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) b.run_begin[regions] = runs;
}

// A region's runs as blob_rules reads them: copied into shared memory, or through the indices.
struct SharedRuns {
  const Run* runs;
  __device__ const Run& operator[](int i) const { return runs[i]; }
};
struct SortedRuns {
  const Run* raster;
  const std::int32_t* index;
  __device__ Run operator[](int i) const { return raster[index[i]]; }
};

struct WarpSpace {
  Run runs[kSharedRuns];
  RowSpan spans[kSharedRows];
  Point hull[2 * kSharedRows + 1];  // blob_rules::hull_room(kSharedRows)
  Point back[2 * kSharedRows + 1];  // the backward chain, built beside the forward one
  int chain[2];                     // the two chains' lengths
};

template <class T>
__device__ T warp_sum(T v) {
  for (int o = 16; o; o >>= 1) v += __shfl_xor_sync(~0u, v, o);
  return v;
}

// Room for a region's row spans and hull (the forward chain and the whole hull in `hull`, the
// backward chain in `back`).
struct HullSpace {
  RowSpan* spans;
  Point *hull, *back;
};

// Runs work(runs, n, space) on every lane of the warp with region r's runs and room for its hull:
// the warp's shared space when the region is small, else the region's slice of the global scratch
// (5 rows + 2 points from 5 run_begin + 2 r: the two chains' 2 rows + 1 each, then the spans).
template <class Work>
__device__ void with_region(const DeviceTree& t, const BlobScratch& b, WarpSpace& w, int r, Work&& work) {
  const int lane = threadIdx.x % 32;
  const int begin = b.run_begin[r], n = b.run_begin[r + 1] - begin, rows = t.bottom[r] - t.top[r] + 1;
  HullSpace space{w.spans, w.hull, w.back};
  if (rows > kSharedRows) {
    space.hull = b.hull + 5 * begin + 2 * r;
    space.back = space.hull + blob_rules::hull_room(rows);
    space.spans = reinterpret_cast<RowSpan*>(space.back + blob_rules::hull_room(rows));
  }
  if (n <= kSharedRuns) {
    for (int i = lane; i < n; i += 32) w.runs[i] = t.raster_runs[b.index_out[begin + i]];
    __syncwarp();
    work(SharedRuns{w.runs}, n, space);
  } else {
    work(SortedRuns{t.raster_runs, b.index_out + begin}, n, space);
  }
  __syncwarp();  // the next region reuses the warp's shared space
}

// The box of region r (blob_rules::geometry), on the warp: the lanes find the row spans, lanes 0
// and 1 build the two chains of the hull at once, and the lanes compute the edges' moments (added
// in the CPU's order, so the sums are the same to the last bit) and the extents. Every lane
// returns the box.
template <class Runs>
__device__ BlobGeometry warp_geometry(const DeviceTree& t, int r, const Runs& runs, int n, const HullSpace& sp,
                                      WarpSpace& w) {
  const int lane = threadIdx.x % 32;
  const int top = t.top[r], rows = t.bottom[r] - top + 1;
  for (int i = lane; i < n; i += 32) blob_rules::row_span_of_run(runs, n, i, top, sp.spans);
  __syncwarp();
  int points = 0;
  for (int k = lane; k < rows; k += 32) points += blob_rules::row_end_count(sp.spans[k]);
  if (warp_sum(points) < 3) return BlobGeometry{};
  if (lane < 2) w.chain[lane] = blob_rules::hull_chain(sp.spans, rows, top, lane == 1, lane == 0 ? sp.hull : sp.back);
  __syncwarp();
  const int forward = w.chain[0], backward = w.chain[1], size = forward + backward - 2;
  for (int j = lane; j < backward - 2; j += 32) sp.hull[forward + j] = sp.back[1 + j];
  __syncwarp();
  const Point* h = sp.hull;
  // hull_start: the smallest (x, y) vertex (vertices are distinct).
  int s = lane < size ? lane : 0;
  for (int k = lane + 32; k < size; k += 32)
    if (blob_rules::leftmost_first(h[k], h[s])) s = k;
  for (int o = 16; o; o >>= 1) {
    const int other = __shfl_xor_sync(~0u, s, o);
    if (blob_rules::leftmost_first(h[other], h[s])) s = other;
  }
  blob_rules::Moments m;
  for (int base = 0; base < size; base += 32) {
    const blob_rules::Moments e = base + lane < size ? blob_rules::edge_moments(h, size, s, base + lane) : blob_rules::Moments{};
    for (int j = 0; j < 32 && base + j < size; ++j) {  // every lane adds the same terms in the same order
      blob_rules::Moments ej;
      ej.len = __shfl_sync(~0u, e.len, j);
      ej.cx = __shfl_sync(~0u, e.cx, j);
      ej.cy = __shfl_sync(~0u, e.cy, j);
      ej.sxx = __shfl_sync(~0u, e.sxx, j);
      ej.syy = __shfl_sync(~0u, e.syy, j);
      ej.sxy = __shfl_sync(~0u, e.sxy, j);
      m.add(ej);
    }
  }
  const blob_rules::Axis a = blob_rules::principal_axis(m);
  blob_rules::Extent e;
  for (int k = lane; k < size; k += 32) e.add(h[k], a);
  for (int o = 16; o; o >>= 1) {
    blob_rules::Extent other;
    other.min1 = __shfl_xor_sync(~0u, e.min1, o);
    other.max1 = __shfl_xor_sync(~0u, e.max1, o);
    other.min2 = __shfl_xor_sync(~0u, e.min2, o);
    other.max2 = __shfl_xor_sync(~0u, e.max2, o);
    e.add(other);
  }
  return blob_rules::box(a, e);
}

__device__ void append(const Scratch& s, const BlobRecord& rec) {
  const int i = atomicAdd(&s.results->blobs, 1);
  record_slot(s.results->blob, s.blob_overflow, i) = rec;
}

__device__ BlobRecord record(const BlobGeometry& g, double score, int area, int region, BlobKind kind) {
  return {g.x, g.y, g.width, g.height, g.angle, score, area, region, kind, 0};
}

// Which branches region r may take (spec §6.2 B and C), after the cheap tests: white, off the
// border, of finger or blob size and shape, not part of a decoded symbol, not near one.
__device__ blob_rules::Branches candidate(const DeviceTree& t, const Scratch& s, const BlobStage& st, int r) {
  if (t.colour[r] != 255 || (t.flags[r] & segment::kBorder)) return {};
  blob_rules::Branches br = blob_rules::branches(t.right[r] - t.left[r] + 1, t.bottom[r] - t.top[r] + 1, degree_of(t, r),
                                                 st.fingers, st.blobs);
  if (!br.finger && !br.blob) return {};
  if (blob_rules::in_symbol(t.parent, s.symbol_root, r)) return {};
  if (br.finger) {  // a leaf of a print that did not decode is no finger, as on the CPU
    const int p = t.parent[r], g = p >= 0 ? t.parent[p] : -1;
    blob_rules::Enclosing e;
    if (p >= 0) {
      e.parent_colour = t.colour[p];
      e.parent_on_border = (t.flags[p] & segment::kBorder) != 0;
      e.parent_width = t.right[p] - t.left[p] + 1, e.parent_height = t.bottom[p] - t.top[p] + 1;
    }
    if (g >= 0)
      e.grandparent_colour = t.colour[g], e.grandparent_width = t.right[g] - t.left[g] + 1,
      e.grandparent_height = t.bottom[g] - t.top[g] + 1;
    if (blob_rules::inside_print(e, t.width, t.height, st.fingers)) br.finger = false;
    if (!br.finger && !br.blob) return {};
  }
  const double cx = centroid_x(t, r), cy = centroid_y(t, r);
  const int symbols = s.results->symbols;
  for (int i = 0; i < symbols; ++i) {
    const SymbolRecord& f = symbol_record(s, i);
    if (blob_rules::near_symbol(cx, cy, f.x, f.y, f.root_size)) return {};
  }
  return br;
}

// Candidate list entries: region << 2 | blob << 1 | finger.
__global__ void collect_candidates(DeviceTree t, BlobStage st, Scratch s, BlobScratch b) {
  gpuvis::cuda::await_previous_kernel();
  const int regions = region_count(t);
  for (int base = blockIdx.x * blockDim.x; base < regions; base += gridDim.x * blockDim.x) {
    const int r = base + static_cast<int>(threadIdx.x);
    const blob_rules::Branches br = r < regions ? candidate(t, s, st, r) : blob_rules::Branches{};
    const bool take = br.finger || br.blob;
    // One atomic per warp for its candidates.
    const unsigned mask = __ballot_sync(~0u, take);
    const int lane = static_cast<int>(threadIdx.x) % 32;
    int first = 0;
    if (lane == 0 && mask) first = atomicAdd(&s.results->blob_candidates, __popc(mask));
    first = __shfl_sync(~0u, first, 0);
    if (take) b.candidates[first + __popc(mask & ((1u << lane) - 1))] = r << 2 | (br.blob ? 2 : 0) | (br.finger ? 1 : 0);
  }
}

// The finger test (spec §7.1 step 5, §7.3) on the warp: the lanes take the runs, for the contrast
// and the boundary pixels of the score. Returns the score when the region is a finger, else -1.
template <class Runs>
__device__ double finger_test(const DeviceTree& t, int region, const Runs& runs, int n, const BlobGeometry& g,
                              DeviceView<const std::uint8_t> grey, const FingerParams& fp) {
  const blob_rules::ScoreFrame f = blob_rules::score_frame(t.area[region], g);
  double sum = 0;
  int count = 0, lo = 255, hi = 0;
  for (int i = threadIdx.x % 32; i < n; i += 32) {
    blob_rules::contrast_of_run(runs, i, t.top[region], grey, lo, hi);
    if (!f.rejected)
      blob_rules::for_each_boundary_pixel(runs, n, i, [&](int x, int y) {
        sum += blob_rules::score_term(g, f, x, y);
        ++count;
      });
  }
  sum = warp_sum(sum);
  count = warp_sum(count);
  for (int o = 16; o; o >>= 1) {
    lo = min(lo, __shfl_xor_sync(~0u, lo, o));
    hi = max(hi, __shfl_xor_sync(~0u, hi, o));
  }
  const double score = f.rejected ? 1000 : blob_rules::score_of(f, sum, count);
  return blob_rules::is_finger(score, hi - lo, fp) ? score : -1;
}

// One warp per item: the collected candidates (fingers and plain blobs), then with object blobs the
// decoded symbols' roots and the root candidates.
__global__ void __launch_bounds__(kWarps * 32)
    measure_blobs(DeviceTree t, DeviceView<const std::uint8_t> grey, BlobStage st, Scratch s, BlobScratch b) {
  gpuvis::cuda::await_previous_kernel();
  __shared__ alignas(16) unsigned char space[kWarps * sizeof(WarpSpace)];
  WarpSpace& w = reinterpret_cast<WarpSpace*>(space)[threadIdx.x / 32];
  const int candidates = s.results->blob_candidates;
  const int symbols = st.blobs.object_blobs ? s.results->symbols : 0;
  const int roots = st.blobs.object_blobs ? s.results->roots_kept : 0;
  const int items = candidates + symbols + roots;
  for (int item = blockIdx.x * kWarps + static_cast<int>(threadIdx.x) / 32; item < items; item += gridDim.x * kWarps) {
    int region = 0;
    bool finger = false, blob = false;
    if (item < candidates) {
      const int entry = b.candidates[item];
      region = entry >> 2;
      finger = entry & 1;
      blob = entry & 2;
    } else if (item < candidates + symbols) {
      region = symbol_record(s, item - candidates).root;
    } else {
      region = s.selected[item - candidates - symbols];
    }
    with_region(t, b, w, region, [&](const auto& runs, int n, const HullSpace& space) {
      const BlobGeometry g = warp_geometry(t, region, runs, n, space, w);
      if (!g.ok) return;
      const bool lane0 = threadIdx.x % 32 == 0;
      if (item >= candidates) {
        if (lane0) append(s, record(g, 0, t.area[region], region, kRegionBlob));
        return;
      }
      if (finger) {
        const double score = finger_test(t, region, runs, n, g, grey, st.fingers);
        if (score >= 0) {
          if (lane0) append(s, record(g, score, t.area[region], region, kFingerBlob));
          return;
        }
      }
      if (blob && lane0) append(s, record(g, 0, t.area[region], region, kPlainBlob));
    });
  }
}

}  // namespace

std::size_t blob_sort_bytes(int runs, int key_bits) {
  std::size_t bytes = 0;
  GPUVIS_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, static_cast<const std::int32_t*>(nullptr),
                                                    static_cast<std::int32_t*>(nullptr),
                                                    static_cast<const std::int32_t*>(nullptr),
                                                    static_cast<std::int32_t*>(nullptr), runs, 0, key_bits));
  return bytes;
}

void find_blobs(const DeviceTree& tree, DeviceView<const std::uint8_t> grey, const BlobStage& stage, const Scratch& s,
                const BlobScratch& b, gpuvis::cuda::DeviceBuffer& temp, cudaStream_t stream) {
  const int runs = tree.run_capacity;
  using gpuvis::cuda::launch_chained;
  const dim3 per_run(std::min(grid_for(runs, 256), 1024));
  launch_chained(sort_keys, per_run, dim3(256), 0, stream, tree, b);
  std::size_t bytes = blob_sort_bytes(runs, b.key_bits);
  temp.reserve(bytes);
  GPUVIS_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.get(), bytes, b.keys_in, b.keys_out, b.index_in, b.index_out,
                                                    runs, 0, b.key_bits, stream));
  launch_chained(find_run_begins, per_run, dim3(256), 0, stream, tree, b);
  if (finds_fingers_or_blobs(stage.fingers, stage.blobs))
    launch_chained(collect_candidates, dim3(std::min(grid_for(tree.capacity, 256), 1024)), dim3(256), 0, stream, tree, stage, s, b);
  // Items are counted on the device: enough warps for one item per eight regions of capacity.
  launch_chained(measure_blobs, dim3(std::clamp(grid_for(tree.capacity, 8 * kWarps), 64, 4096)), dim3(kWarps * 32), 0, stream,
                 tree, grey, stage, s, b);
}

}  // namespace gpuvis::decode::cuda_impl

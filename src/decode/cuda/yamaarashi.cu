// Stage 2b of CUDA decoding: yamaarashi rings (spec §6.10), as the CPU's decode_yamaarashi with
// the same rules (yamaarashi_rules.hpp, blob_rules.hpp). One warp per record whose core looked up
// as yamaarashi:
//
//   spans:    the root's row ends from the runs of its bounding box's rows (raster order: two
//             32-way searches find those rows, the lanes scan them with atomic min/max per row);
//   box:      lane 0 builds the convex hull and the oriented box from the row ends, finds the
//             core's dots and refines the centre and angle;
//   ring:     lanes 0-23 read one sample each in the binary frame, a ballot gathers the bits, and
//             lane 0 checks the CRC and writes the record.
//
// Camera frames have a few yamaarashi at most, so one block does them all. This file is compiled
// without FMA contraction, so hull, box and centre are the CPU's to the last bit; sample positions
// go through CUDA's cos and sin (within 2 ulp of the CPU's).
#include <climits>
#include <cstdint>

#include "decode/blob_rules.hpp"
#include "decode/yamaarashi_rules.hpp"
#include "decode/cuda/decode_kernels.cuh"
#include "cuda/chain.cuh"
#include "cuda/check.hpp"

namespace gpuvis::decode::cuda_impl {
namespace {

// The tree and the propagation's marks as yamaarashi::core_points reads them (the CPU's rules:
// a child is a traversed neighbour with fewer descendants; centres are centroids).
struct DeviceCore {
  DeviceTree t;
  const std::int32_t* visit_round;
  const std::int32_t* desc;
  GPUVIS_HD int degree(int r) const { return t.adj_begin[r + 1] - t.adj_begin[r]; }
  GPUVIS_HD int neighbour(int r, int k) const { return t.adj[t.adj_begin[r] + k]; }
  GPUVIS_HD bool is_child(int parent, int r) const { return visit_round[r] && desc[r] < desc[parent]; }
  GPUVIS_HD yamaarashi::Point centre(int r) const {
    const double area = static_cast<double>(t.area[r]);
    return {0.5 * static_cast<double>(t.sum_2x[r]) / area, static_cast<double>(t.sum_y[r]) / area};
  }
};

// The whole warp: the first run in raster order whose row is >= y (runs [0, n) sorted by row).
__device__ int first_run_of_row(const segment::Run* runs, int n, int y) {
  const int lane = threadIdx.x % 32;
  int lo = 0, hi = n;  // the answer lies in [lo, hi]
  while (hi - lo > 32) {
    const int step = (hi - lo + 31) / 32;
    const int p = lo + lane * step;
    const unsigned at_or_after = __ballot_sync(0xffffffffu, p < hi && runs[p].y >= y);
    if (!at_or_after) {
      lo = lo + 31 * step + 1;
      if (lo > hi) lo = hi;
    } else {
      const int f = __ffs(at_or_after) - 1;
      hi = lo + f * step;
      lo = f > 0 ? lo + (f - 1) * step + 1 : lo;
    }
  }
  const int p = lo + lane;
  const unsigned at_or_after = __ballot_sync(0xffffffffu, p < hi && runs[p].y >= y);
  return at_or_after ? lo + __ffs(at_or_after) - 1 : hi;
}

__global__ void __launch_bounds__(kYamaarashiWarps * 32)
    read_rings(DeviceTree t, SetBounds b, DeviceView<const std::uint8_t> binary, Scratch s, YamaarashiScratch y) {
  gpuvis::cuda::await_previous_kernel();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (region_count(t) == 0) return;
  const int runs = static_cast<int>(*t.totals & 0xffffffffu);
  blob_rules::RowSpan* spans = y.spans + static_cast<std::size_t>(warp) * y.rows;
  blob_rules::Point* hull = y.hull + static_cast<std::size_t>(warp) * blob_rules::hull_room(y.rows);
  const int count = s.results->symbols;
  for (int k = warp; k < count; k += kYamaarashiWarps) {
    SymbolRecord& rec = record_slot(s.results->symbol, s.symbol_overflow, k);
    if (rec.id != rules::kYamaarashi) continue;
    const int root = rec.root, top = t.top[root], bottom = t.bottom[root], rows = bottom - top + 1;
    for (int r = lane; r < rows; r += 32) spans[r] = {INT_MAX, -1};
    const int begin = first_run_of_row(t.raster_runs, runs, top), end = first_run_of_row(t.raster_runs, runs, bottom + 1);
    __syncwarp();
    for (int j = begin + lane; j < end; j += 32)
      if (t.run_region[j] == root) {
        const segment::Run run = t.raster_runs[j];
        atomicMin(&spans[run.y - top].left, run.x0);
        atomicMax(&spans[run.y - top].right, run.x1);
      }
    __syncwarp();
    // Lane 0: box, core, centre and angle; then every lane takes them for its sample.
    int ok = 0;
    yamaarashi::Box box{};
    double angle = 0;
    if (lane == 0) {
      const BlobGeometry g = blob_rules::geometry(hull, blob_rules::hull(spans, rows, top, hull));
      yamaarashi::Point b0{}, b1{}, w0{}, w1{};
      if (g.ok && yamaarashi::core_points(DeviceCore{t, s.visit_round, s.desc}, root, b0, b1, w0, w1)) {
        const yamaarashi::Point c = yamaarashi::centre(rec.x, rec.y, rec.root_x, rec.root_y);
        angle = yamaarashi::refined_angle(b0, b1, w0, w1, rec.angle);
        rec.x = c.x;
        rec.y = c.y;
        rec.angle = angle;
        box = {g.x, g.y, g.extent_long / 2, g.extent_short / 2, g.axis_x, g.axis_y};
        ok = 1;
      }
    }
    ok = __shfl_sync(0xffffffffu, ok, 0);
    int id = rules::kFuzzy;
    if (ok) {
      angle = __shfl_sync(0xffffffffu, angle, 0);
      box.x = __shfl_sync(0xffffffffu, box.x, 0);
      box.y = __shfl_sync(0xffffffffu, box.y, 0);
      box.half_long = __shfl_sync(0xffffffffu, box.half_long, 0);
      box.half_short = __shfl_sync(0xffffffffu, box.half_short, 0);
      box.ux = __shfl_sync(0xffffffffu, box.ux, 0);
      box.uy = __shfl_sync(0xffffffffu, box.uy, 0);
      // Lane i * 4 + q reads sample (i, q): its bit in the ballot is sample_bit(i, q).
      int px = 0, py = 0;
      const bool mine = lane < yamaarashi::kSamples;
      const bool inside = mine && yamaarashi::sample_pixel(box, angle, lane / 4, lane % 4, b.mirror != 0, t.width, t.height, px, py);
      const unsigned outside = __ballot_sync(0xffffffffu, mine && !inside);
      const unsigned black = __ballot_sync(0xffffffffu, inside && binary(px, py) == 0);
      if (!outside) id = yamaarashi::decode_samples(black);
    }
    if (lane == 0) {
      id = rules::limit_id(id, b.max_id);
      rec.id = id >= 0 ? id : -1;
    }
    __syncwarp();  // the spans are reused for the next record
  }
}

}  // namespace

void decode_yamaarashi(const DeviceTree& tree, const SetBounds& bounds, DeviceView<const std::uint8_t> binary,
                       const Scratch& s, const YamaarashiScratch& y, cudaStream_t stream) {
  gpuvis::cuda::launch_chained(read_rings, dim3(1), dim3(kYamaarashiWarps * 32), 0, stream, tree, bounds, binary, s, y);
}

}  // namespace gpuvis::decode::cuda_impl

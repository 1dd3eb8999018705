// The CUDA decoder: the tree set in device memory, and per slot (a frame in flight) the frame's
// scratch (grown, never shrunk), its results block and overflow arrays and their pinned copy, so
// that the frames of different slots compute at the same time on their own streams and a frame's
// results wait in its slot while later frames compute. Only the root-candidate band is shared:
// stage 3 of consecutive frames must run in frame order (enqueue_band_stage).
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#include "decode/yamaarashi_rules.hpp"
#include "decode/cuda/decode_kernels.cuh"
#include "cuda/chain.cuh"
#include "cuda/check.hpp"
#include "cuda/memory.hpp"

namespace gpuvis::decode::cuda_impl {

namespace {

// How collect() waits for a frame: for its publication count (the default), or, with
// GPUVIS_RESULT_WAIT=event, for the event behind its graph, which completes a few microseconds
// after the results land (kept to measure the difference).
bool waits_for_event() {
  static const bool event = [] {
    const char* v = std::getenv("GPUVIS_RESULT_WAIT");
    return v && std::strcmp(v, "event") == 0;
  }();
  return event;
}

}  // namespace

struct Decoder::Impl {
  SetBounds bounds{};
  BlobStage stage;
  gpuvis::cuda::DeviceBuffer keys, ids;
  DeviceTreeTable table;
  gpuvis::cuda::DeviceBuffer bands;  // the band, then each slot's band_used
  // What a frame in flight owns: the stages' scratch, its results on the device (block and
  // overflow arrays), their pinned copy, and the event after that copy (recorded by launched()).
  struct Slot {
    gpuvis::cuda::DeviceBuffer zeroed, per_region, lists;
    gpuvis::cuda::DeviceBuffer blob_block, blob_temp;  // stage 4 only
    gpuvis::cuda::DeviceBuffer rings;  // stage 2b only (YamaarashiScratch)
    BlobScratch blob_scratch{};
    Scratch scratch{};  // the arrays above; results, overflow and bands are filled in by scratch_for()
    gpuvis::cuda::DeviceBuffer results, overflow;
    gpuvis::cuda::PinnedBuffer host;  // ResultBlock
    unsigned long long* host_on_device = nullptr;  // `host` as the GPU addresses it
    // Publications (Publish): the count on the device, its copy in pinned host memory, and the
    // number of frames launched, i.e. the count collect() waits for.
    gpuvis::cuda::DeviceBuffer published;
    gpuvis::cuda::PinnedBuffer flag;
    unsigned long long* flag_on_device = nullptr;
    unsigned long long launches = 0;
    gpuvis::cuda::Event copied;

    // Waits until the last launched frame has published its results. The host spins on the
    // publication count in pinned memory; every few hundred polls it asks the runtime about the
    // frame's event, so that a failed kernel becomes an error instead of a hang.
    void wait_published() const {
      if (waits_for_event()) {
        GPUVIS_CUDA_CHECK(cudaEventSynchronize(copied.get()));
        return;
      }
      std::atomic_ref<unsigned long long> count(*flag.as<unsigned long long>());
      for (unsigned polls = 1; count.load(std::memory_order_acquire) < launches; ++polls) {
        if (polls % 256) continue;
        const cudaError_t state = cudaEventQuery(copied.get());
        if (state == cudaErrorNotReady) continue;
        GPUVIS_CUDA_CHECK(state);
        // The frame is over: its results are published, or something is badly wrong.
        require(count.load(std::memory_order_acquire) >= launches, "cuda Decoder: a finished frame published no results");
      }
    }
  };
  std::vector<Slot> slots;
  int capacity = -1;  // regions the scratch is sized for
  int run_capacity = -1;  // runs stage 4's scratch is sized for
  int generation = 0; // counts reallocations (a captured graph holds the old addresses)
  int root_limit = 0;      // root records the scratch is sized for
  int rows = 0;            // frame rows stage 2b's scratch is sized for
  int band_limit = RootBand{}.limit;  // the limit of the band on the device
  unsigned long long totals = 0;  // the last collected frame's segmentation counts
  std::vector<SymbolRecord> symbol_records;  // collect()'s host copies, kept between frames
  std::vector<RootRecord> root_records;
  std::vector<BlobRecord> blob_records;

  // The copy of the results: the blob records only when stage 4 runs.
  std::size_t result_bytes() const { return stage.enabled() ? sizeof(ResultBlock) : offsetof(ResultBlock, blob); }

  // The `zeroed` block (Scratch): five arrays of n ints, then the select's ticket.
  static std::size_t zeroed_ints(std::size_t n) { return 5 * n + 1; }

  // Every slot's scratch for `regions` regions, `limit` root records, `runs` runs and frames of
  // `frame_rows` rows.
  void ensure(int regions, int limit, int runs, int frame_rows) {
    if (regions <= capacity && limit <= root_limit && (!stage.enabled() || runs <= run_capacity) &&
        (!bounds.yamaarashi || frame_rows <= rows))
      return;
    const int row_room = std::max({frame_rows, rows, 1});
    const std::size_t n = static_cast<std::size_t>(std::max({regions, capacity, 1}));
    const std::size_t roots = static_cast<std::size_t>(std::max({limit, root_limit, 1}));
    const std::size_t run_room = static_cast<std::size_t>(std::max({runs, run_capacity, 1}));
    // Blob records: each region at most once as a finger or blob and once as an object blob.
    const std::size_t blob_room = stage.enabled() ? 2 * n + roots : 0;
    for (Slot& slot : slots) {
      slot.zeroed.reserve(zeroed_ints(n) * sizeof(std::int32_t));
      slot.per_region.reserve(3 * n * sizeof(std::int32_t) + n * sizeof(unsigned long long));
      const auto select_blocks = static_cast<std::size_t>(grid_for(static_cast<long long>(n), kSelectThreads));
      slot.lists.reserve((5 * n + select_blocks) * sizeof(std::int32_t));
      slot.overflow.reserve(n * sizeof(SymbolRecord) + roots * sizeof(RootRecord) + blob_room * sizeof(BlobRecord));
      auto* z = slot.zeroed.as<std::int32_t>();
      auto* p = slot.per_region.as<std::int32_t>();
      auto* l = slot.lists.as<std::int32_t>();
      Scratch& s = slot.scratch;
      s.visit_round = z;
      s.cvc = z + n;
      s.blocked = z + 2 * n;
      s.taken = z + 3 * n;
      s.symbol_root = z + 4 * n;
      s.select_ticket = reinterpret_cast<unsigned*>(z + 5 * n);
      s.children = slot.per_region.as<unsigned long long>();  // first: 8-byte aligned
      s.desc = p + 2 * n;
      s.height = p + 3 * n;
      s.parent = p + 4 * n;
      s.frontier_a = l;
      s.frontier_b = l + n;
      s.candidates = l + 2 * n;
      s.selected = l + 3 * n;
      s.select_before = l + 4 * n;
      s.select_blocks = l + 5 * n;
      if (stage.enabled()) ensure_blob_scratch(slot, n, run_room);
      if (bounds.yamaarashi) {
        const std::size_t spans = kYamaarashiWarps * static_cast<std::size_t>(row_room) * sizeof(blob_rules::RowSpan);
        const std::size_t hull = kYamaarashiWarps * static_cast<std::size_t>(blob_rules::hull_room(row_room)) * sizeof(blob_rules::Point);
        slot.rings.reserve(spans + hull);
      }
    }
    if (bounds.yamaarashi) rows = row_room;
    capacity = static_cast<int>(n);
    root_limit = static_cast<int>(roots);
    if (stage.enabled()) run_capacity = static_cast<int>(run_room);
    ++generation;
  }

  Slot& slot(int k) {
    require(k >= 0 && k < static_cast<int>(slots.size()), "cuda Decoder: no such slot");
    return slots[static_cast<std::size_t>(k)];
  }
  const Slot& slot(int k) const { return const_cast<Impl*>(this)->slot(k); }
  // Slot `k`'s scratch with its results, overflow arrays and kept band, and the shared band.
  Scratch scratch_for(int k) const {
    const Slot& slot = slots[static_cast<std::size_t>(k)];
    const std::size_t n = static_cast<std::size_t>(capacity);
    Scratch s = slot.scratch;
    s.results = slot.results.as<ResultBlock>();
    s.symbol_overflow = slot.overflow.as<SymbolRecord>();
    s.root_overflow = reinterpret_cast<RootRecord*>(s.symbol_overflow + n);
    s.blob_overflow = reinterpret_cast<BlobRecord*>(s.root_overflow + root_limit);
    s.band = bands.as<RootBand>();
    s.band_used = bands.as<RootBand>() + 1 + k;
    return s;
  }

  // Slot `k`'s scratch of stage 2b.
  YamaarashiScratch rings_for(int k) const {
    const Slot& slot = slots[static_cast<std::size_t>(k)];
    auto* spans = slot.rings.as<blob_rules::RowSpan>();
    return {spans, reinterpret_cast<blob_rules::Point*>(spans + static_cast<std::size_t>(kYamaarashiWarps) * rows), rows};
  }

  static void ensure_blob_scratch(Slot& slot, std::size_t n, std::size_t runs) {
    BlobScratch& b = slot.blob_scratch;
    b.key_bits = 1;
    while ((std::size_t{1} << b.key_bits) <= n) ++b.key_bits;  // keys go up to n (the "no run" key)
    const std::size_t ints = 4 * runs + 2 * n + 1;
    const std::size_t hull_at = (ints * sizeof(std::int32_t) + 15) / 16 * 16;
    slot.blob_block.reserve(hull_at + (5 * runs + 2 * n) * sizeof(blob_rules::Point));
    auto* p = slot.blob_block.as<std::int32_t>();
    b.keys_in = p;
    b.keys_out = p + runs;
    b.index_in = p + 2 * runs;
    b.index_out = p + 3 * runs;
    b.run_begin = p + 4 * runs;
    b.candidates = p + 4 * runs + n + 1;
    b.hull = reinterpret_cast<blob_rules::Point*>(slot.blob_block.as<std::uint8_t>() + hull_at);
    slot.blob_temp.reserve(blob_sort_bytes(static_cast<int>(runs), b.key_bits));
  }
};

Decoder::Decoder(const TreeSet& set, const FingerParams& fingers, const BlobParams& blobs, int slots)
    : impl_(std::make_unique<Impl>()) {
  require(slots >= 1, "cuda Decoder: at least one slot");
  impl_->stage = {fingers, blobs};
  if (set.max_nodes > kMaxSymbolNodes)
    fail(ErrorCode::unsupported, "tree set '" + set.name + "' has symbols of " + std::to_string(set.max_nodes) +
                                     " regions; the CUDA decoder handles at most " + std::to_string(kMaxSymbolNodes) +
                                     " (use --backend cpu)");
  Impl& m = *impl_;
  m.bounds = {set.tmin(), set.tmax(),    set.rmin(), set.min_height,     set.max_height,
              set.min_leafs(), set.max_nodes, set.max_id, set.yamaarashi ? 1 : 0, set.mirror ? 1 : 0};
  std::vector<std::pair<std::string, int>> entries(set.ids.begin(), set.ids.end());
  // The yamaarashi core looks up as its code (the CPU Decoder's lookup does the same).
  if (set.yamaarashi) entries.emplace_back(yamaarashi::kKey, yamaarashi::kCode);
  std::sort(entries.begin(), entries.end());
  std::vector<char> keys(std::max<std::size_t>(entries.size(), 1) * kKeyBytes, 0);
  std::vector<std::int32_t> ids(std::max<std::size_t>(entries.size(), 1), -1);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    require(entries[i].first.size() < kKeyBytes, "tree set key too long for the CUDA decoder");
    std::memcpy(keys.data() + i * kKeyBytes, entries[i].first.data(), entries[i].first.size());
    ids[i] = entries[i].second;
  }
  m.keys.reserve(keys.size());
  m.ids.reserve(ids.size() * sizeof(std::int32_t));
  GPUVIS_CUDA_CHECK(cudaMemcpy(m.keys.get(), keys.data(), keys.size(), cudaMemcpyHostToDevice));
  GPUVIS_CUDA_CHECK(cudaMemcpy(m.ids.get(), ids.data(), ids.size() * sizeof(std::int32_t), cudaMemcpyHostToDevice));
  m.table = {m.keys.as<char>(), m.ids.as<std::int32_t>(), static_cast<int>(entries.size())};
  m.slots.resize(static_cast<std::size_t>(slots));
  for (Impl::Slot& slot : m.slots) {
    slot.results.reserve(sizeof(ResultBlock));
    slot.host.reserve(sizeof(ResultBlock));
    std::memset(slot.host.get(), 0, sizeof(ResultBlock));
    slot.host_on_device = gpuvis::cuda::device_address(slot.host.as<unsigned long long>());
    require(slot.host_on_device != nullptr, "cuda Decoder: the pinned results block is not mapped into the device");
    slot.published.reserve(sizeof(unsigned long long));
    GPUVIS_CUDA_CHECK(cudaMemset(slot.published.get(), 0, sizeof(unsigned long long)));
    slot.flag.reserve(sizeof(unsigned long long));
    *slot.flag.as<unsigned long long>() = 0;
    slot.flag_on_device = gpuvis::cuda::device_address(slot.flag.as<unsigned long long>());
    require(slot.flag_on_device != nullptr, "cuda Decoder: the pinned publication flag is not mapped into the device");
  }
  m.bands.reserve((1 + static_cast<std::size_t>(slots)) * sizeof(RootBand));
  const std::vector<RootBand> first(1 + static_cast<std::size_t>(slots),
                                    RootBand{kFirstRootBandMin, kFirstRootBandMax, RootBand{}.limit});
  GPUVIS_CUDA_CHECK(cudaMemcpy(m.bands.get(), first.data(), first.size() * sizeof(RootBand), cudaMemcpyHostToDevice));
}

unsigned long long Decoder::segment_totals() const { return impl_->totals; }
int Decoder::generation() const { return impl_->generation; }

Decoder::~Decoder() = default;
Decoder::Decoder(Decoder&&) noexcept = default;
Decoder& Decoder::operator=(Decoder&&) noexcept = default;

void Decoder::decode(const segment::cuda_impl::DeviceTree& tree, const RootBand& band,
                     DeviceView<const std::uint8_t> grey, cudaStream_t stream, int slot,
                     DeviceView<const std::uint8_t> binary) {
  reserve(tree.capacity, tree.run_capacity, band.limit, tree.height);
  set_band(band, stream);
  enqueue(tree, grey, binary, stream, slot);
  launched(slot, stream);
}

void Decoder::launched(int slot, cudaStream_t stream) {
  Impl::Slot& s = impl_->slot(slot);
  s.copied.record(stream);
  ++s.launches;
}

const gpuvis::cuda::Event& Decoder::launched_event(int slot) const { return impl_->slot(slot).copied; }

void Decoder::reserve(int capacity, int run_capacity, int root_limit, int rows) {
  impl_->ensure(capacity, root_limit, run_capacity, rows);
}

namespace {
__global__ void store_band(RootBand* band, RootBand value) { *band = value; }

// The results block into the slot's pinned host copy (Publish), when the last stage did not.
__global__ void publish_results(const ResultBlock* results, Publish publish) {
  gpuvis::cuda::await_previous_kernel();
  publish.run_in_one_block(results);
}
}  // namespace

void Decoder::set_band(const RootBand& band, cudaStream_t stream) {
  RootBand b = band;
  if (b.max_size <= 0 || b.min_size > b.max_size) b.max_size = -1;  // selects nothing
  b.limit = std::max(b.limit, 0);
  impl_->band_limit = b.limit;
  // A kernel argument, not a copy from host memory: the value is taken when the launch is
  // enqueued, so set_band() may be called again at once.
  store_band<<<1, 1, 0, stream>>>(impl_->bands.as<RootBand>(), b);
  GPUVIS_CUDA_CHECK_LAUNCH();
}

void Decoder::restore_band(int slot, cudaStream_t stream) {
  Impl& m = *impl_;
  m.slot(slot);  // checks the slot
  GPUVIS_CUDA_CHECK(cudaMemcpyAsync(m.bands.as<RootBand>(), m.bands.as<RootBand>() + 1 + slot, sizeof(RootBand),
                                    cudaMemcpyDeviceToDevice, stream));
}

void Decoder::enqueue(const segment::cuda_impl::DeviceTree& tree, DeviceView<const std::uint8_t> grey,
                      DeviceView<const std::uint8_t> binary, cudaStream_t stream, int slot) {
  enqueue_symbols(tree, binary, stream, slot);
  enqueue_band_stage(tree, grey, stream, slot, true);
}

void Decoder::enqueue_symbols(const segment::cuda_impl::DeviceTree& tree, DeviceView<const std::uint8_t> binary,
                              cudaStream_t stream, int slot) {
  Impl& m = *impl_;
  m.slot(slot);  // checks the slot
  require(tree.capacity <= m.capacity && (!m.stage.enabled() || tree.run_capacity <= m.run_capacity) &&
              (!m.bounds.yamaarashi || tree.height <= m.rows),
          "cuda Decoder: call reserve() with the tree's capacities first");
  require(!m.bounds.yamaarashi || (binary.width == tree.width && binary.height == tree.height),
          "cuda Decoder: yamaarashi symbols need the binary frame of the tree");
  const std::size_t n = static_cast<std::size_t>(m.capacity);
  const Scratch s = m.scratch_for(slot);
  // The region count is on the device: every stage reads it there and strides over the capacity.
  static_assert(offsetof(ResultBlock, symbol) % sizeof(std::int32_t) == 0);
  constexpr int kCountInts = offsetof(ResultBlock, symbol) / sizeof(std::int32_t);
  const FrameClear clear{s.visit_round, static_cast<long long>(Impl::zeroed_ints(n)), reinterpret_cast<std::int32_t*>(s.results),
                         kCountInts};
  propagate(tree, m.bounds, s, clear, stream);
  decode_symbols(tree, m.bounds, m.table, s, stream);
  if (m.bounds.yamaarashi) decode_yamaarashi(tree, m.bounds, binary, s, m.rings_for(slot), stream);
}

void Decoder::enqueue_band_stage(const segment::cuda_impl::DeviceTree& tree, DeviceView<const std::uint8_t> grey,
                                 cudaStream_t stream, int slot, bool follows_symbols) {
  Impl& m = *impl_;
  Impl::Slot& out = m.slot(slot);
  require(m.band_limit <= m.root_limit, "cuda Decoder: reserve() room for the band's limit first");
  require(m.stage.fingers.size <= 0 || (!grey.empty() && grey.width == tree.width && grey.height == tree.height),
          "cuda Decoder: finger detection needs the grey frame of the tree");
  const Scratch s = m.scratch_for(slot);
  static_assert(offsetof(ResultBlock, blob) % 8 == 0 && sizeof(ResultBlock) % 8 == 0);
  const Publish publish{out.host_on_device, static_cast<int>(m.result_bytes() / 8), out.published.as<unsigned long long>(),
                        out.flag_on_device};
  // Without stage 4, stage 3 is the frame's last: it may publish the results itself.
  const bool published = find_root_candidates(tree, s, m.stage.enabled() ? Publish{} : publish, follows_symbols, stream);
  if (m.stage.enabled()) find_blobs(tree, grey, m.stage, s, out.blob_scratch, out.blob_temp, stream);
  if (!published)
    gpuvis::cuda::launch_chained(publish_results, dim3(1), dim3(1024), 0, stream, static_cast<const ResultBlock*>(s.results),
                                 publish);
}

void Decoder::collect(std::vector<Fiducial>& fiducials, std::vector<RootCandidate>& roots, DecodeStats& stats,
                      BlobResults* blobs, int slot) {
  Impl& m = *impl_;
  Impl::Slot& in = m.slot(slot);
  in.wait_published();
  const Scratch s = m.scratch_for(slot);
  const ResultBlock& r = *in.host.as<ResultBlock>();
  m.totals = r.totals;
  const int nsym = r.symbols;
  const int nroots = r.roots_kept;
  const int nblobs = m.stage.enabled() ? r.blobs : 0;
  // Each kind's records in one host array (kept between frames): the inline ones, then, in the
  // rare frame with more than kInline, the rest from the slot's overflow array (a blocking copy
  // that does not wait for the frame computing behind this one).
  auto gather = [&](auto& records, const auto* inline_records, int count, const auto* overflow) {
    records.assign(inline_records, inline_records + std::min(count, kInline));
    records.resize(static_cast<std::size_t>(count));
    if (count > kInline)
      GPUVIS_CUDA_CHECK(cudaMemcpy(records.data() + kInline, overflow, (count - kInline) * sizeof(records[0]),
                                   cudaMemcpyDeviceToHost));
  };
  gather(m.symbol_records, r.symbol, nsym, s.symbol_overflow);
  gather(m.root_records, r.root, nroots, s.root_overflow);
  gather(m.blob_records, r.blob, nblobs, s.blob_overflow);

  fiducials.clear();
  stats = {};
  stats.candidates = r.candidates;
  for (const SymbolRecord& rec : m.symbol_records) {
    Fiducial f;
    f.id = rec.id;
    f.x = rec.x;
    f.y = rec.y;
    f.angle = rec.angle;
    f.root = rec.root;
    f.root_size = rec.root_size;
    f.root_x = rec.root_x;
    f.root_y = rec.root_y;
    f.root_colour = static_cast<std::uint8_t>(rec.root_colour);
    f.leaves = rec.leaves;
    f.gated_leaves = rec.gated_leaves;
    fiducials.push_back(f);
    ++(f.id >= 0 ? stats.valid : stats.fuzzy);
  }
  stats.invalid = stats.candidates - stats.valid - stats.fuzzy;
  // The CPU's order: valid by root region, then fuzzy by root region.
  std::sort(fiducials.begin(), fiducials.end(), [](const Fiducial& a, const Fiducial& b) {
    return a.fuzzy() != b.fuzzy() ? !a.fuzzy() : a.root < b.root;
  });
  roots.clear();
  for (const RootRecord& c : m.root_records) roots.push_back({c.x, c.y, c.size, static_cast<std::uint8_t>(c.colour), c.region});
  if (!blobs) return;
  // Blob records arrive in no particular order: by kind, then region.
  std::vector<BlobRecord>& records = m.blob_records;
  std::sort(records.begin(), records.end(), [](const BlobRecord& a, const BlobRecord& b) {
    return a.kind != b.kind ? a.kind < b.kind : a.region < b.region;
  });
  auto blob_of = [](const BlobRecord& b) { return Blob{b.x, b.y, b.width, b.height, b.angle, b.area, b.region}; };
  blobs->fingers.clear();
  blobs->blobs.clear();
  for (const BlobRecord& b : records)
    if (b.kind == kFingerBlob) blobs->fingers.push_back({b.x, b.y, b.width, b.height, b.angle, b.score, b.area, b.region});
    else if (b.kind == kPlainBlob) blobs->blobs.push_back(blob_of(b));
  auto region_blob = [&](int region) {  // a region without a record is degenerate
    const auto at = std::lower_bound(records.begin(), records.end(), region, [](const BlobRecord& b, int reg) {
      return b.kind != kRegionBlob ? b.kind < kRegionBlob : b.region < reg;
    });
    return at != records.end() && at->kind == kRegionBlob && at->region == region ? blob_of(*at) : Blob{};
  };
  blobs->fiducial_blobs.clear();
  blobs->root_blobs.clear();
  if (!m.stage.blobs.object_blobs) return;
  for (const Fiducial& f : fiducials) blobs->fiducial_blobs.push_back(region_blob(f.root));
  for (const RootCandidate& c : roots) blobs->root_blobs.push_back(region_blob(c.region));
}

}  // namespace gpuvis::decode::cuda_impl

// Life on CUDA: bit-packed boards (32 cells per word) and several generations per launch in a warp's
// tile of registers (life/cuda/tile.cuh). The per-word rules are the CPU's (life/word_rule.h), so
// both backends compute the same boards bit for bit.
#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "life/step_rules.hpp"
#include "cuda/check.hpp"
#include "gpuvis/cuda/runtime.hpp"
#include "gpuvis/life/life.hpp"
#include "life/backends.hpp"
#include "life/cuda/rule_jit.hpp"

namespace gpuvis::life::cuda_impl {
namespace {

using W = std::uint32_t;
using namespace rules;  // word_rule.h's gpuvis_life_*_u32, which tile.cuh calls by their C names

#include "life/cuda/tile.cuh"

// One byte per cell (non-zero: alive) into the board's words, a thread per word; the bits past the
// width stay 0, as in a host Board. Rows in a grid-stride loop (boards of 65536 rows and more).
__global__ void pack_kernel(DeviceView<const std::uint8_t> cells, W* __restrict__ board, int words) {
  const int w = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (w >= words) return;
  for (int y = static_cast<int>(blockIdx.y); y < cells.height; y += static_cast<int>(gridDim.y)) {
    const std::uint8_t* row = cells.row(y);
    W v = 0;
    for (int b = 0, x = w * 32; b < 32 && x < cells.width; ++b, ++x) v |= static_cast<W>(row[x] != 0) << b;
    board[static_cast<long long>(y) * words + w] = v;
  }
}

// Every cell's state from the board and the age planes, as compose_states: live 1, dying of age a
// a + 1, dead 0.
__global__ void states_kernel(const W* __restrict__ board, const W* __restrict__ ages, int planes, long long plane_words, int words,
                              DeviceView<std::uint8_t> out) {
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (x >= out.width) return;
  for (int y = static_cast<int>(blockIdx.y); y < out.height; y += static_cast<int>(gridDim.y)) {
    const long long i = static_cast<long long>(y) * words + x / 32;
    const int bit = x % 32;
    unsigned state = (board[i] >> bit) & 1u;
    if (!state) {
      unsigned age = 0;
      for (int p = 0; p < planes; ++p) age |= ((ages[p * plane_words + i] >> bit) & 1u) << p;
      state = age ? age + 1 : 0;
    }
    out.row(y)[x] = static_cast<std::uint8_t>(state);
  }
}

// The rules the compiled kernels take: Conway's (the eights plane never computed) and any rule's
// outcome masks from the kernel's parameter bank (rule_jit.cpp compiles a rule's own kernel).
struct ConwayWord {
  __device__ __forceinline__ W next(W alive, W s0, W s1, W s2, W) const { return gpuvis_life_next_conway_u32(alive, s0, s1, s2); }
};
struct MasksWord {
  rules::RuleMasks<W> m;
  __device__ __forceinline__ W next(W alive, W s0, W s1, W s2, W s3) const { return gpuvis_life_next_rule_u32(alive, s0, s1, s2, s3, &m); }
};

// Both kernels are held to three blocks per multiprocessor (at most 168 registers); the generic
// rule reads its masks from the parameter bank, so it fits too.
template <int Rows, int Halo, int Wpl>
__global__ void __launch_bounds__(32 * warps_per_block, 3)
    conway_kernel(const W* __restrict__ src, W* __restrict__ dst, BoardShape s, int gens, bool torus, unsigned long long* population) {
  generations<Rows, Halo, Wpl>(src, dst, s, gens, ConwayWord{}, torus, population);
}
template <int Rows, int Halo, int Wpl>
__global__ void __launch_bounds__(32 * warps_per_block, 3)
    rule_kernel(const W* __restrict__ src, W* __restrict__ dst, BoardShape s, int gens, rules::RuleMasks<W> rule, bool torus,
                unsigned long long* population) {
  generations<Rows, Halo, Wpl>(src, dst, s, gens, MasksWord{rule}, torus, population);
}

// Generations rules (C > 2 states): one generation per launch, a thread per 32-cell word, its
// dying ages (Planes bit planes, each laid out as a board) updated in place. The per-word rule is
// the CPU's (life/word_rule.h), so the states equal the CPU's bit for bit. Planes is a template
// argument so that the ages stay in registers.
template <int Planes>
__global__ void generations_kernel(const W* __restrict__ src, W* __restrict__ dst, W* __restrict__ ages, BoardShape s,
                                   rules::RuleMasks<W> rule, int states, bool torus, unsigned long long* population) {
  const long long j = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  const long long y = blockIdx.y * static_cast<long long>(blockDim.y) + threadIdx.y;
  unsigned count = 0;
  if (j < s.words && y < s.height) {
    W ones[3], twos[3];
#pragma unroll
    for (int k = 0; k < 3; ++k)
      rules::row_sum(load(src, s, y + k - 1, j - 1, torus), load(src, s, y + k - 1, j, torus), load(src, s, y + k - 1, j + 1, torus),
                     ones[k], twos[k]);
    const long long at = y * s.words + j, plane = static_cast<long long>(s.words) * s.height;
    W age[Planes];
#pragma unroll
    for (int i = 0; i < Planes; ++i) age[i] = ages[i * plane + at];
    const W next = rules::next_generations(src[at], rules::block_sum(ones[0], twos[0], ones[1], twos[1], ones[2], twos[2]), rule, age,
                                           Planes, states) &
                   rules::valid_bits<W>(s.width, j);
#pragma unroll
    for (int i = 0; i < Planes; ++i) ages[i * plane + at] = age[i];
    dst[at] = next;
    count = __popc(next);
  }
  if (population) {
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) count += __shfl_down_sync(0xffffffffu, count, off);
    if (threadIdx.x == 0 && count) atomicAdd(population, static_cast<unsigned long long>(count));
  }
}

__global__ void population_kernel(const W* __restrict__ words, long long n, unsigned long long* population) {
  unsigned long long count = 0;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    count += __popc(words[i]);
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) count += __shfl_down_sync(0xffffffffu, count, off);
  if ((threadIdx.x & 31) == 0 && count) atomicAdd(population, count);
}

// Tile shape, chosen by measurement on an H100 (docs/benchmarks/life.md): 64 rows per warp, 8 of
// them halo at each end, one word per lane, so a launch runs up to 8 generations. Taller tiles or
// two words per lane need more registers than they save.
constexpr int tile_rows = 64, tile_halo = 8, tile_words_per_lane = 1;

class CudaSimulation final : public Simulation {
 public:
  CudaSimulation(const Board& initial, const Params& options) : CudaSimulation(initial.width(), initial.height(), options) {
    GPUVIS_CUDA_CHECK(cudaMemcpyAsync(a_, initial.data(), initial.bytes(), cudaMemcpyHostToDevice, stream_));
    GPUVIS_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }
  // A board of width x height cells, all dead until load() (the host board's layout: host_words_
  // 64-bit words a row).
  CudaSimulation(int width, int height, const Params& options)
      : options_(options), width_(width), height_(height), host_words_(Board::words_for(width)) {
    const std::size_t bytes = board_bytes();
    std::size_t free_bytes = 0, total_bytes = 0;
    GPUVIS_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    // Two boards, a Generations rule's age planes and room for the runtime.
    planes_ = age_planes(options.rule);
    const std::size_t copies = 2 + static_cast<std::size_t>(planes_);
    if (copies * bytes + (64u << 20) > free_bytes)
      fail(ErrorCode::unsupported, "a " + std::to_string(width_) + "x" + std::to_string(height_) + " board needs " +
                                       std::to_string((copies * bytes) >> 20) + " MiB on the GPU (" + std::to_string(copies) +
                                       " copies); " + std::to_string(free_bytes >> 20) + " MiB are free");
    try {
      GPUVIS_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
      GPUVIS_CUDA_CHECK(cudaMalloc(&a_, bytes));
      GPUVIS_CUDA_CHECK(cudaMalloc(&b_, bytes));
      GPUVIS_CUDA_CHECK(cudaMalloc(&count_, sizeof(unsigned long long)));
      GPUVIS_CUDA_CHECK(cudaMemsetAsync(b_, 0, bytes, stream_));
      if (planes_ > 0) {
        GPUVIS_CUDA_CHECK(cudaMalloc(&ages_, planes_ * bytes));
        GPUVIS_CUDA_CHECK(cudaMemsetAsync(ages_, 0, planes_ * bytes, stream_));
      }
    } catch (...) {
      release();
      throw;
    }
  }
  // The board from one byte per cell in device memory, once `caller`'s queued work is done.
  void load(DeviceView<const std::uint8_t> cells, cudaStream_t caller) {
    wait_for(caller, stream_);
    const int words = host_words_ * 2;
    pack_kernel<<<grid_over(words), 256, 0, stream_>>>(cells, a_, words);
    GPUVIS_CUDA_CHECK(cudaGetLastError());
  }
  // Every cell's state into `out` (device memory), then `caller` waits for it; returns when written.
  void write_states(DeviceView<std::uint8_t> out, cudaStream_t caller) {
    const int words = host_words_ * 2;
    states_kernel<<<grid_over(width_), 256, 0, stream_>>>(a_, ages_, planes_, static_cast<long long>(height_) * words, words, out);
    GPUVIS_CUDA_CHECK(cudaGetLastError());
    wait_for(stream_, caller);
    GPUVIS_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }
  ~CudaSimulation() override { release(); }

  void advance(std::int64_t generations) override {
    require(generations >= 0, "the number of generations must not be negative");
    while (generations > 0) {
      const int k = static_cast<int>(std::min<std::int64_t>(generations, tile_halo));
      launch(k, nullptr);
      generations -= k;
    }
    GPUVIS_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  void advance_counting(std::int64_t generations, const std::function<void(std::int64_t, std::uint64_t)>& each) override {
    require(generations >= 0, "the number of generations must not be negative");
    for (std::int64_t g = 0; g < generations; ++g) {
      GPUVIS_CUDA_CHECK(cudaMemsetAsync(count_, 0, sizeof(unsigned long long), stream_));
      launch(1, count_);
      each(generation_, fetch_count());
    }
  }

  std::uint64_t population() override {
    GPUVIS_CUDA_CHECK(cudaMemsetAsync(count_, 0, sizeof(unsigned long long), stream_));
    const long long n = static_cast<long long>(height_) * host_words_ * 2;
    const int blocks = static_cast<int>(std::min<long long>((n + 255) / 256, 4096));
    population_kernel<<<blocks, 256, 0, stream_>>>(a_, n, count_);
    GPUVIS_CUDA_CHECK(cudaGetLastError());
    return fetch_count();
  }

  void read(Board& out) override {
    if (out.width() != width_ || out.height() != height_) out = Board(width_, height_);
    GPUVIS_CUDA_CHECK(cudaMemcpyAsync(out.data(), a_, out.bytes(), cudaMemcpyDeviceToHost, stream_));
    GPUVIS_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }
  void read_states(std::vector<std::uint8_t>& out) override {
    Board alive;
    read(alive);
    std::vector<Board> ages(static_cast<std::size_t>(planes_), Board(width_, height_));
    for (int i = 0; i < planes_; ++i)
      GPUVIS_CUDA_CHECK(cudaMemcpyAsync(ages[i].data(), reinterpret_cast<const char*>(ages_) + i * alive.bytes(), alive.bytes(),
                                        cudaMemcpyDeviceToHost, stream_));
    GPUVIS_CUDA_CHECK(cudaStreamSynchronize(stream_));
    compose_states(alive, ages, out);
  }
  std::int64_t generation() const override { return generation_; }
  Backend backend() const override { return Backend::cuda; }

 private:
  void release() noexcept {
    cudaFree(a_);
    cudaFree(b_);
    cudaFree(count_);
    cudaFree(ages_);
    ages_ = nullptr;
    if (stream_) cudaStreamDestroy(stream_);
    a_ = b_ = nullptr;
    count_ = nullptr;
    stream_ = nullptr;
  }

  std::uint64_t fetch_count() {
    unsigned long long host = 0;
    GPUVIS_CUDA_CHECK(cudaMemcpyAsync(&host, count_, sizeof host, cudaMemcpyDeviceToHost, stream_));
    GPUVIS_CUDA_CHECK(cudaStreamSynchronize(stream_));
    return host;
  }

  void launch(int gens, unsigned long long* count) {
    if (planes_ > 0) {
      for (int g = 0; g < gens; ++g) {
        launch_generations(g + 1 == gens ? count : nullptr);
        std::swap(a_, b_);
      }
    } else {
      launch_shape<tile_rows, tile_halo, tile_words_per_lane>(gens, count);
      std::swap(a_, b_);
    }
    generation_ += gens;
  }

  void launch_generations(unsigned long long* count) {
    const BoardShape s{width_, height_, host_words_ * 2};
    const dim3 block(32, 8);
    const dim3 grid(static_cast<unsigned>((s.words + 31) / 32), static_cast<unsigned>((height_ + 7) / 8));
    const auto masks = rules::rule_masks<W>(options_.rule.birth, options_.rule.survival);
    const bool torus = options_.topology == Topology::torus;
    const int states = options_.rule.states;
    switch (planes_) {
#define GPUVIS_GENERATIONS_CASE(P) \
  case P: generations_kernel<P><<<grid, block, 0, stream_>>>(a_, b_, ages_, s, masks, states, torus, count); break;
      GPUVIS_GENERATIONS_CASE(1) GPUVIS_GENERATIONS_CASE(2) GPUVIS_GENERATIONS_CASE(3) GPUVIS_GENERATIONS_CASE(4)
      GPUVIS_GENERATIONS_CASE(5) GPUVIS_GENERATIONS_CASE(6) GPUVIS_GENERATIONS_CASE(7) GPUVIS_GENERATIONS_CASE(8)
#undef GPUVIS_GENERATIONS_CASE
      default: fail(ErrorCode::unsupported, "Life: a rule with " + std::to_string(planes_) + " age planes (at most 8: 256 states)");
    }
    GPUVIS_CUDA_CHECK(cudaGetLastError());
  }

  template <int Rows, int Halo, int Wpl>
  void launch_shape(int gens, unsigned long long* count) {
    const BoardShape s{width_, height_, host_words_ * 2};
    constexpr int out_rows = Rows - 2 * Halo;
    const long long tiles_y = (height_ + out_rows - 1) / out_rows;
    const dim3 block(32, warps_per_block);
    // The rows of blocks that the full columns need; the narrow column's warps take several tile
    // rows each, and its blocks past the board return at once.
    const dim3 grid(static_cast<unsigned>(tile_columns<Wpl>(width_).columns),
                    static_cast<unsigned>((tiles_y + warps_per_block - 1) / warps_per_block));
    const bool torus = options_.topology == Topology::torus;
    // Each launch is a programmatic dependent of the one before on Hopper and later (tile.cuh's
    // griddepcontrol): its blocks become resident while the last blocks of the launch before
    // finish, instead of after it, which a board of 16384² cells (110 µs a launch) noticed.
    cudaLaunchAttribute dependent{};
    dependent.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    dependent.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config{grid, block, 0, stream_, &dependent, programmatic_ ? 1u : 0u};
    const W* src = a_;
    if (options_.rule == conway) {
      GPUVIS_CUDA_CHECK(cudaLaunchKernelEx(&config, conway_kernel<Rows, Halo, Wpl>, src, b_, s, gens, torus, count));
    } else if (const void* own = own_kernel<Rows, Halo, Wpl>()) {
      void* args[] = {&src, &b_, const_cast<BoardShape*>(&s), &gens, const_cast<bool*>(&torus), &count};
      GPUVIS_CUDA_CHECK(cudaLaunchKernelExC(&config, own, args));
    } else {
      GPUVIS_CUDA_CHECK(cudaLaunchKernelEx(&config, rule_kernel<Rows, Halo, Wpl>, src, b_, s, gens,
                                           rules::rule_masks<W>(options_.rule.birth, options_.rule.survival), torus, count));
    }
    GPUVIS_CUDA_CHECK(cudaGetLastError());
  }

  // The rule's own kernel (rule_jit.hpp), asked for once, on boards of at least 2^20 cells: on
  // smaller ones compiling it (a few hundred ms) costs more than the generic kernel loses.
  template <int Rows, int Halo, int Wpl>
  const void* own_kernel() {
    if (!own_asked_) {
      own_asked_ = true;
      if (static_cast<long long>(width_) * height_ >= (1LL << 20))
        own_ = compiled_rule_kernel(options_.rule.birth, options_.rule.survival, TileShape{Rows, Halo, Wpl, warps_per_block});
    }
    return own_;
  }

  std::size_t board_bytes() const { return static_cast<std::size_t>(height_) * static_cast<std::size_t>(host_words_) * sizeof(Board::word); }
  // A grid of 256-thread blocks over `n` items of a row, and over the rows (at most 65535 blocks
  // down; the kernels loop over the rest).
  dim3 grid_over(int n) const {
    return dim3(static_cast<unsigned>((n + 255) / 256), static_cast<unsigned>(std::min(height_, 65535)));
  }
  // `later` waits for the work queued on `first` so far.
  static void wait_for(cudaStream_t first, cudaStream_t later) {
    cudaEvent_t e = nullptr;
    GPUVIS_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    const cudaError_t recorded = cudaEventRecord(e, first);
    const cudaError_t waited = recorded == cudaSuccess ? cudaStreamWaitEvent(later, e, 0) : recorded;
    cudaEventDestroy(e);  // released once the wait is done
    GPUVIS_CUDA_CHECK(waited);
  }

  Params options_;
  int width_, height_, host_words_;
  cudaStream_t stream_ = nullptr;
  W* a_ = nullptr;  // the current board
  W* b_ = nullptr;
  W* ages_ = nullptr;  // a Generations rule's age planes, each laid out as a board
  int planes_ = 0;
  unsigned long long* count_ = nullptr;
  const void* own_ = nullptr;  // the rule's own kernel, compiled at run time (null: the generic one)
  bool own_asked_ = false;
  // Whether this GPU takes programmatic dependent launches (compute capability 9.0 and later).
  const bool programmatic_ = cuda::current_device_major() >= 9;
  std::int64_t generation_ = 0;
};

}  // namespace

std::unique_ptr<Simulation> make_simulation(const Board& initial, const Params& options) {
  return std::make_unique<CudaSimulation>(initial, options);
}

void advance_on_device(DeviceView<const std::uint8_t> cells, DeviceView<std::uint8_t> states, std::int64_t generations,
                       const Params& options, cuda::StreamHandle stream) {
  require(cuda::is_device_pointer(cells.data) && cuda::is_device_pointer(states.data),
          "Life: the board and its states must be device memory of the current CUDA device");
  CudaSimulation sim(cells.width, cells.height, options);
  sim.load(cells, stream);
  sim.advance(generations);
  sim.write_states(states, stream);
}

}  // namespace gpuvis::life::cuda_impl

// Life on CUDA: bit-packed boards (32 cells per word) and several generations per launch.
//
// Each warp owns a tile 32 lanes wide (Wpl words per lane) and `Rows` rows tall; every lane keeps
// its column of the tile in registers, exchanges words with the neighbouring lanes by shuffles and
// runs up to `Halo` generations without touching memory. Every generation spoils one more cell at
// each edge of the tile, so the first word of lane 0, the last word of lane 31 (32 cells each) and
// `Halo` rows at top and bottom are halo; the inner words and rows are written back. The per-word rules are the CPU's
// (../step_rules.hpp), so both backends compute the same boards bit for bit.
#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "life/step_rules.hpp"
#include "cuda/check.hpp"
#include "gpuvis/cuda/runtime.hpp"
#include "gpuvis/life/life.hpp"
#include "life/backends.hpp"

namespace gpuvis::life::cuda_impl {
namespace {

using W = std::uint32_t;

constexpr int warps_per_block = 4;  // four independent warps per block measured best (docs/benchmarks/life.md)

struct BoardShape {
  int width, height;
  int words;  // 32-bit words per row (twice the host board's 64-bit words: the padding is zero)
};

// Tile row y of the board (y may lie outside: wrapped on a torus, dead otherwise), lane word j.
__device__ __noinline__ W load_slow(const W* board, BoardShape s, long long y, long long j, bool torus) {
  if (torus) y = ((y % s.height) + s.height) % s.height;
  else if (y < 0 || y >= s.height) return 0;
  return rules::load_cells(board + y * static_cast<long long>(s.words), s.width, s.words, j * 32, torus);
}

__device__ __forceinline__ W load(const W* board, BoardShape s, long long y, long long j, bool torus) {
  if (y >= 0 && y < s.height && j >= 0 && j * 32 + 32 <= s.width) return board[y * static_cast<long long>(s.words) + j];
  // A board of whole words, a tile at its edge, less than a board's size away: the row and the word
  // wrap (or are dead) without division. The tiles at a board's left and right edges are 2 of 18
  // columns of tiles at 16384 cells; through load_slow they cost it about a third of its speed.
  const long long used = s.width / 32;
  if (s.width % 32 == 0 && y >= -s.height && y < 2LL * s.height && j >= -used && j < 2 * used) {
    if (!torus && (y < 0 || y >= s.height || j < 0 || j >= used)) return 0;
    y += y < 0 ? s.height : (y >= s.height ? -s.height : 0);
    j += j < 0 ? used : (j >= used ? -used : 0);
    return board[y * static_cast<long long>(s.words) + j];
  }
  return load_slow(board, s, y, j, torus);
}

// One generation of a warp's tile in registers. Lane words are c[row][k]: logical word
// first_j + Lanes... lane * Wpl + k; neighbours across lanes come by shuffles.
template <int Rows, int Wpl, bool Border, class R>
__device__ __forceinline__ void tile_generation(W (&c)[Rows][Wpl], const R& rule, long long y0, int height,
                                                const W (&column_mask)[Wpl]) {
  auto row_sums = [](const W (&row)[Wpl], W (&ones)[Wpl], W (&twos)[Wpl]) {
    const W from_left = __shfl_up_sync(0xffffffffu, row[Wpl - 1], 1);
    const W from_right = __shfl_down_sync(0xffffffffu, row[0], 1);
#pragma unroll
    for (int k = 0; k < Wpl; ++k)
      rules::row_sum(k == 0 ? from_left : row[k - 1], row[k], k == Wpl - 1 ? from_right : row[k + 1], ones[k], twos[k]);
  };
  W o_up[Wpl], t_up[Wpl], o_mid[Wpl], t_mid[Wpl];
#pragma unroll
  for (int k = 0; k < Wpl; ++k) o_up[k] = t_up[k] = 0;
  row_sums(c[0], o_mid, t_mid);
#pragma unroll
  for (int i = 0; i < Rows; ++i) {
    W o_down[Wpl], t_down[Wpl];
    if (i + 1 < Rows) {
      row_sums(c[i + 1], o_down, t_down);
    } else {
#pragma unroll
      for (int k = 0; k < Wpl; ++k) o_down[k] = t_down[k] = 0;
    }
#pragma unroll
    for (int k = 0; k < Wpl; ++k) {
      W next = rules::next_state(c[i][k], rules::block_sum(o_up[k], t_up[k], o_mid[k], t_mid[k], o_down[k], t_down[k]), rule);
      if constexpr (Border) {
        const long long y = y0 + i;
        next &= (y >= 0 && y < height) ? column_mask[k] : W{0};
      }
      c[i][k] = next;
      o_up[k] = o_mid[k];
      t_up[k] = t_mid[k];
      o_mid[k] = o_down[k];
      t_mid[k] = t_down[k];
    }
  }
}

template <int Rows, int Halo, int Wpl, class R>
__device__ __forceinline__ void generations(const W* __restrict__ src, W* __restrict__ dst, BoardShape s, int gens, R rule,
                                            bool torus, unsigned long long* population) {
  constexpr int out_rows = Rows - 2 * Halo;
  constexpr int tile_words = 32 * Wpl - 2;  // the first word of lane 0 and the last of lane 31 are halo
  const int lane = threadIdx.x;
  const long long first_j = static_cast<long long>(blockIdx.x) * tile_words - 1;
  const long long j0 = first_j + lane * Wpl;
  const long long tile_row = static_cast<long long>(blockIdx.y) * warps_per_block + threadIdx.y;
  const long long y0 = tile_row * out_rows - Halo;
  if (y0 + Halo >= s.height) return;  // a whole warp past the bottom: no shuffle partner waits for it

  W c[Rows][Wpl];
  // A tile wholly inside the board (every lane's word full, every row present) loads without
  // branches, so all its loads are in flight at once; tiles at the edges wrap or clear per word.
  const bool inside = first_j >= 0 && (first_j + 32 * Wpl) * 32 <= s.width && y0 >= 0 && y0 + Rows <= s.height;
  if (inside) {
    const W* p = src + y0 * static_cast<long long>(s.words) + j0;
#pragma unroll
    for (int i = 0; i < Rows; ++i)
#pragma unroll
      for (int k = 0; k < Wpl; ++k) c[i][k] = p[i * static_cast<long long>(s.words) + k];
  } else {
#pragma unroll
    for (int i = 0; i < Rows; ++i)
#pragma unroll
      for (int k = 0; k < Wpl; ++k) c[i][k] = load(src, s, y0 + i, j0 + k, torus);
  }

  W keep[Wpl];
#pragma unroll
  for (int k = 0; k < Wpl; ++k) keep[k] = rules::valid_bits<W>(s.width, j0 + k);
  // On a dead-bordered board, tiles at the border keep the cells outside it dead every generation.
  if (!torus && !inside)
    for (int g = 0; g < gens; ++g) tile_generation<Rows, Wpl, true>(c, rule, y0, s.height, keep);
  else
    for (int g = 0; g < gens; ++g) tile_generation<Rows, Wpl, false>(c, rule, y0, s.height, keep);

  unsigned count = 0;
#pragma unroll
  for (int k = 0; k < Wpl; ++k) {
    const long long j = j0 + k;
    const bool writes = j > first_j && j < first_j + tile_words + 1 && j * 32 < s.width;
#pragma unroll
    for (int i = Halo; i < Halo + out_rows; ++i) {
      const long long y = y0 + i;
      if (writes && y < s.height) {
        const W v = c[i][k] & keep[k];
        dst[y * static_cast<long long>(s.words) + j] = v;
        count += __popc(v);
      }
    }
  }
  if (population) {
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) count += __shfl_down_sync(0xffffffffu, count, off);
    if (lane == 0 && count) atomicAdd(population, static_cast<unsigned long long>(count));
  }
}

// Both kernels are held to three blocks per multiprocessor (at most 168 registers); the generic
// rule reads its masks from the parameter bank, so it fits too.
template <int Rows, int Halo, int Wpl>
__global__ void __launch_bounds__(32 * warps_per_block, 3)
    conway_kernel(const W* __restrict__ src, W* __restrict__ dst, BoardShape s, int gens, bool torus, unsigned long long* population) {
  generations<Rows, Halo, Wpl>(src, dst, s, gens, rules::ConwayRule{}, torus, population);
}
template <int Rows, int Halo, int Wpl>
__global__ void __launch_bounds__(32 * warps_per_block, 3)
    rule_kernel(const W* __restrict__ src, W* __restrict__ dst, BoardShape s, int gens, rules::RuleMasks<W> rule, bool torus,
                unsigned long long* population) {
  generations<Rows, Halo, Wpl>(src, dst, s, gens, rule, torus, population);
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
  CudaSimulation(const Board& initial, const Params& options)
      : options_(options), width_(initial.width()), height_(initial.height()), host_words_(initial.words_per_row()) {
    const std::size_t bytes = initial.bytes();
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
      GPUVIS_CUDA_CHECK(cudaMemcpyAsync(a_, initial.data(), bytes, cudaMemcpyHostToDevice, stream_));
      GPUVIS_CUDA_CHECK(cudaStreamSynchronize(stream_));
    } catch (...) {
      release();
      throw;
    }
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
    constexpr int tile_words = 32 * Wpl - 2;
    const BoardShape s{width_, height_, host_words_ * 2};
    const int used_words = (width_ + 31) / 32;
    constexpr int out_rows = Rows - 2 * Halo;
    const long long tiles_y = (height_ + out_rows - 1) / out_rows;
    const dim3 block(32, warps_per_block);
    const dim3 grid(static_cast<unsigned>((used_words + tile_words - 1) / tile_words),
                    static_cast<unsigned>((tiles_y + warps_per_block - 1) / warps_per_block));
    const bool torus = options_.topology == Topology::torus;
    if (options_.rule == conway)
      conway_kernel<Rows, Halo, Wpl><<<grid, block, 0, stream_>>>(a_, b_, s, gens, torus, count);
    else
      rule_kernel<Rows, Halo, Wpl><<<grid, block, 0, stream_>>>(
          a_, b_, s, gens, rules::rule_masks<W>(options_.rule.birth, options_.rule.survival), torus, count);
    GPUVIS_CUDA_CHECK(cudaGetLastError());
  }

  Params options_;
  int width_, height_, host_words_;
  cudaStream_t stream_ = nullptr;
  W* a_ = nullptr;  // the current board
  W* b_ = nullptr;
  W* ages_ = nullptr;  // a Generations rule's age planes, each laid out as a board
  int planes_ = 0;
  unsigned long long* count_ = nullptr;
  std::int64_t generation_ = 0;
};

}  // namespace

std::unique_ptr<Simulation> make_simulation(const Board& initial, const Params& options) {
  return std::make_unique<CudaSimulation>(initial, options);
}

}  // namespace gpuvis::life::cuda_impl

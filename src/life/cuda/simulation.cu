// Life on CUDA: bit-packed boards (32 cells per word) and several generations per launch.
//
// Each warp owns a tile 32 words wide and `Rows` rows tall; every lane keeps its column of the tile
// in registers, exchanges its words with the neighbouring lanes by shuffles and runs up to `Halo`
// generations without touching memory. Every generation spoils one more cell at each edge of the
// tile, so the outer lanes (one word, 32 cells) and `Halo` rows at top and bottom are halo, and
// the inner 30 words x (Rows - 2 Halo) rows are written back. The per-word rules are the CPU's
// (../step_rules.hpp), so both backends compute the same boards bit for bit.
#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "../step_rules.hpp"
#include "gpuvis/cuda/check.hpp"
#include "gpuvis/cuda/runtime.hpp"
#include "gpuvis/life/life.hpp"

namespace gpuvis::life::cuda_impl {
namespace {

using W = std::uint32_t;

constexpr int warps_per_block = 4;
constexpr int out_words = 30;  // lanes 1..30 write; lanes 0 and 31 are the horizontal halo

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
  return load_slow(board, s, y, j, torus);
}

template <int Rows, int Halo, class R>
__global__ void __launch_bounds__(32 * warps_per_block)
    generations_kernel(const W* __restrict__ src, W* __restrict__ dst, BoardShape s, int gens, R rule, bool torus,
                       unsigned long long* population) {
  constexpr int out_rows = Rows - 2 * Halo;
  const int lane = threadIdx.x;
  const long long j = static_cast<long long>(blockIdx.x) * out_words - 1 + lane;
  const long long tile_row = static_cast<long long>(blockIdx.y) * warps_per_block + threadIdx.y;
  const long long y0 = tile_row * out_rows - Halo;
  if (y0 + Halo >= s.height) return;  // a whole warp past the bottom: no shuffle partner waits for it

  W c[Rows];
#pragma unroll
  for (int i = 0; i < Rows; ++i) c[i] = load(src, s, y0 + i, j, torus);

  // On a dead-bordered board, tiles at the border keep the cells outside it dead every generation.
  const bool at_border = !torus && (y0 < 0 || y0 + Rows > s.height || j * 32 + 32 > s.width || j < 0);
  const W column_mask = rules::valid_bits<W>(s.width, j);

  for (int g = 0; g < gens; ++g) {
    W o_up = 0, t_up = 0, o_mid, t_mid;
    {
      const W l = __shfl_up_sync(0xffffffffu, c[0], 1), r = __shfl_down_sync(0xffffffffu, c[0], 1);
      rules::row_sum(l, c[0], r, o_mid, t_mid);
    }
#pragma unroll
    for (int i = 0; i < Rows; ++i) {
      W o_down = 0, t_down = 0;
      if (i + 1 < Rows) {
        const W l = __shfl_up_sync(0xffffffffu, c[i + 1], 1), r = __shfl_down_sync(0xffffffffu, c[i + 1], 1);
        rules::row_sum(l, c[i + 1], r, o_down, t_down);
      }
      W next = rules::next_state(c[i], rules::block_sum(o_up, t_up, o_mid, t_mid, o_down, t_down), rule);
      if (at_border) {
        const long long y = y0 + i;
        next &= (y >= 0 && y < s.height) ? column_mask : W{0};
      }
      c[i] = next;
      o_up = o_mid;
      t_up = t_mid;
      o_mid = o_down;
      t_mid = t_down;
    }
  }

  unsigned count = 0;
  const bool writes = lane >= 1 && lane <= out_words && j * 32 < s.width;
  const W keep = rules::valid_bits<W>(s.width, j);
#pragma unroll
  for (int i = Halo; i < Halo + out_rows; ++i) {
    const long long y = y0 + i;
    if (writes && y < s.height) {
      const W v = c[i] & keep;
      dst[y * static_cast<long long>(s.words) + j] = v;
      count += __popc(v);
    }
  }
  if (population) {
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) count += __shfl_down_sync(0xffffffffu, count, off);
    if (lane == 0 && count) atomicAdd(population, static_cast<unsigned long long>(count));
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

// Tile shape: 64 rows of which 4 at each end are halo, so a launch runs up to 4 generations.
constexpr int tile_rows = 64;
constexpr int tile_halo = 4;

class CudaSimulation final : public Simulation {
 public:
  CudaSimulation(const Board& initial, const Options& options)
      : options_(options), width_(initial.width()), height_(initial.height()), host_words_(initial.words_per_row()) {
    const std::size_t bytes = initial.bytes();
    std::size_t free_bytes = 0, total_bytes = 0;
    GPUVIS_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    // Two boards and room for the runtime.
    if (2 * bytes + (64u << 20) > free_bytes)
      fail(ErrorCode::unsupported, "a " + std::to_string(width_) + "x" + std::to_string(height_) + " board needs " +
                                       std::to_string((2 * bytes) >> 20) + " MiB on the GPU (two copies); " +
                                       std::to_string(free_bytes >> 20) + " MiB are free");
    try {
      GPUVIS_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
      GPUVIS_CUDA_CHECK(cudaMalloc(&a_, bytes));
      GPUVIS_CUDA_CHECK(cudaMalloc(&b_, bytes));
      GPUVIS_CUDA_CHECK(cudaMalloc(&count_, sizeof(unsigned long long)));
      GPUVIS_CUDA_CHECK(cudaMemsetAsync(b_, 0, bytes, stream_));
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
  std::int64_t generation() const override { return generation_; }
  Backend backend() const override { return Backend::cuda; }

 private:
  void release() noexcept {
    cudaFree(a_);
    cudaFree(b_);
    cudaFree(count_);
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
    const BoardShape s{width_, height_, host_words_ * 2};
    const int used_words = (width_ + 31) / 32;
    constexpr int out_rows = tile_rows - 2 * tile_halo;
    const long long tiles_y = (height_ + out_rows - 1) / out_rows;
    const dim3 block(32, warps_per_block);
    const dim3 grid(static_cast<unsigned>((used_words + out_words - 1) / out_words),
                    static_cast<unsigned>((tiles_y + warps_per_block - 1) / warps_per_block));
    const bool torus = options_.topology == Topology::torus;
    if (options_.rule == conway)
      generations_kernel<tile_rows, tile_halo><<<grid, block, 0, stream_>>>(
          a_, b_, s, gens, rules::FixedRule<(1u << 3), (1u << 2) | (1u << 3)>{}, torus, count);
    else
      generations_kernel<tile_rows, tile_halo><<<grid, block, 0, stream_>>>(
          a_, b_, s, gens, rules::RuntimeRule{options_.rule.birth, options_.rule.survival}, torus, count);
    GPUVIS_CUDA_CHECK(cudaGetLastError());
    std::swap(a_, b_);
    generation_ += gens;
  }

  Options options_;
  int width_, height_, host_words_;
  cudaStream_t stream_ = nullptr;
  W* a_ = nullptr;  // the current board
  W* b_ = nullptr;
  unsigned long long* count_ = nullptr;
  std::int64_t generation_ = 0;
};

}  // namespace

std::unique_ptr<Simulation> make_simulation(const Board& initial, const Options& options) {
  return std::make_unique<CudaSimulation>(initial, options);
}

}  // namespace gpuvis::life::cuda_impl

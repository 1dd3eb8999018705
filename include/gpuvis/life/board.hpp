#pragma once
// A Life board: one bit per cell, 64 cells to a machine word. Bit b of word w of a row is the cell
// at x = 64 w + b (least significant bit first), so the same memory read as 32-bit words (as the
// CUDA kernels do) keeps x = 32 w + b. Bits past the board's width are always zero.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpuvis::life {

enum class Topology {
  torus,  // periodic borders: the right edge touches the left, the bottom the top
  dead,   // cells outside the board are dead forever
};

// Largest board side accepted (2^20 cells): larger sizes are refused before any allocation.
inline constexpr int max_side = 1 << 20;

class Board {
 public:
  using word = std::uint64_t;
  static constexpr int word_bits = 64;

  Board() = default;
  // An empty (all dead) board. Throws ErrorCode::invalid_argument for sides outside [1, max_side]
  // and ErrorCode::unsupported when the memory cannot be allocated (naming the size needed).
  Board(int width, int height);

  int width() const { return width_; }
  int height() const { return height_; }
  int words_per_row() const { return words_per_row_; }
  // The words a row of `width` cells takes.
  static constexpr int words_for(int width) { return (width + word_bits - 1) / word_bits; }
  std::size_t bytes() const { return words_.size() * sizeof(word); }

  word* row(int y) { return words_.data() + static_cast<std::size_t>(y) * words_per_row_; }
  const word* row(int y) const { return words_.data() + static_cast<std::size_t>(y) * words_per_row_; }
  word* data() { return words_.data(); }
  const word* data() const { return words_.data(); }

  bool get(int x, int y) const { return (row(y)[x >> 6] >> (x & 63)) & 1u; }
  void set(int x, int y, bool alive) {
    word& w = row(y)[x >> 6];
    const word bit = word{1} << (x & 63);
    w = alive ? (w | bit) : (w & ~bit);
  }

  // Number of live cells.
  std::uint64_t population() const;

  bool operator==(const Board& other) const {
    return width_ == other.width_ && height_ == other.height_ && words_ == other.words_;
  }

 private:
  int width_ = 0, height_ = 0, words_per_row_ = 0;
  std::vector<word> words_;
};

// Bytes a board of this size takes (one buffer), for memory checks before allocating.
std::size_t board_bytes(int width, int height);

// Host memory the system can still give without swapping (Linux: MemAvailable), in bytes; 0 when
// unknown. Used to refuse boards that do not fit before allocating them.
std::size_t available_host_memory();
// Throws ErrorCode::unsupported naming the sizes when `copies` boards of this size do not fit in
// the available host memory.
void require_host_memory(int width, int height, int copies);

// A random soup: every cell alive with probability `density` (0..1), decided by a counter-based
// generator from (seed, x, y), so the same seed gives the same board whatever the thread count.
void fill_random(Board& board, double density, std::uint64_t seed);

// Copies `pattern` onto `board` with its top-left corner at (x, y); cells falling outside the board
// wrap around on a torus and are dropped on a dead-bordered board.
void place(Board& board, const Board& pattern, int x, int y, Topology topology);

}  // namespace gpuvis::life

// The bit-packed board: allocation with a clear error, population, random soups, placement.
#include "gpuvis/life/board.hpp"

#include <algorithm>
#include <bit>
#include <fstream>
#include <new>
#include <string>

#include "gpuvis/core/error.hpp"
#include "gpuvis/core/parallel.hpp"

namespace gpuvis::life {
namespace {

std::string size_text(int w, int h) { return std::to_string(w) + "x" + std::to_string(h); }

// splitmix64: a counter-based generator, so each cell's draw depends only on (seed, x, y).
std::uint64_t mix(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace

std::size_t board_bytes(int width, int height) {
  return static_cast<std::size_t>((width + 63) / 64) * sizeof(Board::word) * static_cast<std::size_t>(height);
}

std::size_t available_host_memory() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key, unit;
  std::size_t kib = 0;
  while (meminfo >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  return 0;
}

void require_host_memory(int width, int height, int copies) {
  const std::size_t need = board_bytes(width, height) * static_cast<std::size_t>(copies);
  const std::size_t have = available_host_memory();
  if (have != 0 && need > have)
    fail(ErrorCode::unsupported, "a " + size_text(width, height) + " board needs " + std::to_string(need >> 20) + " MiB of memory (" +
                                     std::to_string(copies) + " copies of " + std::to_string(board_bytes(width, height) >> 20) +
                                     " MiB); " + std::to_string(have >> 20) + " MiB are available");
}

Board::Board(int width, int height) {
  require(width >= 1 && height >= 1 && width <= max_side && height <= max_side,
          "board size " + size_text(width, height) + " must be between 1x1 and " + size_text(max_side, max_side));
  width_ = width;
  height_ = height;
  words_per_row_ = words_for(width);
  try {
    words_.assign(static_cast<std::size_t>(words_per_row_) * height, 0);
  } catch (const std::bad_alloc&) {
    fail(ErrorCode::unsupported, "a " + size_text(width, height) + " board needs " +
                                     std::to_string(board_bytes(width, height) >> 20) +
                                     " MiB, more than this machine could allocate");
  }
}

std::uint64_t Board::population() const {
  std::uint64_t n = 0;
  for (word w : words_) n += static_cast<std::uint64_t>(std::popcount(w));
  return n;
}

void fill_random(Board& board, double density, std::uint64_t seed) {
  require(density >= 0.0 && density <= 1.0, "random density must lie in [0, 1]");
  // A cell is alive when its 32-bit draw is below density * 2^32 (density 1 fills every cell).
  const std::uint64_t limit = static_cast<std::uint64_t>(density * 4294967296.0);
  const int w = board.width(), nw = board.words_per_row();
  parallel_for(0, board.height(), 16, [&](std::ptrdiff_t y0, std::ptrdiff_t y1) {
    for (std::ptrdiff_t y = y0; y < y1; ++y) {
      Board::word* row = board.row(static_cast<int>(y));
      const std::uint64_t row_key = mix(seed ^ mix(static_cast<std::uint64_t>(y)));
      for (int q = 0; q < nw; ++q) {
        Board::word bits = 0;
        for (int b = 0; b < 64; b += 2) {
          const int x = q * 64 + b;
          if (x >= w) break;
          const std::uint64_t r = mix(row_key + static_cast<std::uint64_t>(x));
          if ((r & 0xffffffffu) < limit) bits |= Board::word{1} << b;
          if (x + 1 < w && (r >> 32) < limit) bits |= Board::word{1} << (b + 1);
        }
        row[q] = bits;
      }
    }
  });
}

void place(Board& board, const Board& pattern, int x, int y, Topology topology) {
  for (int py = 0; py < pattern.height(); ++py) {
    long long by = static_cast<long long>(y) + py;
    if (topology == Topology::torus) by = ((by % board.height()) + board.height()) % board.height();
    else if (by < 0 || by >= board.height()) continue;
    for (int px = 0; px < pattern.width(); ++px) {
      if (!pattern.get(px, py)) continue;
      long long bx = static_cast<long long>(x) + px;
      if (topology == Topology::torus) bx = ((bx % board.width()) + board.width()) % board.width();
      else if (bx < 0 || bx >= board.width()) continue;
      board.set(static_cast<int>(bx), static_cast<int>(by), true);
    }
  }
}

}  // namespace gpuvis::life

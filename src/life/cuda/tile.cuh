// Life on CUDA, the device side: a warp's tile of the board in registers, several generations per
// launch. Plain CUDA C++ with no host headers, so that both nvcc (life/cuda/simulation.cu, with
// Conway's rule and the rule masks) and NVRTC at run time (life/cuda/rule_jit.cpp, with one rule's
// outcomes as constants) compile it; it needs life/word_rule.h's 32-bit functions (gpuvis_life_*_u32)
// and W (unsigned 32-bit) declared before it.
//
// Each warp owns a tile 32 lanes wide (Wpl words per lane) and `Rows` rows tall (in a board's last
// column of tiles often several narrower ones: tile_columns); every lane keeps its column of the
// tile in registers, exchanges words with the neighbouring lanes by shuffles and runs up to `Halo` generations without touching memory. Every generation spoils one more cell at
// each edge of the tile, so the first word of lane 0, the last word of lane 31 (32 cells each) and
// `Halo` rows at top and bottom are halo; the inner words and rows are written back. A rule is a
// type with `W next(W alive, W s0, W s1, W s2, W s3) const`, the block sum's bit planes in.

constexpr int warps_per_block = 4;  // four independent warps per block measured best (docs/benchmarks/life.md)

struct BoardShape {
  int width, height;
  int words;  // 32-bit words per row (twice the host board's 64-bit words: the padding is zero)
};

// Tile row y of the board (y may lie outside: wrapped on a torus, dead otherwise), lane word j.
__device__ __noinline__ W load_slow(const W* board, BoardShape s, long long y, long long j, bool torus) {
  if (torus) y = ((y % s.height) + s.height) % s.height;
  else if (y < 0 || y >= s.height) return 0;
  return gpuvis_life_load_cells_u32(board + y * (long long)(s.words), s.width, s.words, j * 32, torus ? 1 : 0);
}

__device__ __forceinline__ W load(const W* board, BoardShape s, long long y, long long j, bool torus) {
  if (y >= 0 && y < s.height && j >= 0 && j * 32 + 32 <= s.width) return board[y * (long long)(s.words) + j];
  // A board of whole words, a tile at its edge, less than a board's size away: the row and the word
  // wrap (or are dead) without division. The tiles at a board's left and right edges are 2 of 18
  // columns of tiles at 16384 cells; through load_slow they cost it about a third of its speed.
  const long long used = s.width / 32;
  if (s.width % 32 == 0 && y >= -s.height && y < 2LL * s.height && j >= -used && j < 2 * used) {
    if (!torus && (y < 0 || y >= s.height || j < 0 || j >= used)) return 0;
    y += y < 0 ? s.height : (y >= s.height ? -s.height : 0);
    j += j < 0 ? used : (j >= used ? -used : 0);
    return board[y * (long long)(s.words) + j];
  }
  return load_slow(board, s, y, j, torus);
}

// Whether a tile of `lanes_words` words from word first_j and `rows` rows from row y0 lies within one
// board's size of a board whose width is a whole number of words, so that each of its rows and
// words wraps by one add.
__device__ __forceinline__ bool near_edge(BoardShape s, long long first_j, int lanes_words, long long y0, int rows) {
  const long long used = s.width / 32;
  return s.width % 32 == 0 && first_j >= -used && first_j + lanes_words <= 2 * used && y0 >= -s.height &&
         y0 + rows <= 2LL * s.height;
}

// One generation of a warp's tile in registers. Lane words are c[row][k]: logical word
// first_j + Lanes... lane * Wpl + k; neighbours across lanes come by shuffles.
// `lanes` is the tile's width in lanes: 32, or a narrow tile's segment (tile_columns).
template <int Rows, int Wpl, bool Border, class R>
__device__ __forceinline__ void tile_generation(W (&c)[Rows][Wpl], const R& rule, long long y0, int height,
                                                const W (&column_mask)[Wpl], int lanes) {
  auto row_sums = [lanes](const W (&row)[Wpl], W (&ones)[Wpl], W (&twos)[Wpl]) {
    const W from_left = __shfl_up_sync(0xffffffffu, row[Wpl - 1], 1, lanes);
    const W from_right = __shfl_down_sync(0xffffffffu, row[0], 1, lanes);
#pragma unroll
    for (int k = 0; k < Wpl; ++k)
      gpuvis_life_row_sum_u32(k == 0 ? from_left : row[k - 1], row[k], k == Wpl - 1 ? from_right : row[k + 1], &ones[k], &twos[k]);
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
      W s0, s1, s2, s3;
      gpuvis_life_block_sum_u32(o_up[k], t_up[k], o_mid[k], t_mid[k], o_down[k], t_down[k], &s0, &s1, &s2, &s3);
      W next = rule.next(c[i][k], s0, s1, s2, s3);
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

// The columns of tiles across a board: `full` columns of tiles 32 lanes wide (32 * Wpl - 2 output
// words each), then the words left over. When they fit a narrow tile of 4, 8 or 16 lanes, that
// last column is one of narrow tiles: each warp there is split into segments of `narrow_lanes`
// lanes, each segment a tile of its own band of rows, so the column costs 32 / narrow_lanes times
// fewer warps than tiles of 32 lanes mostly idle (at 16384 cells, 512 words: 17 full columns and 2
// words left, which took the 18th column of full tiles, 5 % of the launch). Otherwise the last
// column (if any) is of full tiles. The host sizes the grid by it (simulation.cu, rule_jit.cpp).
struct TileColumns {
  int full;          // columns of tiles 32 lanes wide
  int narrow_lanes;  // lanes per segment of the narrow last column; 0: none
  int columns;       // columns of blocks in the grid
};
template <int Wpl>
__host__ __device__ inline TileColumns tile_columns(int width) {
  const int used = (width + 31) / 32, tile_words = 32 * Wpl - 2;
  const int full = used / tile_words, left = used - full * tile_words;
  int lanes = 4;
  while (lanes < 32 && lanes * Wpl - 2 < left) lanes *= 2;
  const int narrow = left > 0 && lanes < 32 ? lanes : 0;
  return TileColumns{full, narrow, full + (left > 0 ? 1 : 0)};
}

// One tile's generations: `lanes` lanes wide (32, or a narrow segment), its first lane's first word
// at board word first_j (a halo word), tile row `tile_row` of out_rows rows. Narrow tiles of one
// warp may lie some inside and some outside, so the choice that the shuffles follow is the warp's.
template <int Rows, int Halo, int Wpl, bool Narrow, class R>
__device__ __forceinline__ void tile_generations(const W* __restrict__ src, W* __restrict__ dst, BoardShape s, int gens, R rule,
                                                 bool torus, unsigned long long* population, int lanes, int lane,
                                                 long long first_j, long long tile_row) {
  constexpr int out_rows = Rows - 2 * Halo;
  const int tile_words = lanes * Wpl - 2;  // the first word of the first lane and the last of the last lane are halo
  const long long j0 = first_j + lane * Wpl;
  const long long y0 = tile_row * out_rows - Halo;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  // Launched as a programmatic dependent of the launch before (simulation.cu, Hopper and later):
  // this block may be resident before that launch has finished, so each warp waits for its board
  // here, before any load or store, and at once lets the next launch's blocks become resident in
  // the slots that this launch's last blocks leave free. Warps past the board never get here.
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;");
#endif

  W c[Rows][Wpl];
  // A tile wholly inside the board (every lane's word full, every row present) loads without
  // branches, so all its loads are in flight at once; tiles at the edges wrap or clear per word.
  const bool inside = first_j >= 0 && (first_j + lanes * Wpl) * 32 <= s.width && y0 >= 0 && y0 + Rows <= s.height;
  if (inside) {
    const W* p = src + y0 * (long long)(s.words) + j0;
#pragma unroll
    for (int i = 0; i < Rows; ++i)
#pragma unroll
      for (int k = 0; k < Wpl; ++k) c[i][k] = p[i * (long long)(s.words) + k];
  } else if (near_edge(s, first_j, lanes * Wpl, y0, Rows)) {
    // A tile at the edge of a board of whole words: each lane wraps its column once, each row wraps
    // by one add, and cells outside a dead border are masked, so these loads too are all in flight
    // at once (through load(), each behind its own branch, they ran one after another).
    long long jw[Wpl];
    bool column_live[Wpl];
    const long long used = s.width / 32;
#pragma unroll
    for (int k = 0; k < Wpl; ++k) {
      const long long j = j0 + k;
      column_live[k] = torus || (j >= 0 && j < used);
      jw[k] = j + (j < 0 ? used : (j >= used ? -used : 0));
    }
#pragma unroll
    for (int i = 0; i < Rows; ++i) {
      const long long y = y0 + i;
      const bool row_live = torus || (y >= 0 && y < s.height);
      const W* row = src + (y + (y < 0 ? s.height : (y >= s.height ? -s.height : 0))) * (long long)(s.words);
#pragma unroll
      for (int k = 0; k < Wpl; ++k) {
        const W v = row[jw[k]];
        c[i][k] = row_live && column_live[k] ? v : W{0};
      }
    }
  } else {
#pragma unroll
    for (int i = 0; i < Rows; ++i)
#pragma unroll
      for (int k = 0; k < Wpl; ++k) c[i][k] = load(src, s, y0 + i, j0 + k, torus);
  }

  W keep[Wpl];
#pragma unroll
  for (int k = 0; k < Wpl; ++k) keep[k] = gpuvis_life_valid_bits_u32(s.width, j0 + k);
  // On a dead-bordered board, tiles at the border keep the cells outside it dead every generation
  // (a warp of narrow tiles all the same way: the mask is right for inner tiles too).
  const bool bordered = !torus && (Narrow ? !__all_sync(0xffffffffu, inside) : !inside);
  if (bordered)
    for (int g = 0; g < gens; ++g) tile_generation<Rows, Wpl, true>(c, rule, y0, s.height, keep, lanes);
  else
    for (int g = 0; g < gens; ++g) tile_generation<Rows, Wpl, false>(c, rule, y0, s.height, keep, lanes);

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
        dst[y * (long long)(s.words) + j] = v;
        count += __popc(v);
      }
    }
  }
  if (population) {
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) count += __shfl_down_sync(0xffffffffu, count, off);
    if (threadIdx.x == 0 && count) atomicAdd(population, (unsigned long long)(count));
  }
}

// The narrow column's tiles out of line, so that their registers (the segment width is not a
// constant) do not crowd the full tiles' (inlined: spills rose from 8 to 24 bytes).
template <int Rows, int Halo, int Wpl, class R>
__device__ __noinline__ void narrow_tile_generations(const W* __restrict__ src, W* __restrict__ dst, BoardShape s, int gens, R rule,
                                                     bool torus, unsigned long long* population, int lanes, long long first_j,
                                                     long long tile_row) {
  tile_generations<Rows, Halo, Wpl, true>(src, dst, s, gens, rule, torus, population, lanes, threadIdx.x % lanes, first_j, tile_row);
}

// A launch's body: block (x, y) takes column x of tiles (tile_columns) and warps_per_block tile rows
// of it (in the narrow column, warps_per_block warps of 32 / narrow_lanes tile rows each).
template <int Rows, int Halo, int Wpl, class R>
__device__ __forceinline__ void generations(const W* __restrict__ src, W* __restrict__ dst, BoardShape s, int gens, R rule,
                                            bool torus, unsigned long long* population) {
  constexpr int out_rows = Rows - 2 * Halo;
  constexpr int full_words = 32 * Wpl - 2;
  const TileColumns columns = tile_columns<Wpl>(s.width);
  const long long warp_row = (long long)(blockIdx.y) * warps_per_block + threadIdx.y;
  const long long first_j = (long long)(blockIdx.x) * full_words - 1;
  if (columns.narrow_lanes && (int)(blockIdx.x) == columns.full) {
    const int lanes = columns.narrow_lanes, segments = 32 / lanes;
    const long long first_row = warp_row * segments;
    if (first_row * out_rows >= s.height) return;  // a whole warp past the bottom: no shuffle partner waits for it
    narrow_tile_generations<Rows, Halo, Wpl>(src, dst, s, gens, rule, torus, population, lanes, first_j, first_row + threadIdx.x / lanes);
  } else {
    if (warp_row * out_rows >= s.height) return;  // a whole warp past the bottom
    tile_generations<Rows, Halo, Wpl, false>(src, dst, s, gens, rule, torus, population, 32, threadIdx.x, first_j, warp_row);
  }
}

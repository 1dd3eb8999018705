/* One Life generation on a machine word of cells, in the C that g++, nvcc and the OpenCL C compiler
   all accept: the one definition the CPU (64-bit words), CUDA (32-bit) and OpenCL (32-bit)
   backends compile, so all three compute the same boards bit for bit (life/step_rules.hpp wraps
   it for C++, life/opencl/life.cl for OpenCL).

   Included once per word type, without an include guard: the includer defines GPUVIS_LIFE_W (an
   unsigned type of GPUVIS_LIFE_BITS bits), GPUVIS_LIFE_FN(name) (the functions' names for that
   type), GPUVIS_LIFE_I64 (a signed 64-bit type), GPUVIS_RULE and, for OpenCL, GPUVIS_GLOBAL.

   A word holds n consecutive cells of a row, least significant bit first. A generation is built
   from row sums: for every cell, the number of live cells among itself and its two horizontal
   neighbours (0..3, two bit planes); three row sums stacked vertically give the live cells of the
   3x3 block around a cell (0..9, four bit planes s0..s3), from which the rule decides. */

#ifndef GPUVIS_GLOBAL
#define GPUVIS_GLOBAL
#endif

#define GPUVIS_LIFE_ONES ((GPUVIS_LIFE_W) ~(GPUVIS_LIFE_W)0)

/* A rule given at run time, as word masks: for block sum v (v live neighbours for a dead cell,
   v - 1 for a live one), born[v] is all ones when a dead cell is born, differ[v] all ones where a
   live cell's fate differs from a dead one's (born[v] ^ survives(v)). Built once per rule. */
typedef struct GPUVIS_LIFE_FN(masks_s) {
  GPUVIS_LIFE_W born[10], differ[10];
} GPUVIS_LIFE_FN(masks);

GPUVIS_RULE GPUVIS_LIFE_FN(masks) GPUVIS_LIFE_FN(masks_of)(unsigned birth, unsigned survival) {
  GPUVIS_LIFE_FN(masks) m;
  for (int v = 0; v <= 9; ++v) {
    const int born = (int)((birth >> v) & 1u), survives = v >= 1 ? (int)((survival >> (v - 1)) & 1u) : 0;
    m.born[v] = born ? GPUVIS_LIFE_ONES : (GPUVIS_LIFE_W)0;
    m.differ[v] = born != survives ? GPUVIS_LIFE_ONES : (GPUVIS_LIFE_W)0;
  }
  return m;
}

/* The 3-cell horizontal sum of each cell of `centre`, given the words to its left and right. */
GPUVIS_RULE void GPUVIS_LIFE_FN(row_sum)(GPUVIS_LIFE_W left, GPUVIS_LIFE_W centre, GPUVIS_LIFE_W right, GPUVIS_LIFE_W* ones,
                                         GPUVIS_LIFE_W* twos) {
  const GPUVIS_LIFE_W west = (GPUVIS_LIFE_W)((centre << 1) | (left >> (GPUVIS_LIFE_BITS - 1)));   /* cell x-1 at bit x */
  const GPUVIS_LIFE_W east = (GPUVIS_LIFE_W)((centre >> 1) | (right << (GPUVIS_LIFE_BITS - 1)));  /* cell x+1 at bit x */
  const GPUVIS_LIFE_W west_centre = west ^ centre; /* not "half": a type in OpenCL C */
  *ones = west_centre ^ east;
  *twos = (west & centre) | (east & west_centre);
}

/* The 3x3 block sum (including the cell) as four bit planes, from three row sums. */
GPUVIS_RULE void GPUVIS_LIFE_FN(block_sum)(GPUVIS_LIFE_W o_up, GPUVIS_LIFE_W t_up, GPUVIS_LIFE_W o_mid, GPUVIS_LIFE_W t_mid,
                                           GPUVIS_LIFE_W o_down, GPUVIS_LIFE_W t_down, GPUVIS_LIFE_W* s0, GPUVIS_LIFE_W* s1,
                                           GPUVIS_LIFE_W* s2, GPUVIS_LIFE_W* s3) {
  const GPUVIS_LIFE_W h = o_up ^ o_mid;
  const GPUVIS_LIFE_W carry = (o_up & o_mid) | (o_down & h);  /* weight 2 */
  const GPUVIS_LIFE_W g = t_up ^ t_mid;
  const GPUVIS_LIFE_W u0 = g ^ t_down;                     /* weight 2 */
  const GPUVIS_LIFE_W u1 = (t_up & t_mid) | (t_down & g);  /* weight 4 */
  const GPUVIS_LIFE_W c2 = u0 & carry;                     /* weight 4 */
  *s0 = h ^ o_down;
  *s1 = u0 ^ carry;
  *s2 = u1 ^ c2;
  *s3 = u1 & c2;
}

/* Conway's rule (B3/S23): a cell lives next when its block sum is 3, or 4 and it is alive. A block
   sum is at most 9, so 3 and 4 are told apart from 11 and 12 without the eights plane, which the
   compiler then never computes. */
GPUVIS_RULE GPUVIS_LIFE_W GPUVIS_LIFE_FN(next_conway)(GPUVIS_LIFE_W alive, GPUVIS_LIFE_W s0, GPUVIS_LIFE_W s1, GPUVIS_LIFE_W s2) {
  return (GPUVIS_LIFE_W)((s0 & s1 & ~s2) | (alive & ~s0 & ~s1 & s2));
}

/* a where `select` is clear, b where it is set: one LOP3 instruction on an NVIDIA GPU. */
GPUVIS_RULE GPUVIS_LIFE_W GPUVIS_LIFE_FN(pick)(GPUVIS_LIFE_W a, GPUVIS_LIFE_W b, GPUVIS_LIFE_W select) {
  return (GPUVIS_LIFE_W)(a ^ ((a ^ b) & select));
}

/* A rule given at run time, without branches: each block sum v's outcome for the word's cells,
   born[v] for the dead and born[v] ^ differ[v] for the live, then a tree of selections by the
   sum's bit planes, s0 first. A sum is at most 9, so where s3 is set s2 and s1 are clear and the
   tree's top picks sums 8 and 9. (It replaced a loop over the ten sums that ANDed each one's
   decoded planes, 6.6 times slower than Conway's rule on an H100: docs/benchmarks/life.md.) */
GPUVIS_RULE GPUVIS_LIFE_W GPUVIS_LIFE_FN(next_rule)(GPUVIS_LIFE_W alive, GPUVIS_LIFE_W s0, GPUVIS_LIFE_W s1, GPUVIS_LIFE_W s2,
                                                     GPUVIS_LIFE_W s3, const GPUVIS_LIFE_FN(masks) * m) {
#define GPUVIS_LIFE_AT(v) ((GPUVIS_LIFE_W)(m->born[v] ^ (m->differ[v] & alive)))
  const GPUVIS_LIFE_W p01 = GPUVIS_LIFE_FN(pick)(GPUVIS_LIFE_AT(0), GPUVIS_LIFE_AT(1), s0);
  const GPUVIS_LIFE_W p23 = GPUVIS_LIFE_FN(pick)(GPUVIS_LIFE_AT(2), GPUVIS_LIFE_AT(3), s0);
  const GPUVIS_LIFE_W p45 = GPUVIS_LIFE_FN(pick)(GPUVIS_LIFE_AT(4), GPUVIS_LIFE_AT(5), s0);
  const GPUVIS_LIFE_W p67 = GPUVIS_LIFE_FN(pick)(GPUVIS_LIFE_AT(6), GPUVIS_LIFE_AT(7), s0);
  const GPUVIS_LIFE_W p89 = GPUVIS_LIFE_FN(pick)(GPUVIS_LIFE_AT(8), GPUVIS_LIFE_AT(9), s0);
#undef GPUVIS_LIFE_AT
  const GPUVIS_LIFE_W p0_3 = GPUVIS_LIFE_FN(pick)(p01, p23, s1), p4_7 = GPUVIS_LIFE_FN(pick)(p45, p67, s1);
  return GPUVIS_LIFE_FN(pick)(GPUVIS_LIFE_FN(pick)(p0_3, p4_7, s2), p89, s3);
}

/* The most dying-state bit planes: a Generations rule has at most 256 states, ages 1..254. */
#ifndef GPUVIS_LIFE_MAX_AGE_PLANES
#define GPUVIS_LIFE_MAX_AGE_PLANES 8
#endif

/* A Generations rule (C states) on a word of cells: `age` holds the word's dying ages as `planes`
   bit planes (0 for live and dead cells, a for a cell in dying state a + 1, a = 1..C-2) and is
   updated in place; returns the live cells of the next generation. A dying cell is not born, and
   its age goes up by one until it passes C-2, when the cell is dead; a live cell that does not
   survive starts dying at age 1. With planes = 0 (C = 2) this is next_rule. Branch-free apart from
   the loops over the planes. */
GPUVIS_RULE GPUVIS_LIFE_W GPUVIS_LIFE_FN(next_generations)(GPUVIS_LIFE_W alive, GPUVIS_LIFE_W s0, GPUVIS_LIFE_W s1, GPUVIS_LIFE_W s2,
                                                            GPUVIS_LIFE_W s3, const GPUVIS_LIFE_FN(masks) * m,
                                                            GPUVIS_LIFE_W* age, int planes, int states) {
  GPUVIS_LIFE_W dying = 0;
  for (int i = 0; i < planes; ++i) dying |= age[i];
  const GPUVIS_LIFE_W next = (GPUVIS_LIFE_W)(GPUVIS_LIFE_FN(next_rule)(alive, s0, s1, s2, s3, m) & ~dying);
  GPUVIS_LIFE_W carry = dying; /* age + 1 where dying (a ripple-carry add over the planes) */
  for (int i = 0; i < planes; ++i) {
    const GPUVIS_LIFE_W t = (GPUVIS_LIFE_W)(age[i] & carry);
    age[i] ^= carry;
    carry = t;
  }
  GPUVIS_LIFE_W past = dying; /* the dying cells now at age C-1 (or wrapped to 0): dead */
  for (int i = 0; i < planes; ++i) past &= ((((unsigned)(states - 1)) >> i) & 1u) ? age[i] : (GPUVIS_LIFE_W)~age[i];
  for (int i = 0; i < planes; ++i) age[i] &= (GPUVIS_LIFE_W)~past;
  if (planes > 0) age[0] |= (GPUVIS_LIFE_W)(alive & ~next); /* live cells that did not survive: age 1 (alive ones are at 0) */
  return next;
}

/* n cells of a row starting at cell x0 (any integer) on a dead-bordered board: cells outside
   [0, width) are dead. `row` holds `words` words whose bits past `width` are zero. */
GPUVIS_RULE GPUVIS_LIFE_W GPUVIS_LIFE_FN(extract)(const GPUVIS_GLOBAL GPUVIS_LIFE_W* row, int words, GPUVIS_LIFE_I64 x0) {
  const int n = GPUVIS_LIFE_BITS;
  const GPUVIS_LIFE_I64 q = x0 >= 0 ? x0 / n : -((-x0 + n - 1) / n);
  const int s = (int)(x0 - q * n);
  const GPUVIS_LIFE_W lo = (q >= 0 && q < words) ? row[q] : (GPUVIS_LIFE_W)0;
  if (s == 0) return lo;
  const GPUVIS_LIFE_W hi = (q + 1 >= 0 && q + 1 < words) ? row[q + 1] : (GPUVIS_LIFE_W)0;
  return (GPUVIS_LIFE_W)((lo >> s) | (hi << (n - s)));
}

/* n cells of a row starting at cell x0: on a torus cell x is cell x mod width; on a dead-bordered
   board (torus 0) cells outside [0, width) are dead. */
GPUVIS_RULE GPUVIS_LIFE_W GPUVIS_LIFE_FN(load_cells)(const GPUVIS_GLOBAL GPUVIS_LIFE_W* row, int width, int words, GPUVIS_LIFE_I64 x0,
                                                      int torus) {
  const int n = GPUVIS_LIFE_BITS;
  if (x0 >= 0 && x0 % n == 0 && x0 + n <= width) return row[x0 / n];
  if (!torus) return GPUVIS_LIFE_FN(extract)(row, words, x0);
  GPUVIS_LIFE_I64 x = x0 % width;
  if (x < 0) x += width;
  if (width >= n) {
    if (x + n <= width) return GPUVIS_LIFE_FN(extract)(row, words, x);
    const int k = (int)(width - x); /* cells x..width-1, then 0..n-k-1 */
    const GPUVIS_LIFE_W low = (GPUVIS_LIFE_W)(GPUVIS_LIFE_FN(extract)(row, words, x) & ((((GPUVIS_LIFE_W)1) << k) - 1));
    return (GPUVIS_LIFE_W)(low | (GPUVIS_LIFE_FN(extract)(row, words, 0) << k));
  }
  GPUVIS_LIFE_W r = 0; /* a board narrower than one word wraps several times within it */
  for (int i = 0; i < n; ++i) {
    const GPUVIS_LIFE_I64 c = (x + i) % width;
    r |= (GPUVIS_LIFE_W)(((row[c / n] >> (c % n)) & (GPUVIS_LIFE_W)1) << i);
  }
  return r;
}

/* Bits of word q (n cells from x = q n) that lie on a board of `width` cells. */
GPUVIS_RULE GPUVIS_LIFE_W GPUVIS_LIFE_FN(valid_bits)(int width, GPUVIS_LIFE_I64 q) {
  const int n = GPUVIS_LIFE_BITS;
  const GPUVIS_LIFE_I64 first = q * n;
  if (q < 0 || first >= width) return 0;
  if (first + n <= width) return GPUVIS_LIFE_ONES;
  return (GPUVIS_LIFE_W)((((GPUVIS_LIFE_W)1) << (width - first)) - 1);
}

#undef GPUVIS_LIFE_ONES

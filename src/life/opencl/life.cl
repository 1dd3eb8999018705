/* Life on OpenCL: one generation per launch, a work item per 32-cell word and row, with the rules
   of life/word_rule.h (put before this source, as life_* functions), so that the boards equal the
   CPU's and CUDA's bit for bit. `words` is the row's count of 32-bit words (padding words are zero
   and stay zero: valid_bits). */

__kernel void life_step(__global const uint* src, __global uint* dst, int width, int height, int words, int torus, int conway,
                        life_masks masks, __global uint* ages, int planes, int states) {
  const int j = (int)get_global_id(0), y = (int)get_global_id(1);
  if (j >= words || y >= height) return;
  uint ones[3], twos[3];
  for (int k = 0; k < 3; ++k) {
    int row_y = y + k - 1;
    if (torus) row_y = (row_y + height) % height;
    uint left = 0, centre = 0, right = 0;
    if (row_y >= 0 && row_y < height) {
      __global const uint* row = src + (size_t)row_y * (size_t)words;
      left = life_load_cells(row, width, words, ((long)j - 1) * 32, torus);
      centre = life_load_cells(row, width, words, (long)j * 32, torus);
      right = life_load_cells(row, width, words, ((long)j + 1) * 32, torus);
    }
    life_row_sum(left, centre, right, &ones[k], &twos[k]);
  }
  uint s0, s1, s2, s3;
  life_block_sum(ones[0], twos[0], ones[1], twos[1], ones[2], twos[2], &s0, &s1, &s2, &s3);
  const size_t at = (size_t)y * (size_t)words + (size_t)j;
  const uint alive = src[at];
  uint next;
  if (planes > 0) { /* a Generations rule: its dying ages, one plane after another, updated in place */
    const size_t plane = (size_t)words * (size_t)height;
    uint age[GPUVIS_LIFE_MAX_AGE_PLANES];
    for (int i = 0; i < planes; ++i) age[i] = ages[i * plane + at];
    next = life_next_generations(alive, s0, s1, s2, s3, &masks, age, planes, states);
    for (int i = 0; i < planes; ++i) ages[i * plane + at] = age[i];
  } else {
    next = conway ? life_next_conway(alive, s0, s1, s2) : life_next_rule(alive, s0, s1, s2, s3, &masks);
  }
  dst[at] = next & life_valid_bits(width, j);
}

/* The live cells of each work group's words (32 x 4 of them), one count per group. */
__kernel void life_population(__global const uint* board, int words, int height, __global uint* counts) {
  __local uint sums[128];
  const int j = (int)get_global_id(0), y = (int)get_global_id(1);
  const int item = (int)get_local_id(1) * 32 + (int)get_local_id(0);
  sums[item] = (j < words && y < height) ? popcount(board[(size_t)y * (size_t)words + (size_t)j]) : 0u;
  for (int span = 64; span > 0; span >>= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (item < span) sums[item] += sums[item + span];
  }
  if (item == 0) counts[get_group_id(1) * get_num_groups(0) + get_group_id(0)] = sums[0];
}

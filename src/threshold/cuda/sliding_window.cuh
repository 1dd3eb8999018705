#pragma once
// Sliding-window reductions over lines held in shared memory: the van Herk / Gil-Werman scheme on
// the GPU. A line of n outputs is stored with its 2r halo as len = n + 2r padded elements; it is cut
// into blocks of k = 2r+1 and each (line, block) pair is one work item that computes the block's
// prefix (g) and suffix (s) reductions sequentially. The window starting at padded index y is
// op(s[y], g[y+2r]), or s[y] alone when y starts a block (needed for sums, harmless for max/min).
// Cost per element is constant whatever r is. Two reductions run side by side (max and min) so
// their dependency chains overlap.
#include <cstdint>

namespace gpuvis::threshold::cuda_impl {

// Four packed bytes at once (SIMD within a 32-bit word).
struct MaxU4 {
  __device__ static unsigned apply(unsigned a, unsigned b) { return __vmaxu4(a, b); }
};
struct MinU4 {
  __device__ static unsigned apply(unsigned a, unsigned b) { return __vminu4(a, b); }
};
struct SumOp {
  template <class T> __device__ static T apply(T a, T b) { return static_cast<T>(a + b); }
};

// Running max and min of four packed bytes. On sm_90 the bytes are split into two 16-bit-lane
// words (bytes 0 and 2, bytes 1 and 3): max.u16x2/min.u16x2 are single instructions there, while
// __vmaxu4/__vminu4 are emulated in six, so a step costs two byte permutes and four min/max
// instead of twelve instructions. Older GPUs keep the packed form.
struct Extrema4 {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  unsigned mx_lo, mx_hi, mn_lo, mn_hi;
  __device__ static unsigned lo(unsigned w) { return __byte_perm(w, 0, 0x4240); }
  __device__ static unsigned hi(unsigned w) { return __byte_perm(w, 0, 0x4341); }
  __device__ static unsigned max16(unsigned a, unsigned b) {
    unsigned d;
    asm("max.u16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
    return d;
  }
  __device__ static unsigned min16(unsigned a, unsigned b) {
    unsigned d;
    asm("min.u16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
    return d;
  }
  __device__ void start(unsigned mx, unsigned mn) {
    mx_lo = lo(mx), mx_hi = hi(mx), mn_lo = lo(mn), mn_hi = hi(mn);
  }
  __device__ void start(unsigned w) {
    mx_lo = mn_lo = lo(w);
    mx_hi = mn_hi = hi(w);
  }
  __device__ void add(unsigned mx, unsigned mn) {
    mx_lo = max16(mx_lo, lo(mx)), mx_hi = max16(mx_hi, hi(mx));
    mn_lo = min16(mn_lo, lo(mn)), mn_hi = min16(mn_hi, hi(mn));
  }
  __device__ void add(unsigned w) {
    const unsigned l = lo(w), h = hi(w);
    mx_lo = max16(mx_lo, l), mx_hi = max16(mx_hi, h);
    mn_lo = min16(mn_lo, l), mn_hi = min16(mn_hi, h);
  }
  __device__ unsigned max() const { return __byte_perm(mx_lo, mx_hi, 0x6240); }
  __device__ unsigned min() const { return __byte_perm(mn_lo, mn_hi, 0x6240); }
#else
  unsigned mx, mn;
  __device__ void start(unsigned a, unsigned b) { mx = a, mn = b; }
  __device__ void start(unsigned w) { mx = mn = w; }
  __device__ void add(unsigned a, unsigned b) { mx = __vmaxu4(mx, a), mn = __vminu4(mn, b); }
  __device__ void add(unsigned w) { add(w, w); }
  __device__ unsigned max() const { return mx; }
  __device__ unsigned min() const { return mn; }
#endif
};

// LINES lines of `len` elements. Vertical tiles interleave lines (element i of line l at
// i*LINES + l, so a warp reading one element of 32 lines hits 32 consecutive addresses);
// horizontal tiles store lines one after another.
template <int LINES, bool VERTICAL>
struct Tile {
  int len;
  __device__ int at(int l, int i) const { return VERTICAL ? i * LINES + l : l * len + i; }
};

// The max and min prefix (forwards) and suffix (backwards) of elements [b, e) of line l, on
// packed bytes (Extrema4). ONE_INPUT: max and min are taken over the same input (inMin is
// ignored), which is then read once per element. smax may alias inMax and smin inMin; g never
// aliases an input. The compiler cannot know that a store does not feed a later load, so the
// loads are pipelined by hand: the next four elements are loaded before the current four are
// folded and stored, and the chain does not wait for a shared-memory round trip at every step.
template <bool ONE_INPUT, int LINES, bool V>
__device__ void extrema_chain(const unsigned* inMax, const unsigned* inMin, unsigned* gmax, unsigned* smax, unsigned* gmin,
                              unsigned* smin, Tile<LINES, V> t, int l, int b, int e) {
  constexpr int kBatch = 4;
  struct Batch {
    unsigned x[kBatch], n[kBatch];
  };
  Extrema4 acc;
  const auto load = [&](Batch& v, int j, int i) {
    v.x[j] = inMax[t.at(l, i)];
    if constexpr (!ONE_INPUT) v.n[j] = inMin[t.at(l, i)];
  };
  const auto add = [&](const Batch& v, int j) {
    if constexpr (ONE_INPUT) acc.add(v.x[j]);
    else acc.add(v.x[j], v.n[j]);
  };
  const auto begin = [&](int i) {
    Batch v;
    load(v, 0, i);
    if constexpr (ONE_INPUT) acc.start(v.x[0]);
    else acc.start(v.x[0], v.n[0]);
  };
  // One direction: elements first, first+dir, ... (count of them), into g or s.
  const auto run = [&](int first, int count, int dir, unsigned* out_max, unsigned* out_min) {
    const int full = count / kBatch;
    Batch cur{}, next{};
    if (full > 0) {
#pragma unroll
      for (int j = 0; j < kBatch; ++j) load(cur, j, first + dir * j);
    }
    int i = first;
    for (int q = 0; q < full; ++q, i += dir * kBatch) {
      if (q + 1 < full) {
#pragma unroll
        for (int j = 0; j < kBatch; ++j) load(next, j, i + dir * (kBatch + j));
      }
#pragma unroll
      for (int j = 0; j < kBatch; ++j) {
        add(cur, j);
        out_max[t.at(l, i + dir * j)] = acc.max();
        out_min[t.at(l, i + dir * j)] = acc.min();
      }
      cur = next;
    }
    for (int left = count - full * kBatch; left > 0; --left, i += dir) {
      load(cur, 0, i);
      add(cur, 0);
      out_max[t.at(l, i)] = acc.max();
      out_min[t.at(l, i)] = acc.min();
    }
  };
  begin(b);
  gmax[t.at(l, b)] = acc.max();
  gmin[t.at(l, b)] = acc.min();
  run(b + 1, e - b - 1, 1, gmax, gmin);
  // Backwards: each element is loaded before its slot is overwritten (smax/smin may be the inputs).
  begin(e - 1);
  smax[t.at(l, e - 1)] = acc.max();
  smin[t.at(l, e - 1)] = acc.min();
  run(e - 2, e - b - 1, -1, smax, smin);
}

// The max and min prefix/suffix of every k-block of every line (see extrema_chain for the
// arguments). All threads of the block take part; __syncthreads() before reading the results.
// (Cutting long k-blocks into parts run by several threads, with a second phase folding in the
// other parts' totals, was tried for small frames with large windows and measured slower: the
// second phase costs as much latency as it saves.)
template <bool ONE_INPUT, int LINES, bool V>
__device__ void prefix_suffix_extrema(const unsigned* inMax, const unsigned* inMin, unsigned* gmax, unsigned* smax,
                                      unsigned* gmin, unsigned* smin, Tile<LINES, V> t, int k) {
  const int blocks = (t.len + k - 1) / k;
  const int nthreads = blockDim.x * blockDim.y;
  for (int item = threadIdx.x + threadIdx.y * blockDim.x; item < LINES * blocks; item += nthreads) {
    const int l = item % LINES, b = (item / LINES) * k;
    extrema_chain<ONE_INPUT>(inMax, inMin, gmax, smax, gmin, smin, t, l, b, min(b + k, t.len));
  }
}

// One reduction only (the Bradley-Roth sums).
template <class Op, class T, int LINES, bool V>
__device__ void prefix_suffix(const T* in, T* g, T* s, Tile<LINES, V> t, int k) {
  const int blocks = (t.len + k - 1) / k;
  const int nthreads = blockDim.x * blockDim.y;
  for (int item = threadIdx.x + threadIdx.y * blockDim.x; item < LINES * blocks; item += nthreads) {
    const int l = item % LINES, b = (item / LINES) * k;
    const int e = min(b + k, t.len);
    T a = in[t.at(l, b)];
    g[t.at(l, b)] = a;
#pragma unroll 4
    for (int i = b + 1; i < e; ++i) {
      a = Op::apply(a, in[t.at(l, i)]);
      g[t.at(l, i)] = a;
    }
    a = in[t.at(l, e - 1)];
    s[t.at(l, e - 1)] = a;
#pragma unroll 4
    for (int i = e - 2; i >= b; --i) {
      a = Op::apply(a, in[t.at(l, i)]);
      s[t.at(l, i)] = a;
    }
  }
}

// The window [y, y+2r] of line l (padded-local indices); `starts_block` = (y % k == 0).
template <class Op, class T, int LINES, bool V>
__device__ T window(const T* g, const T* s, Tile<LINES, V> t, int l, int y, int k, bool starts_block) {
  const T sv = s[t.at(l, y)];
  return starts_block ? sv : Op::apply(sv, g[t.at(l, y + k - 1)]);
}

// The max (Op = MaxU4) or min of the window [y, y + L - 1] of line l from van Herk blocks of
// length kb, ceil(L / 2) <= kb <= L: the union of the two kb-windows at y and y + L - kb (they
// overlap, which max and min do not mind). A kb-window is s[z] op g[z + kb - 1] wherever z lies in
// its block. kb < L halves the prefix/suffix chains, the latency of small frames, for two more
// shared-memory reads per output.
template <class Op, int LINES, bool V>
__device__ unsigned window_extremum(const unsigned* g, const unsigned* s, Tile<LINES, V> t, int l, int y, int kb, int L) {
  const unsigned a = Op::apply(s[t.at(l, y)], g[t.at(l, y + kb - 1)]);
  if (kb == L) return a;
  return Op::apply(a, Op::apply(s[t.at(l, y + L - kb)], g[t.at(l, y + L - 1)]));
}

// floor(y / k) for 0 <= y < 2^23, k >= 1, without an integer division. Exact: (y + 0.5) / k is at
// least 0.5/k away from an integer, while the float error is about (y/k) * 2^-24 < 0.5/k.
__device__ inline int div_small(int y, float inv_k) { return __float2int_rz((static_cast<float>(y) + 0.5f) * inv_k); }

}  // namespace gpuvis::threshold::cuda_impl

// Stage 2 of CUDA decoding: one warp per candidate root (docs/decoding.md, as the CPU Decoder).
//
//   gather:   the candidate's subtree, level by level, into shared memory: each lane takes one node
//             of the level and reads its children from the bits the propagation noted (the
//             neighbours visited in an earlier round, i.e. the traversed neighbours with fewer
//             descendants), a warp scan places them; a subtree larger than the set's largest
//             symbol is dropped. Leaves load their centroid and size and
//             form their weighted centroid here, so every global load and product of the stage
//             happens in parallel lanes.
//   key:      the canonical depth strings bottom-up in a shared pool, a level at a time: a lane per
//             node places its string, then a lane per child ranks its string among its siblings'
//             (descending byte order; each complete string's first 8 bytes are noted as one
//             number, which decides most comparisons) and copies it into its parent's. The warp then looks the
//             key up in the sorted table, comparing 32 bytes per step with a ballot.
//   classify: the warp numbers the nodes depth-first (children in neighbour order, the CPU's
//             order) a level at a time; lane 0 adds up the leaves in that order and applies the
//             gates; for a recorded symbol the warp marks its root and the root's neighbours
//             (stage 3 and 4 read the marks). This file is compiled without FMA contraction, so the sums, centres and
//             centroids are the CPU's to the last bit; the angle goes through CUDA's atan2
//             (within 2 ulp of the CPU's).
//
// Each step is a chain of dependent loads whose length, not the work, is the stage's time (a
// camera frame has a few candidates, a warp each). clock64 probes on an H200 (run of 2026-11-22 (36ae547),
// 19-node symbols of a 640x480 frame): gathering 9-11 k cycles; the key 10-17 k when one lane
// sorted a node's children (growing with the root's 7-12 children), 9-10 k with the lane-per-child
// ranking; the lookup 1.5-4 k; numbering 2 k by one lane's walk per node, 0.6 k from the offsets;
// the ordered sums, gates and record 7.5-10 k (the products formed in parallel saved little: the
// divisions, atan2 and the record's atomic slot are most of it).
#include <cstdint>

#include "decode/rules.hpp"
#include "decode/yamaarashi_rules.hpp"
#include "decode/cuda/decode_kernels.cuh"
#include "cuda/chain.cuh"
#include "cuda/check.hpp"

namespace gpuvis::decode::cuda_impl {
namespace {

constexpr int kWarpsPerBlock = 4;
constexpr int kNodes = kMaxSymbolNodes + 1;                  // slot for the one that overflows
constexpr int kPoolBytes = kNodes * (kNodes + 1) / 2 + kNodes + 64;  // every node's string

// One warp's view of a candidate's subtree: nodes in level order (the root is node 0), each
// node's children contiguous, in neighbour order.
struct Subtree {
  std::int32_t region[kNodes];
  std::int32_t first_child[kNodes];
  std::int32_t child_count[kNodes];
  std::int32_t depth[kNodes];
  std::int32_t parent[kNodes];    // the parent's node (the root's is unset)
  std::int32_t offset[kNodes];    // position in the parent's subtree, depth first (the first child: 1)
  double weight[kNodes], wcx[kNodes], wcy[kNodes];  // leaves only: weight, weight * centroid
  std::int32_t size[kNodes];      // leaves only: (w - 1) + (h - 1)
  std::int32_t colour[kNodes];    // leaves only: 0 black, 1 white
  std::int32_t str_at[kNodes], str_len[kNodes];
  unsigned long long prefix[kNodes];  // a complete string's first 8 bytes, big-endian, zero-padded
  std::int32_t level_at[kNodes + 1];  // nodes of level L (depth L): level_at[L] .. level_at[L + 1]
  std::int32_t levels;
  std::int32_t preorder[kNodes];   // node -> position in the depth-first order
  std::int32_t depth_first[kNodes];  // position -> node
  char pool[kPoolBytes];
};

// Gathers the subtree of `root` into `st`; returns its node count, or 0 when it has more than
// max_nodes nodes. Called by the whole warp.
__device__ int gather(const DeviceTree& t, const Scratch& s, int root, int max_nodes, Subtree& st) {
  const int lane = threadIdx.x % 32;
  if (lane == 0) {
    st.region[0] = root;
    st.depth[0] = 0;
  }
  __syncwarp();
  int n = 1, level_begin = 0, level_end = 1, level = 0;
  while (level_begin < level_end) {
    if (lane == 0) st.level_at[level] = level_begin;
    for (int base = level_begin; base < level_end; base += 32) {
      const int i = base + lane;
      const bool active = i < level_end;
      const int r = active ? st.region[i] : -1;
      // The propagation noted each visited region's children (neighbours visited in an earlier
      // round: exactly the traversed neighbours with fewer descendants, the CPU's rule), so a level
      // costs two dependent loads: the bits with the list's start, then the children's numbers.
      const int begin = active ? t.adj_begin[r] : 0;
      const unsigned long long bits = active ? s.children[r] : 0;
      const int count = __popcll(bits);
      int offset = count;  // inclusive warp scan
      for (int d = 1; d < 32; d *= 2) {
        const int v = __shfl_up_sync(0xffffffffu, offset, d);
        if (lane >= d) offset += v;
      }
      const int total = __shfl_sync(0xffffffffu, offset, 31);
      if (n + total > max_nodes) return 0;
      offset -= count;
      if (active) {
        st.first_child[i] = n + offset;
        st.child_count[i] = count;
        // The children's region numbers, loaded a batch at a time (a root has up to a dozen).
        int at = n + offset;
        for (unsigned long long b = bits; b;) {
          constexpr int kBatch = 8;
          int k[kBatch], m = 0;
#pragma unroll
          for (int j = 0; j < kBatch; ++j)  // unrolled: the arrays stay in registers
            if (b) {
              k[j] = begin + __ffsll(static_cast<long long>(b)) - 1;
              b &= b - 1;
              m = j + 1;
            }
          int child[kBatch];
#pragma unroll
          for (int j = 0; j < kBatch; ++j)
            if (j < m) child[j] = t.adj[k[j]];
#pragma unroll
          for (int j = 0; j < kBatch; ++j)
            if (j < m) {
              st.region[at + j] = child[j];
              st.depth[at + j] = st.depth[i] + 1;
              st.parent[at + j] = i;
            }
          at += m;
        }
      }
      n += total;
      __syncwarp();
    }
    level_begin = level_end;
    level_end = n;
    ++level;
  }
  if (lane == 0) {
    st.level_at[level] = n;
    st.levels = level;
  }
  // Leaf data (the CPU's centroid: sum_x = sum_2x / 2, then / area; the products as LeafSums::add).
  for (int i = lane; i < n; i += 32) {
    if (i == 0 || st.child_count[i]) continue;
    const int r = st.region[i];
    const double area = static_cast<double>(t.area[r]);
    const double cx = 0.5 * static_cast<double>(t.sum_2x[r]) / area, cy = static_cast<double>(t.sum_y[r]) / area;
    const double weight = rules::leaf_weight(st.depth[i]);
    st.weight[i] = weight;
    st.wcx[i] = weight * cx;
    st.wcy[i] = weight * cy;
    st.size[i] = (t.right[r] - t.left[r]) + (t.bottom[r] - t.top[r]);
    st.colour[i] = t.colour[r] ? 1 : 0;
  }
  __syncwarp();
  return n;
}

// std::string's operator< on two pool strings.
__device__ bool less_than(const char* a, int na, const char* b, int nb) {
  const int n = na < nb ? na : nb;
  for (int k = 0; k < n; ++k)
    if (a[k] != b[k]) return static_cast<unsigned char>(a[k]) < static_cast<unsigned char>(b[k]);
  return na < nb;
}

// The same for the complete strings of nodes a and b, from their prefixes first: a symbol's
// strings are mostly shorter than 8 bytes, so one comparison usually decides. Strings hold no zero
// byte, so equal zero-padded prefixes with one string of at most 8 bytes make the shorter one a
// prefix of the other.
__device__ bool node_less(const Subtree& st, int a, int b) {
  const unsigned long long pa = st.prefix[a], pb = st.prefix[b];
  if (pa != pb) return pa < pb;
  const int na = st.str_len[a], nb = st.str_len[b];
  if (na <= 8 || nb <= 8) return na < nb;
  return less_than(st.pool + st.str_at[a] + 8, na - 8, st.pool + st.str_at[b] + 8, nb - 8);
}

// One lane per node of [begin, end): the prefixes of their (complete) strings.
__device__ void note_prefixes(Subtree& st, int begin, int end) {
  for (int i = begin + threadIdx.x % 32; i < end; i += 32) {
    const char* str = st.pool + st.str_at[i];
    const int len = st.str_len[i];
    unsigned long long p = 0;
#pragma unroll
    for (int k = 0; k < 8; ++k) p |= static_cast<unsigned long long>(k < len ? static_cast<unsigned char>(str[k]) : 0) << (56 - 8 * k);
    st.prefix[i] = p;
  }
}

// The whole warp: the canonical string of every node. Node i's string is its depth digit, then
// its children's strings, largest first, so its length is its subtree's node count. Levels are
// built deepest first. For each level, a lane per node places its string after the level's
// earlier ones (a warp scan of the lengths) and writes its digit; then a lane per child of those
// nodes ranks its (complete) string among its siblings' and copies it to its place in the
// parent's string, and notes its depth-first offset in the parent's subtree (neighbour order) for
// order_depth_first. One lane sorting a node's children instead costs the square of their count
// in string comparisons, all on one lane. The root's string comes last, with the key's colour
// letter just before it.
__device__ void build_key(Subtree& st, char colour_letter) {
  const int lane = threadIdx.x % 32;
  int used = 0;
  for (int level = st.levels - 1; level >= 0; --level) {
    if (level == 0) {
      if (lane == 0) st.pool[used] = colour_letter;
      ++used;
    }
    const int level_end = st.level_at[level + 1];
    for (int base = st.level_at[level]; base < level_end; base += 32) {
      const int i = base + lane;
      const bool active = i < level_end;
      const int c0 = active ? st.first_child[i] : 0, nc = active ? st.child_count[i] : 0;
      int len = 1;
      for (int j = 0; j < nc; ++j) len += st.str_len[c0 + j];
      int at = len;  // inclusive warp scan of the lengths
      for (int d = 1; d < 32; d *= 2) {
        const int v = __shfl_up_sync(0xffffffffu, at, d);
        if (lane >= d) at += v;
      }
      const int total = __shfl_sync(0xffffffffu, at, 31);
      at += used - len;
      if (active) {
        st.pool[at] = static_cast<char>('0' + (st.depth[i] < 9 ? st.depth[i] : 9));
        st.str_at[i] = at;
        st.str_len[i] = len;
      }
      used += total;
    }
    __syncwarp();  // the level's places are read below
    if (level + 1 == st.levels) {  // the deepest level: leaves only, their strings complete
      note_prefixes(st, st.level_at[level], level_end);
      __syncwarp();
      continue;
    }
    const int children_end = st.level_at[level + 2];
    for (int c = st.level_at[level + 1] + lane; c < children_end; c += 32) {
      const int p = st.parent[c], first = st.first_child[p], last = first + st.child_count[p];
      const char* mine = st.pool + st.str_at[c];
      const int my_len = st.str_len[c];
      int sorted_at = 1, dfs_at = 1;
      for (int k = first; k < last; ++k) {
        if (k == c) continue;
        const int other_len = st.str_len[k];
        // Descending order; equal strings in neighbour order (a stable sort; they are the same bytes).
        const bool other_first = k < c ? !node_less(st, k, c) : node_less(st, c, k);
        if (other_first) sorted_at += other_len;
        if (k < c) dfs_at += other_len;
      }
      char* out = st.pool + st.str_at[p] + sorted_at;
      for (int k = 0; k < my_len; ++k) out[k] = mine[k];
      st.offset[c] = dfs_at;
    }
    __syncwarp();  // this level's strings are complete: the next level up reads them
    if (level > 0) {  // the root is nobody's sibling
      note_prefixes(st, st.level_at[level], level_end);
      __syncwarp();
    }
  }
}

// The whole warp: binary search of the key (colour letter + root string) in the sorted table.
// Returns the ID, or -1.
__device__ int lookup(const DeviceTreeTable& table, const char* key, int key_len) {
  const int lane = threadIdx.x % 32;
  int lo = 0, hi = table.size - 1;
  while (lo <= hi) {
    const int mid = (lo + hi) / 2;
    const char* entry = table.keys + static_cast<std::size_t>(mid) * kKeyBytes;
    int order = 0;  // sign of key - entry
    for (int base = 0; base < kKeyBytes && order == 0; base += 32) {
      const int k = base + lane;
      const unsigned char a = k < key_len ? static_cast<unsigned char>(key[k]) : 0;
      const unsigned char b = static_cast<unsigned char>(entry[k]);
      const unsigned differ = __ballot_sync(0xffffffffu, a != b);
      if (differ) {
        const int first = __ffs(differ) - 1;
        const int av = __shfl_sync(0xffffffffu, static_cast<int>(a), first);
        const int bv = __shfl_sync(0xffffffffu, static_cast<int>(b), first);
        order = av < bv ? -1 : 1;
      }
    }
    if (order == 0) return table.ids[mid];
    if (order < 0) hi = mid - 1;
    else lo = mid + 1;
  }
  return -1;
}

// The whole warp, after build_key: the depth-first order of the nodes, children in neighbour
// order (the CPU's summation order), top-down a level at a time from each node's offset in its
// parent's subtree.
__device__ void order_depth_first(Subtree& st) {
  const int lane = threadIdx.x % 32;
  if (lane == 0) {
    st.preorder[0] = 0;
    st.depth_first[0] = 0;
  }
  __syncwarp();
  for (int level = 1; level < st.levels; ++level) {
    for (int i = st.level_at[level] + lane; i < st.level_at[level + 1]; i += 32) {
      const int at = st.preorder[st.parent[i]] + st.offset[i];
      st.preorder[i] = at;
      st.depth_first[at] = i;
    }
    __syncwarp();  // this level's positions are read by the next
  }
}

// Lane 0: the leaves' sums in depth-first order (the products formed by gather), the §4.6 gates as
// the CPU Decoder, and the record of a valid or fuzzy symbol. Returns whether it wrote one.
__device__ bool classify(const DeviceTree& t, const SetBounds& b, const Scratch& s, const Subtree& st, int n, int root,
                         int id_found) {
  // The root's values first: their global loads then overlap the sums below.
  const int desc = s.desc[root], colour = t.colour[root];
  const int width = t.right[root] - t.left[root] + 1, height = t.bottom[root] - t.top[root] + 1;
  const double root_x = centroid_x(t, root), root_y = centroid_y(t, root);
  rules::LeafSums sums;
#pragma unroll 4
  for (int p = 1; p < n; ++p) {  // the root (position 0) is never a leaf of its own tree
    const int node = st.depth_first[p];
    if (st.child_count[node]) continue;
    sums.add_weighted(st.weight[node], st.wcx[node], st.wcy[node], st.colour[node], st.size[node]);
  }
  // A region that passed the yamaarashi core's special test is not damaged (its 5 descendants are
  // below any amoeba's), as on the CPU; a core keeps its code for stage 2b, which reads its ring
  // and then applies max_fid.
  const bool core = b.yamaarashi && yamaarashi::special_candidate(desc, colour != 0, degree_of(t, root),
                                                                  !(t.flags[root] & (segment::kBorder | segment::kFragmented)));
  int id = rules::classify(sums, b.min_leafs, desc < b.tmin && !core, width > height ? width : height,
                           [id_found] { return id_found; });
  if (id != rules::kYamaarashi) id = rules::limit_id(id, b.max_id);
  if (id == rules::kInvalid || !rules::has_orientation(sums)) return false;

  SymbolRecord rec;
  rec.id = id >= 0 || id == rules::kYamaarashi ? id : -1;
  const rules::Pose pose = rules::symbol_pose(sums);
  rec.x = pose.x;
  rec.y = pose.y;
  rec.angle = pose.angle;
  rec.root = root;
  rec.root_size = max(width, height);
  rec.root_x = root_x;
  rec.root_y = root_y;
  rec.root_colour = colour;
  rec.leaves = sums.leaves;
  rec.gated_leaves = sums.gated_total();
  const int slot = atomicAdd(&s.results->symbols, 1);
  record_slot(s.results->symbol, s.symbol_overflow, slot) = rec;
  return true;
}

// The whole warp, for a recorded symbol: its root and the root's neighbours are taken (no root
// candidate, stage 3), and the root is marked as a symbol's (object blobs, stage 4).
__device__ void mark_symbol(const DeviceTree& t, const Scratch& s, int root) {
  const int lane = threadIdx.x % 32;
  if (lane == 0) {
    s.taken[root] = 1;
    s.symbol_root[root] = 1;
  }
  const int end = t.adj_begin[root + 1];
  for (int k = t.adj_begin[root] + lane; k < end; k += 32) s.taken[t.adj[k]] = 1;
}

__global__ void __launch_bounds__(kWarpsPerBlock * 32)
    decode_candidates(DeviceTree t, SetBounds b, DeviceTreeTable table, Scratch s) {
  gpuvis::cuda::await_previous_kernel();
  __shared__ Subtree subtrees[kWarpsPerBlock];
  Subtree& st = subtrees[threadIdx.x / 32];
  const int lane = threadIdx.x % 32;
  const int warps = gridDim.x * kWarpsPerBlock;
  const int count = s.results->candidates;
  for (int c = blockIdx.x * kWarpsPerBlock + threadIdx.x / 32; c < count; c += warps) {
    const int root = s.candidates[c];
    const int n = gather(t, s, root, b.max_nodes, st);
    if (n == 0) continue;  // left the tree: invalid
    build_key(st, t.colour[root] ? 'w' : 'b');
    const int id_found = lookup(table, st.pool + st.str_at[0] - 1, st.str_len[0] + 1);
    order_depth_first(st);
    const bool recorded = __shfl_sync(0xffffffffu, lane == 0 && classify(t, b, s, st, n, root, id_found), 0);
    if (recorded) mark_symbol(t, s, root);
    __syncwarp();  // st is reused for the next candidate
  }
}

}  // namespace

void decode_symbols(const DeviceTree& tree, const SetBounds& bounds, const DeviceTreeTable& table, const Scratch& s,
                    cudaStream_t stream) {
  // The candidate count stays on the device: a fixed grid strides over it. Candidates are at most
  // a few per symbol on camera frames; noise frames bring hundreds.
  const int max_blocks = grid_for(tree.capacity, kWarpsPerBlock);
  const int grid = max_blocks < 128 ? max_blocks : 128;
  gpuvis::cuda::launch_chained(decode_candidates, dim3(grid), dim3(kWarpsPerBlock * 32), 0, stream, tree, bounds, table, s);
}

}  // namespace gpuvis::decode::cuda_impl

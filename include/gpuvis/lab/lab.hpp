#pragma once
// The GPU fundamentals, measured correctly (gpuvis lab): matrix products from the naive kernels to
// tensor cores and cuBLAS, a dot product's reductions, memory spaces, atomics and streams. Each
// lesson returns a table of measurements; times are medians after warm-up runs, and every row
// states what its time covers.
#include <cstdint>
#include <string>
#include <vector>

#include "gpuvis/core/backend.hpp"

namespace gpuvis::lab {

struct Row {
  std::string name;      // the variant, e.g. "tiled"
  std::string backend;   // "cuda", "cpu"
  double median_us = 0;  // median time of one run
  double value = 0;      // the lesson's figure (GFLOP/s, GB/s, a count, ...)
  std::string unit;      // unit of `value`
  std::string scope;     // what the time covers: "kernel", "end to end (copies included)", ...
  std::string check;     // the result's check: "ok (max error 0.31 of bound)", "WRONG: 51234 of 1048576", ...
  bool correct = true;   // the result passed its check
  bool demonstration = false;  // a wrong or inexact result shown on purpose (a race, a float accumulator)
  std::string note;
};

struct Table {
  std::string title;
  std::vector<Row> rows;
  std::vector<std::string> notes;  // what the table shows, printed under it
};

// ---- matrix multiplication --------------------------------------------------------------------
enum class Precision { f32, f64, bf16 };
enum class MatmulImpl {
  naive_blocks,  // one thread per block, one block per element (the course's first kernel)
  naive,         // one thread per element, 16x16 blocks
  tiled,         // 32x32 tiles staged in shared memory
  regblock,      // 128x128 block tiles, 8x8 outputs per thread in registers, double-buffered
  tensor,        // tensor cores through mma.sync: bf16 (f32 accumulation), f32 as TF32, f64
  cublas,        // cuBLAS (TF32 off for f32)
  cublas_tf32,   // cuBLAS SGEMM with TF32 tensor math (f32 only): the TF32 kernel's peer
  cpu,           // the CPU through OpenBLAS (bf16 computed as f32)
};
std::string to_string(MatmulImpl impl);
std::string to_string(Precision p);
MatmulImpl parse_matmul_impl(const std::string& name);  // throws invalid_argument listing the names
Precision parse_precision(const std::string& name);

struct MatmulParams {
  int n = 1024;                       // square n x n matrices, 1..16384
  Precision precision = Precision::f32;
  std::vector<MatmulImpl> impls;      // empty: every implementation this build, machine and type have
  int runs = 10;                      // timed runs after 2 warm-up runs
  std::uint64_t seed = 1;
  int checked_entries = 4096;         // entries compared with the f64 reference (all when n <= 256)
};
// True when this build has OpenBLAS for the CPU product (--impl cpu).
bool blas_available();

// C = A B on random A, B in [-1, 1]. Rows: GFLOP/s (2 n^3 / kernel time), the fraction of cuBLAS
// when it ran, and each result checked against a reference in double precision.
Table matmul(const MatmulParams& options);

// ---- the other lessons ----------------------------------------------------------------------
struct LessonParams {
  Backend backend = Backend::automatic;  // cpu: the CPU versions only; cuda/automatic: both where both exist
  std::int64_t size = 1 << 24;            // elements (dot, atomics) or bytes per chunk set (streams)
  int runs = 20;
};
Table dot(const LessonParams& options);      // reductions: CPU, shared-memory tree + atomics, warp shuffles, CUB
Table memory(const LessonParams& options);   // registers vs global vs shared vs constant (CUDA only)
Table atomics(const LessonParams& options);  // the race and its cures, CPU and CUDA
Table streams(const LessonParams& options);  // chunked copies and work on one vs several streams (CUDA only)

}  // namespace gpuvis::lab

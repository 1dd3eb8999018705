// gpuvis lab matmul: random matrices, every implementation timed, every result checked against a
// reference computed in extended precision with a stated error bound.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <sstream>

#include "gpuvis/core/error.hpp"
#include "gpuvis/cuda/runtime.hpp"
#include "gpuvis/lab/lab.hpp"
#include "lab/backends.hpp"
#include "lab/lab_common.hpp"

#if GPUVIS_LAB_BLAS
#include <cblas.h>

#include "core/lazy_library.hpp"
#include "cuda/built.hpp"
#endif

namespace gpuvis::lab {
namespace {

double round_to(Precision p, double v) {
  if (p == Precision::f64) return v;
  float f = static_cast<float>(v);
  if (p == Precision::bf16) {  // round to nearest even on the upper 16 bits
    std::uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    bits += 0x7fffu + ((bits >> 16) & 1u);
    bits &= 0xffff0000u;
    std::memcpy(&f, &bits, sizeof f);
  }
  return f;
}

std::vector<double> random_matrix(int n, Precision p, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> m(static_cast<std::size_t>(n) * n);
  for (double& v : m) v = round_to(p, u(rng));
  return m;
}

// Relative error of one product term and of the sums, for the bound |c - exact| <= gamma * sum|a||b|.
double gamma_for(MatmulImpl impl, Precision p, int n) {
  const double unit = p == Precision::f64 ? std::ldexp(1.0, -53) : std::ldexp(1.0, -24);
  double g = 2.0 * n * unit;  // sums of n terms (with slack for the order of additions)
  if ((impl == MatmulImpl::tensor || impl == MatmulImpl::cublas_tf32) && p == Precision::f32) g += std::ldexp(1.0, -10);  // inputs rounded to TF32
  return g;
}

struct Check {
  double worst = 0;  // largest |error| / bound
  std::size_t failed = 0, checked = 0;
};

Check check(const std::vector<double>& a, const std::vector<double>& b, const std::vector<double>& c, int n, double gamma,
            int entries, std::uint64_t seed) {
  std::vector<std::pair<int, int>> at;
  if (static_cast<long long>(n) * n <= std::max(entries, 65536)) {
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) at.push_back({i, j});
  } else {
    std::mt19937_64 rng(seed ^ 0x5eedull);
    at = {{0, 0}, {n - 1, n - 1}, {0, n - 1}, {n - 1, 0}};
    while (static_cast<int>(at.size()) < entries) at.push_back({static_cast<int>(rng() % n), static_cast<int>(rng() % n)});
  }
  Check r;
  for (const auto& [i, j] : at) {
    long double exact = 0, magnitude = 0;
    for (int k = 0; k < n; ++k) {
      const long double t = static_cast<long double>(a[static_cast<std::size_t>(i) * n + k]) * b[static_cast<std::size_t>(k) * n + j];
      exact += t;
      magnitude += std::fabs(t);
    }
    const double bound = static_cast<double>(gamma * magnitude) + 1e-300;
    const double err = std::fabs(static_cast<double>(c[static_cast<std::size_t>(i) * n + j] - exact));
    r.worst = std::max(r.worst, err / bound);
    r.failed += err > bound;
    ++r.checked;
  }
  return r;
}

#if GPUVIS_LAB_BLAS
// OpenBLAS, loaded on first use (see lazy_library.hpp).
const LazyLibrary& openblas() {
  static const LazyLibrary lib({GPUVIS_OPENBLAS_PATH, "libopenblas.so.0", "libopenblas.so"}, "OpenBLAS");
  return lib;
}

double cpu_matmul(Precision p, int n, const std::vector<double>& a, const std::vector<double>& b, std::vector<double>& c, int runs) {
  std::vector<double> times;
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  const auto dgemm = openblas().get<decltype(&cblas_dgemm)>("cblas_dgemm");
  const auto sgemm = openblas().get<decltype(&cblas_sgemm)>("cblas_sgemm");
  if (p == Precision::f64) {
    for (int r = 0; r < runs + 1; ++r) {
      const double us = time_us([&] {
        dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a.data(), n, b.data(), n, 0.0, c.data(), n);
      });
      if (r > 0) times.push_back(us);
    }
  } else {  // f32, and bf16 inputs (exact in f32) multiplied as f32
    std::vector<float> fa(a.begin(), a.end()), fb(b.begin(), b.end()), fc(nn);
    for (int r = 0; r < runs + 1; ++r) {
      const double us = time_us([&] {
        sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, fa.data(), n, fb.data(), n, 0.0f, fc.data(), n);
      });
      if (r > 0) times.push_back(us);
    }
    c.assign(fc.begin(), fc.end());
  }
  return median(times);
}
#endif

}  // namespace

bool blas_available() {
#if GPUVIS_LAB_BLAS
  return openblas().loaded();
#else
  return false;
#endif
}

std::string to_string(MatmulImpl impl) {
  switch (impl) {
    case MatmulImpl::naive_blocks: return "naive-blocks";
    case MatmulImpl::naive: return "naive";
    case MatmulImpl::tiled: return "tiled";
    case MatmulImpl::regblock: return "regblock";
    case MatmulImpl::tensor: return "tensor";
    case MatmulImpl::cublas: return "cublas";
    case MatmulImpl::cublas_tf32: return "cublas-tf32";
    case MatmulImpl::cpu: return "cpu";
  }
  return "?";
}

std::string to_string(Precision p) { return p == Precision::f32 ? "f32" : p == Precision::f64 ? "f64" : "bf16"; }

MatmulImpl parse_matmul_impl(const std::string& name) {
  for (MatmulImpl i : {MatmulImpl::naive_blocks, MatmulImpl::naive, MatmulImpl::tiled, MatmulImpl::regblock, MatmulImpl::tensor,
                       MatmulImpl::cublas, MatmulImpl::cublas_tf32, MatmulImpl::cpu})
    if (to_string(i) == name) return i;
  fail(ErrorCode::invalid_argument,
       "unknown matmul implementation '" + name + "' (naive-blocks, naive, tiled, regblock, tensor, cublas, cublas-tf32, cpu, all)");
}

Precision parse_precision(const std::string& name) {
  if (name == "f32") return Precision::f32;
  if (name == "f64") return Precision::f64;
  if (name == "bf16") return Precision::bf16;
  fail(ErrorCode::invalid_argument, "unknown type '" + name + "' (f32, f64, bf16)");
}

Table matmul(const MatmulParams& o) {
  require(o.n >= 1 && o.n <= 16384, "matrix size must lie in 1..16384");
  require(o.runs >= 1 && o.runs <= 1000, "runs must lie in 1..1000");
  const bool gpu = cuda::device_count() > 0;
  std::vector<MatmulImpl> impls = o.impls;
  if (impls.empty()) {
    if (gpu) impls = {MatmulImpl::naive_blocks, MatmulImpl::naive, MatmulImpl::tiled, MatmulImpl::regblock, MatmulImpl::tensor, MatmulImpl::cublas};
    if (blas_available()) impls.push_back(MatmulImpl::cpu);
    if (impls.empty()) fail(ErrorCode::unsupported, "no matmul implementation here: no CUDA device and no BLAS in this build");
  }
  // cuBLAS runs first whenever a GPU implementation is asked for, so the others can be compared with it.
  const bool any_gpu = std::any_of(impls.begin(), impls.end(), [](MatmulImpl i) { return i != MatmulImpl::cpu; });
  for (MatmulImpl i : impls) {
    if (i != MatmulImpl::cpu && !gpu) fail(ErrorCode::unsupported, "matmul --impl " + to_string(i) + " runs on the GPU: " + cuda::unavailable_reason());
    if (i == MatmulImpl::cublas_tf32 && o.precision != Precision::f32)
      fail(ErrorCode::invalid_argument, "cublas-tf32 multiplies f32 matrices (TF32 tensor math); use --type f32");
  }
  auto asked = [&](MatmulImpl i) { return std::find(impls.begin(), impls.end(), i) != impls.end(); };
  if (any_gpu && !asked(MatmulImpl::cublas)) impls.insert(impls.begin(), MatmulImpl::cublas);
  // The TF32 kernel is compared with cuBLAS at the same precision.
  if (o.precision == Precision::f32 && asked(MatmulImpl::tensor) && !asked(MatmulImpl::cublas_tf32)) impls.insert(impls.begin(), MatmulImpl::cublas_tf32);
  std::stable_partition(impls.begin(), impls.end(), [](MatmulImpl i) { return i == MatmulImpl::cublas || i == MatmulImpl::cublas_tf32; });

  const int n = o.n;
  const auto a = random_matrix(n, o.precision, o.seed), b = random_matrix(n, o.precision, o.seed + 1);
  std::vector<double> c(static_cast<std::size_t>(n) * n);
  const double flops = 2.0 * n * static_cast<double>(n) * n;
  Table t;
  t.title = "matmul " + std::to_string(n) + "x" + std::to_string(n) + " " + to_string(o.precision);
  double cublas_gflops = 0, cublas_tf32_gflops = 0;
  for (MatmulImpl impl : impls) {
    Row r;
    r.name = to_string(impl);
    r.unit = "GFLOP/s";
    if (impl == MatmulImpl::cpu) {
#if GPUVIS_LAB_BLAS
      r.backend = "cpu";
      r.scope = "host (OpenBLAS" + std::string(o.precision == Precision::bf16 ? ", bf16 inputs as f32)" : ")");
      r.median_us = cpu_matmul(o.precision, n, a, b, c, std::max(1, std::min(o.runs, n >= 2048 ? 3 : o.runs)));
#else
      fail(ErrorCode::unsupported, "matmul --impl cpu needs a BLAS: this gpuvis was built without OpenBLAS (install libopenblas-dev and rebuild)");
#endif
    } else {
      r.backend = "cuda";
      cuda_impl::MatmulRun run;
      if constexpr (cuda::kBuilt) run = cuda_impl::matmul(impl, o.precision, n, a, b, c, o.runs);
      else cuda::not_built("matmul on the GPU");
      r.median_us = run.kernel_us;
      r.scope = "kernel";
      r.note = "end to end " + format_us(run.end_to_end_us) + " (pinned copies of A, B and C included)";
      if ((impl == MatmulImpl::tensor || impl == MatmulImpl::cublas_tf32) && o.precision == Precision::f32) r.note += "; TF32 inputs";
    }
    r.value = flops / (r.median_us * 1e3);
    if (impl == MatmulImpl::cublas) cublas_gflops = r.value;
    if (impl == MatmulImpl::cublas_tf32) cublas_tf32_gflops = r.value;
    // The TF32 kernel against cuBLAS in TF32, the others against cuBLAS at the matrices' precision.
    const bool tf32 = impl == MatmulImpl::tensor && o.precision == Precision::f32 && cublas_tf32_gflops > 0;
    const double peer = tf32 ? cublas_tf32_gflops : cublas_gflops;
    if (impl != MatmulImpl::cpu && impl != MatmulImpl::cublas && impl != MatmulImpl::cublas_tf32 && peer > 0) {
      std::ostringstream f;
      f.precision(3);
      f << r.value / peer;
      r.note = f.str() + (tf32 ? " of cuBLAS TF32; " : " of cuBLAS; ") + r.note;
    }
    const Check k = check(a, b, c, n, gamma_for(impl, o.precision, n), o.checked_entries, o.seed);
    r.correct = k.failed == 0;
    std::ostringstream s;
    s.precision(2);
    s << (r.correct ? "ok" : "WRONG") << " (" << k.checked << " entries, worst " << k.worst << " of bound"
      << (k.failed ? ", " + std::to_string(k.failed) + " over it" : std::string()) << ")";
    r.check = s.str();
    t.rows.push_back(r);
  }
  t.notes.push_back(any_gpu ? "GFLOP/s = 2 n^3 / median kernel time (matrices already on the device; the CPU row: in host memory); random entries in [-1, 1]."
                            : "GFLOP/s = 2 n^3 / median time of the CPU product (OpenBLAS, matrices in host memory); random entries in [-1, 1].");
  t.notes.push_back("Check: sampled entries against a long-double reference of the same (rounded) inputs; bound = gamma * sum|a||b|, gamma = 2 n u (u = 2^-24 for f32/bf16 accumulation, 2^-53 for f64), plus 2^-10 for TF32 inputs.");
  return t;
}

}  // namespace gpuvis::lab

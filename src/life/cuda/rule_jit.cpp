// Life rules compiled at run time (rule_jit.hpp): NVRTC turns the tile kernel and one rule's
// outcomes into a cubin for the current device, the CUDA runtime loads it as a library.
#include "life/cuda/rule_jit.hpp"
#include "life/backends.hpp"

#include <cuda_runtime_api.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "core/lazy_library.hpp"
#include "cuda/sources.hpp"
#include "gpuvis/core/error.hpp"
#include "life/step_rules.hpp"

namespace gpuvis::life::cuda_impl {
namespace {

// NVRTC's C API (nvrtc.h), the few calls used, loaded on first use (core/lazy_library.hpp):
// libnvrtc is large and only Life rules other than Conway's need it. nvrtcResult is an enum (0:
// success), nvrtcProgram a pointer.
struct Nvrtc {
  int (*create)(void** prog, const char* src, const char* name, int headers, const char* const* sources, const char* const* names) = nullptr;
  int (*compile)(void* prog, int options, const char* const* option) = nullptr;
  int (*cubin_size)(void* prog, std::size_t* size) = nullptr;
  int (*cubin)(void* prog, char* out) = nullptr;
  int (*log_size)(void* prog, std::size_t* size) = nullptr;
  int (*log)(void* prog, char* out) = nullptr;
  int (*destroy)(void** prog) = nullptr;
  std::string why;  // empty when loaded
};

const Nvrtc& nvrtc() {
  static const Nvrtc api = [] {
    static const LazyLibrary lib({"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"}, "NVRTC (libnvrtc.so, part of the CUDA toolkit)");
    Nvrtc n;
    try {
      n.create = lib.get<decltype(n.create)>("nvrtcCreateProgram");
      n.compile = lib.get<decltype(n.compile)>("nvrtcCompileProgram");
      n.cubin_size = lib.get<decltype(n.cubin_size)>("nvrtcGetCUBINSize");
      n.cubin = lib.get<decltype(n.cubin)>("nvrtcGetCUBIN");
      n.log_size = lib.get<decltype(n.log_size)>("nvrtcGetProgramLogSize");
      n.log = lib.get<decltype(n.log)>("nvrtcGetProgramLog");
      n.destroy = lib.get<decltype(n.destroy)>("nvrtcDestroyProgram");
    } catch (const Error& e) {
      n.why = e.what();
    }
    return n;
  }();
  return api;
}

// The program: word_rule.h's 32-bit functions, the tile kernel, and the rule's outcomes as constants.
std::string source(unsigned birth, unsigned survival, const TileShape& t) {
  const auto masks = rules::rule_masks<std::uint32_t>(birth, survival);
  auto list = [](const std::uint32_t* v) {
    std::string s;
    for (int i = 0; i < 10; ++i) s += std::string(i ? ", " : "") + (v[i] ? "0xffffffffu" : "0u");
    return s;
  };
  return std::string(
             "#define GPUVIS_RULE static __device__ __forceinline__\n#define GPUVIS_LIFE_I64 long long\n"
             "#define GPUVIS_LIFE_W unsigned int\n#define GPUVIS_LIFE_BITS 32\n#define GPUVIS_LIFE_FN(name) gpuvis_life_##name##_u32\n"
             "typedef unsigned int W;\n") +
         cuda::sources::life_tile +
         "\nstruct ConstWord {\n"
         "  __device__ __forceinline__ W next(W alive, W s0, W s1, W s2, W s3) const {\n"
         "    const gpuvis_life_masks_u32 m = {{" + list(masks.born) + "}, {" + list(masks.differ) + "}};\n"
         "    return gpuvis_life_next_rule_u32(alive, s0, s1, s2, s3, &m);\n  }\n};\n"
         "extern \"C\" __global__ void __launch_bounds__(" + std::to_string(32 * t.warps_per_block) + ", 3)\n"
         "gpuvis_life_rule(const W* __restrict__ src, W* __restrict__ dst, BoardShape s, int gens, bool torus, unsigned long long* population) {\n"
         "  generations<" + std::to_string(t.rows) + ", " + std::to_string(t.halo) + ", " + std::to_string(t.words_per_lane) +
         ">(src, dst, s, gens, ConstWord{}, torus, population);\n}\n";
}

const void* compile(unsigned birth, unsigned survival, const TileShape& t, std::string& why) {
  const Nvrtc& n = nvrtc();
  int device = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess)
    return why = "no CUDA device", nullptr;
  const std::string code = source(birth, survival, t);
  void* prog = nullptr;
  if (n.create(&prog, code.c_str(), "life_rule.cu", 0, nullptr, nullptr) != 0) return why = "nvrtcCreateProgram failed", nullptr;
  const std::string arch = "--gpu-architecture=sm_" + std::to_string(prop.major) + std::to_string(prop.minor);
  const char* options[] = {arch.c_str(), "-std=c++17"};
  std::vector<char> cubin;
  if (n.compile(prog, 2, options) != 0) {
    std::size_t size = 0;
    n.log_size(prog, &size);
    std::string log(size, '\0');
    if (size) n.log(prog, log.data());
    why = "NVRTC could not compile the rule's kernel: " + log.substr(0, 400);
  } else {
    std::size_t size = 0;
    n.cubin_size(prog, &size);
    cubin.resize(size);
    n.cubin(prog, cubin.data());
  }
  n.destroy(&prog);
  if (cubin.empty()) return nullptr;
  cudaLibrary_t library = nullptr;
  cudaKernel_t kernel = nullptr;
  if (cudaLibraryLoadData(&library, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0) != cudaSuccess ||
      cudaLibraryGetKernel(&kernel, library, "gpuvis_life_rule") != cudaSuccess) {
    cudaGetLastError();
    return why = "the CUDA runtime could not load the rule's kernel", nullptr;
  }
  return reinterpret_cast<const void*>(kernel);  // the library stays loaded for the process
}

}  // namespace

bool rule_compiler_available(std::string* why) {
  if (const char* e = std::getenv("GPUVIS_LIFE_JIT"); e && std::string(e) == "0") {
    if (why) *why = "GPUVIS_LIFE_JIT=0";
    return false;
  }
  const Nvrtc& n = nvrtc();
  if (why) *why = n.why;
  return n.why.empty();
}

const void* compiled_rule_kernel(unsigned birth, unsigned survival, const TileShape& tile, std::string* why) {
  if (!rule_compiler_available(why)) return nullptr;
  static std::mutex mutex;
  static std::map<std::tuple<unsigned, unsigned, int>, std::pair<const void*, std::string>> kernels;
  int device = 0;
  cudaGetDevice(&device);
  std::lock_guard lock(mutex);
  auto [it, added] = kernels.try_emplace({birth, survival, device});
  if (added) it->second.first = compile(birth, survival, tile, it->second.second);
  if (why) *why = it->second.second;
  return it->second.first;
}

}  // namespace gpuvis::life::cuda_impl

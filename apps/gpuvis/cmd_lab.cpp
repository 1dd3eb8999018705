// gpuvis lab: the GPU fundamentals, measured correctly - matrix products, reductions, memory
// spaces, atomics and streams. Each prints a table (and --json writes one JSON line per row).
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli_common.hpp"
#include "gpuvis/core/parallel.hpp"
#include "gpuvis/cuda/runtime.hpp"
#include "gpuvis/lab/lab.hpp"

namespace gpuvis::cli {
namespace {

std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    o += c;
  }
  return o;
}

void print(const lab::Table& t, const std::string& json_path) {
  std::printf("%s\n", t.title.c_str());
  std::printf("  %-30s %-5s %12s %14s  %s\n", "variant", "on", "median", "value", "check / note");
  for (const auto& r : t.rows) {
    char value[64];
    std::snprintf(value, sizeof value, "%.4g %s", r.value, r.unit.c_str());
    std::string time = r.median_us >= 1e3 ? std::to_string(r.median_us / 1e3).substr(0, 7) + " ms" : std::to_string(r.median_us).substr(0, 7) + " us";
    std::printf("  %-30s %-5s %12s %14s  %s\n", r.name.c_str(), r.backend.c_str(), time.c_str(), value, r.check.c_str());
    if (!r.note.empty() || !r.scope.empty())
      std::printf("  %-30s %-5s %12s %14s  %s%s%s\n", "", "", "", "", r.scope.c_str(), r.note.empty() ? "" : "; ", r.note.c_str());
  }
  for (const auto& n : t.notes) std::printf("  %s\n", n.c_str());
  if (json_path.empty()) return;
  std::ofstream out(json_path, std::ios::app);
  if (!out) fail(ErrorCode::io, "cannot write '" + json_path + "'");
  const auto devices = cuda::devices();
  const std::string gpu = devices.empty() ? "" : devices.front().name;
  for (const auto& r : t.rows)
    out << "{\"lesson\":\"" << json_escape(t.title) << "\",\"name\":\"" << json_escape(r.name) << "\",\"backend\":\"" << r.backend
        << "\",\"median_us\":" << r.median_us << ",\"value\":" << r.value << ",\"unit\":\"" << json_escape(r.unit) << "\",\"scope\":\""
        << json_escape(r.scope) << "\",\"check\":\"" << json_escape(r.check) << "\",\"correct\":" << (r.correct ? "true" : "false")
        << ",\"note\":\"" << json_escape(r.note) << "\",\"threads\":" << num_threads() << ",\"gpu\":\"" << json_escape(gpu) << "\"}\n";
}

// A failed check (other than the races shown on purpose) makes the command fail.
int verdict(const lab::Table& t) {
  for (const auto& r : t.rows)
    if (!r.correct && !r.demonstration) {
      std::cerr << "gpuvis: error: " << r.name << " gave a wrong result: " << r.check << "\n";
      return 1;
    }
  return 0;
}

}  // namespace

void register_lab(CLI::App& app, Command& run) {
  auto* lab_cmd = app.add_subcommand("lab", "The GPU fundamentals, measured correctly: matmul, dot, memory, atomics, streams");
  lab_cmd->require_subcommand(1);
  lab_cmd->footer("Every time is a median after warm-up runs; each row says what its time covers. See docs/lab.md.");
  static std::string json;
  static int threads = 0;

  auto* mm = lab_cmd->add_subcommand("matmul", "Square matrix products: naive kernels, shared-memory tiles, register blocking, tensor cores, cuBLAS, OpenBLAS");
  static lab::MatmulParams mo;
  static std::string type = "f32", impl = "all";
  mm->add_option("--size", mo.n, "Matrix side n (1..16384)")->check(CLI::Range(1, 16384))->default_val(1024);
  mm->add_option("--type", type, "f32, f64 or bf16 (bf16 inputs, f32 accumulation and output)")->check(CLI::IsMember({"f32", "f64", "bf16"}))->default_val("f32");
  mm->add_option("--impl", impl, "naive-blocks, naive, tiled, regblock, tensor, cublas, cublas-tf32 (f32), cpu, or all (comma-separated)")->default_val("all");
  mm->add_option("--runs", mo.runs, "Timed runs after warm-up")->check(CLI::Range(1, 1000))->default_val(10);
  mm->add_option("--json", json, "Append one JSON line per row to this file");
  add_threads_option(*mm, threads);
  mm->callback([&run] {
    run = [] {
      if (threads) set_num_threads(threads);
      mo.precision = lab::parse_precision(type);
      mo.impls.clear();
      if (impl != "all") {
        std::stringstream ss(impl);
        for (std::string item; std::getline(ss, item, ',');) mo.impls.push_back(lab::parse_matmul_impl(item));
      }
      if (impl == "all" && cuda::device_count() == 0) notice("the CPU product only: " + cuda::unavailable_reason());
      const auto t = lab::matmul(mo);
      print(t, json);
      return verdict(t);
    };
  });

  // Each lesson keeps its own options (the defaults differ).
  struct LessonArgs {
    lab::LessonParams options;
    std::string backend = "auto";
  };
  static LessonArgs lesson_args[4];
  static int next_lesson = 0;
  auto lesson = [&](const char* name, const char* help, lab::Table (*fn)(const lab::LessonParams&), std::int64_t default_size,
                    const char* size_help) {
    LessonArgs& a = lesson_args[next_lesson++];
    auto* c = lab_cmd->add_subcommand(name, help);
    if (size_help) c->add_option("--size", a.options.size, size_help)->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 30))->default_val(default_size);
    c->add_option("--runs", a.options.runs, "Timed runs after warm-up")->check(CLI::Range(1, 10000))->default_val(20);
    c->add_option("--json", json, "Append one JSON line per row to this file");
    add_backend_option(*c, a.backend);
    add_threads_option(*c, threads);
    c->callback([&run, fn, &a] {
      run = [fn, &a] {
        if (threads) set_num_threads(threads);
        a.options.backend = parse_backend(a.backend);
        const auto t = fn(a.options);
        print(t, json);
        return verdict(t);
      };
    });
  };
  lesson("dot", "Dot product: CPU (serial, threads, the racy shared sum), shared-memory tree + atomics, warp shuffles, thrust", lab::dot,
         std::int64_t{1} << 24, "Vector length");
  lesson("memory", "Registers vs shared vs global vs constant memory (CUDA only)", lab::memory, 0, nullptr);
  lesson("atomics", "Counting with a race, with atomics, warp-aggregated and per-block: the wrong result shown", lab::atomics,
         std::int64_t{1} << 24, "Increments");
  lesson("streams", "Copies and work on one stream vs four streams in chunks (CUDA only)", lab::streams, std::int64_t{1} << 26,
         "Elements (4 bytes each) moved each way");
}

}  // namespace gpuvis::cli

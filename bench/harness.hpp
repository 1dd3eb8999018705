#pragma once
// A small benchmark harness: warm-up runs are discarded, then a case is repeated until it has run
// at least `min_runs` times and `min_seconds` long; the median and spread are reported. A case
// measures itself and returns the microseconds of one run, so GPU cases can time with CUDA events
// and host cases with the steady clock. Results go to stdout as a table and to a JSON-lines file.
#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace gpuvis::bench {

struct Options {
  int warmup = 3;
  int min_runs = 20;
  int max_runs = 2000;
  double min_seconds = 0.3;
};

struct Stats {
  double median_us = 0, p10_us = 0, p90_us = 0, min_us = 0;
  int runs = 0;
};

Stats measure(const std::function<double()>& run_once, const Options& options = {});
// Median, p10, p90 and minimum of samples a case collected itself (e.g. per-stage times).
Stats summarize(std::vector<double> samples_us);

// Wall-clock microseconds of f().
template <class F>
double time_us(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
}

struct Record {
  std::string suite;    // e.g. "threshold"
  std::string name;     // e.g. "bernsen"
  std::string backend;  // "cpu", "cpu-1thread", "cuda", "cupy", ...
  std::string scope;    // what the time covers: "kernel", "end-to-end (upload+kernel+download)", "host"
  int width = 0, height = 0;
  std::map<std::string, std::string> params;
  Stats stats;
  double megapixels_per_s() const { return stats.median_us > 0 ? width * double(height) / stats.median_us : 0; }
};

// Collects records, prints each as it arrives and writes JSON lines at the end.
class Report {
 public:
  explicit Report(std::string out_path);
  ~Report();
  void add(Record r);
  // Hardware description used in every record ("cpu": model and cores, "gpu": device name).
  static std::string cpu_description();
  void set_gpu_description(std::string d) { gpu_ = std::move(d); }

 private:
  std::string out_path_, gpu_;
  std::vector<Record> records_;
};

// Parses --out FILE, --quick, --filter SUBSTRING, --size WxH and --save-frames DIR from argv.
struct Args {
  std::string out = "bench.jsonl";
  std::string filter;
  bool quick = false;
  int width = 0, height = 0;  // --size WxH: only this frame size
  std::string save_frames;    // --save-frames DIR: write the benchmark's input frames there (for peers)
  // --threads N sets the CPU thread pool's size (gpuvis::set_num_threads) before anything runs.
  static Args parse(int argc, char** argv);
  bool wants(const std::string& name) const { return filter.empty() || name.find(filter) != std::string::npos; }
};

}  // namespace gpuvis::bench

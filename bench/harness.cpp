#include "harness.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <thread>

#include "gpuvis/core/parallel.hpp"

namespace gpuvis::bench {

Stats measure(const std::function<double()>& run_once, const Options& o) {
  for (int i = 0; i < o.warmup; ++i) run_once();
  std::vector<double> t;
  double total = 0;
  while ((static_cast<int>(t.size()) < o.min_runs || total < o.min_seconds * 1e6) && static_cast<int>(t.size()) < o.max_runs) {
    t.push_back(run_once());
    total += t.back();
  }
  return summarize(std::move(t));
}

Stats summarize(std::vector<double> t) {
  if (t.empty()) return {};
  std::sort(t.begin(), t.end());
  auto pct = [&](double q) { return t[static_cast<std::size_t>(q * static_cast<double>(t.size() - 1) + 0.5)]; };
  return {pct(0.5), pct(0.1), pct(0.9), t.front(), static_cast<int>(t.size())};
}

std::string Report::cpu_description() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, model = "unknown CPU";
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      model = line.substr(line.find(':') + 2);
      break;
    }
  // The threads the CPU cases ran on (--threads), and the machine's where that is fewer.
  const unsigned hardware = std::thread::hardware_concurrency(), used = static_cast<unsigned>(num_threads());
  return model + ", " + std::to_string(used) + (used == 1 ? " thread" : " threads") + (used < hardware ? " of " + std::to_string(hardware) : "");
}

Report::Report(std::string out_path) : out_path_(std::move(out_path)) {
  std::printf("%-10s %-14s %-12s %-34s %11s %10s %10s %9s %6s\n", "suite", "case", "backend", "params", "size", "median_us",
              "p90_us", "MPix/s", "runs");
}

namespace {
std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    o += c;
  }
  return o;
}
}  // namespace

void Report::add(Record r) {
  std::string params;
  for (const auto& [k, v] : r.params) params += (params.empty() ? "" : " ") + k + "=" + v;
  std::printf("%-10s %-14s %-12s %-34s %5dx%-5d %10.2f %10.2f %9.1f %6d\n", r.suite.c_str(), r.name.c_str(),
              r.backend.c_str(), params.c_str(), r.width, r.height, r.stats.median_us, r.stats.p90_us,
              r.megapixels_per_s(), r.stats.runs);
  std::fflush(stdout);
  records_.push_back(std::move(r));
}

Report::~Report() {
  std::ofstream out(out_path_);
  const std::string cpu = cpu_description();
  for (const auto& r : records_) {
    out << "{\"suite\":\"" << json_escape(r.suite) << "\",\"name\":\"" << json_escape(r.name) << "\",\"backend\":\""
        << json_escape(r.backend) << "\",\"scope\":\"" << json_escape(r.scope) << "\",\"width\":" << r.width
        << ",\"height\":" << r.height << ",\"params\":{";
    bool first = true;
    for (const auto& [k, v] : r.params) {
      out << (first ? "" : ",") << "\"" << json_escape(k) << "\":\"" << json_escape(v) << "\"";
      first = false;
    }
    out << "},\"median_us\":" << r.stats.median_us << ",\"p10_us\":" << r.stats.p10_us << ",\"p90_us\":" << r.stats.p90_us
        << ",\"min_us\":" << r.stats.min_us << ",\"runs\":" << r.stats.runs << ",\"cpu\":\"" << json_escape(cpu)
        << "\",\"gpu\":\"" << json_escape(gpu_) << "\"}\n";
  }
  std::cerr << "wrote " << records_.size() << " results to " << out_path_ << "\n";
}

Args Args::parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    if (s == "--out" && i + 1 < argc) a.out = argv[++i];
    else if (s == "--filter" && i + 1 < argc) a.filter = argv[++i];
    else if (s == "--save-frames" && i + 1 < argc) a.save_frames = argv[++i];
    else if (s == "--quick") a.quick = true;
    else if (s == "--threads" && i + 1 < argc && std::atoi(argv[i + 1]) > 0) set_num_threads(std::atoi(argv[++i]));
    else if (s == "--size" && i + 1 < argc && std::sscanf(argv[i + 1], "%dx%d", &a.width, &a.height) == 2) ++i;
    else {
      std::cerr << "usage: " << argv[0] << " [--out FILE.jsonl] [--filter SUBSTRING] [--size WxH] [--quick] [--threads N] [--save-frames DIR]\n";
      std::exit(s == "--help" || s == "-h" ? 0 : 2);
    }
  }
  return a;
}

}  // namespace gpuvis::bench

#pragma once
// Helpers the lab's lessons share: medians, timing, number formatting.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace gpuvis::lab {

inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <class F>
double time_us(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
}

inline std::string format_us(double us) {
  char buf[64];
  if (us >= 1e6) std::snprintf(buf, sizeof buf, "%.3g s", us * 1e-6);
  else if (us >= 1e3) std::snprintf(buf, sizeof buf, "%.3g ms", us * 1e-3);
  else std::snprintf(buf, sizeof buf, "%.3g us", us);
  return buf;
}


}  // namespace gpuvis::lab

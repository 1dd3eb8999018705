#pragma once
// Helpers the lab's lessons share: medians, timing, number formatting.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <sstream>
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


// "ok (relative error 1.2e-12)" or "WRONG (...)"; `ok` tells which.
inline std::string relative_error_text(double got, double reference, double tolerance, bool& ok) {
  const double rel = std::fabs(got - reference) / std::fabs(reference);
  ok = rel <= tolerance;
  std::ostringstream s;
  s.precision(3);
  s << (ok ? "ok" : "WRONG") << " (relative error " << rel << ")";
  return s.str();
}

}  // namespace gpuvis::lab

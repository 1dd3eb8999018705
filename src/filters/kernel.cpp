#include "gpuvis/filters/kernel.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gpuvis/core/error.hpp"
#include "gpuvis/io/read_limited.hpp"

namespace gpuvis::filters {
namespace {

[[noreturn]] void bad(const std::string& spec, const std::string& why) {
  fail(ErrorCode::invalid_argument, "kernel '" + spec + "': " + why);
}

Kernel from_rows(const std::vector<std::vector<float>>& rows, const std::string& spec) {
  if (rows.empty() || rows[0].empty()) bad(spec, "empty kernel");
  Kernel k;
  k.height = static_cast<int>(rows.size());
  k.width = static_cast<int>(rows[0].size());
  for (const auto& r : rows)
    if (static_cast<int>(r.size()) != k.width) bad(spec, "rows have different lengths");
  if (k.width % 2 == 0 || k.height % 2 == 0)
    bad(spec, "kernel is " + std::to_string(k.width) + "x" + std::to_string(k.height) + "; both sides must be odd");
  for (const auto& r : rows) k.weights.insert(k.weights.end(), r.begin(), r.end());
  return k;
}

Kernel parse_numbers(std::string text, const std::string& spec) {
  float divisor = 1;
  if (const auto slash = text.rfind('/'); slash != std::string::npos) {
    try {
      std::size_t used = 0;
      divisor = std::stof(text.substr(slash + 1), &used);
    } catch (const std::exception&) {
      bad(spec, "the divisor after '/' is not a number");
    }
    if (divisor == 0 || !std::isfinite(divisor)) bad(spec, "the divisor must be a non-zero number");
    text = text.substr(0, slash);
  }
  std::vector<std::vector<float>> rows;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::stringstream row_parts(line);
    std::string row;
    while (std::getline(row_parts, row, ';')) {
      std::replace(row.begin(), row.end(), ',', ' ');
      std::istringstream values(row);
      std::vector<float> r;
      std::string tok;
      while (values >> tok) {
        try {
          std::size_t used = 0;
          const float v = std::stof(tok, &used);
          if (used != tok.size()) throw std::invalid_argument(tok);
          if (!std::isfinite(v)) bad(spec, "'" + tok + "' is not a finite number");
          r.push_back(v / divisor);
        } catch (const Error&) {
          throw;
        } catch (const std::exception&) {
          bad(spec, "'" + tok + "' is not a number");
        }
      }
      if (!r.empty()) rows.push_back(std::move(r));
    }
  }
  return from_rows(rows, spec);
}

double named_param(const std::string& args, const std::string& key, double fallback, const std::string& spec) {
  std::stringstream parts(args);
  std::string part;
  while (std::getline(parts, part, ',')) {
    const auto eq = part.find('=');
    if (eq == std::string::npos) bad(spec, "expected key=value, got '" + part + "'");
    if (part.substr(0, eq) != key) continue;
    try {
      return std::stod(part.substr(eq + 1));
    } catch (const std::exception&) {
      bad(spec, "'" + part + "' is not a number");
    }
  }
  return fallback;
}

}  // namespace

Kernel gaussian_kernel(double sigma, int size) {
  require(sigma > 0 && std::isfinite(sigma), "gaussian kernel: sigma must be a positive number");
  if (size == 0) size = static_cast<int>(2 * std::ceil(3 * sigma) + 1);
  require(size >= 1 && size % 2 == 1 && size <= kMaxKernel1D,
          "gaussian kernel: size must be odd and at most " + std::to_string(kMaxKernel1D) + ", got " + std::to_string(size));
  std::vector<double> g(static_cast<std::size_t>(size));
  double sum = 0;
  for (int i = 0; i < size; ++i) sum += g[i] = std::exp(-0.5 * std::pow((i - size / 2) / sigma, 2));
  Kernel k{size, size, {}};
  for (int y = 0; y < size; ++y)
    for (int x = 0; x < size; ++x) k.weights.push_back(static_cast<float>(g[y] * g[x] / (sum * sum)));
  return k;
}

Kernel parse_kernel(const std::string& spec) {
  if (spec.empty()) bad(spec, "empty kernel");
  std::error_code ec;
  if (spec[0] == '@' || std::filesystem::is_regular_file(spec, ec)) {
    const std::string path = spec[0] == '@' ? spec.substr(1) : spec;
    // A kernel of at most 31x31 or 1x127 numbers fits in far less than a mebibyte of text.
    return parse_numbers(read_limited(path, std::size_t{1} << 20, "kernel file"), spec);
  }
  const auto colon = spec.find(':');
  const std::string name = spec.substr(0, colon), args = colon == std::string::npos ? "" : spec.substr(colon + 1);
  if (name == "gaussian") {
    const double sigma = named_param(args, "sigma", -1, spec);
    if (!(sigma > 0)) bad(spec, "gaussian needs sigma > 0 (gaussian:sigma=1.5)");
    // Checked as a number before it becomes an int: a huge sigma or size is an error, not overflow.
    const double wanted = named_param(args, "size", 2 * std::ceil(3 * sigma) + 1, spec);
    if (!(wanted >= 1) || wanted != std::floor(wanted) || std::fmod(wanted, 2) == 0) bad(spec, "gaussian size must be odd and positive");
    if (wanted > kMaxKernel1D) bad(spec, "gaussian size " + std::to_string(static_cast<long long>(std::min(wanted, 1e18))) + " exceeds " + std::to_string(kMaxKernel1D));
    return gaussian_kernel(sigma, static_cast<int>(wanted));
  }
  if (name == "box") {
    int w = 0, h = 0;
    if (std::sscanf(args.c_str(), "%dx%d", &w, &h) != 2) {
      h = w = std::atoi(args.c_str());
    }
    if (w < 1 || h < 1 || w % 2 == 0 || h % 2 == 0) bad(spec, "box needs odd positive sizes (box:5 or box:5x3)");
    if (w > kMaxKernel1D || h > kMaxKernel1D) bad(spec, "box size exceeds " + std::to_string(kMaxKernel1D));
    return {w, h, std::vector<float>(static_cast<std::size_t>(w) * h, 1.0f / static_cast<float>(w * h))};
  }
  if (name == "sobel-x") return parse_numbers("-1,0,1;-2,0,2;-1,0,1", spec);
  if (name == "sobel-y") return parse_numbers("-1,-2,-1;0,0,0;1,2,1", spec);
  if (name == "laplacian") return parse_numbers("0,1,0;1,-4,1;0,1,0", spec);
  if (name == "sharpen") return parse_numbers("0,-1,0;-1,5,-1;0,-1,0", spec);
  if (std::isalpha(static_cast<unsigned char>(spec[0])))
    bad(spec, "unknown kernel name (gaussian:sigma=S, box:N, sobel-x, sobel-y, laplacian, sharpen, numbers or @FILE)");
  return parse_numbers(spec, spec);
}

Kernel flipped(const Kernel& k) {
  Kernel f = k;
  std::reverse(f.weights.begin(), f.weights.end());
  return f;
}

SeparableKernel separate(const Kernel& k, float tolerance) {
  SeparableKernel s;
  // Pivot on the largest weight; a rank-1 kernel is column(pivot col) x row(pivot row)/pivot.
  const auto it = std::max_element(k.weights.begin(), k.weights.end(), [](float a, float b) { return std::abs(a) < std::abs(b); });
  const float pivot = *it;
  if (pivot == 0) return s;
  const int pi = static_cast<int>(it - k.weights.begin());
  const int px = pi % k.width, py = pi / k.width;
  s.row.resize(static_cast<std::size_t>(k.width));
  s.column.resize(static_cast<std::size_t>(k.height));
  for (int x = 0; x < k.width; ++x) s.row[x] = k.at(x, py) / pivot;
  for (int y = 0; y < k.height; ++y) s.column[y] = k.at(px, y);
  for (int y = 0; y < k.height; ++y)
    for (int x = 0; x < k.width; ++x)
      if (std::abs(s.column[y] * s.row[x] - k.at(x, y)) > tolerance * std::abs(pivot)) return SeparableKernel{};
  s.separable = true;
  return s;
}

}  // namespace gpuvis::filters

#include "compare_detections.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <type_traits>

namespace gpuvis::test {
namespace {

constexpr double kCentreTolerance = 1e-3, kAngleTolerance = 1e-4;

double angle_delta(double a, double b) {
  const double d = std::fmod(std::abs(a - b), 2 * std::numbers::pi);
  return std::min(d, 2 * std::numbers::pi - d);
}

}  // namespace

DetectionDeltas& detection_deltas() {
  static DetectionDeltas d;
  return d;
}

::testing::AssertionResult same_fiducials(const std::vector<decode::Fiducial>& a, const std::vector<decode::Fiducial>& b) {
  if (a.size() != b.size())
    return ::testing::AssertionFailure() << "fiducial count " << a.size() << " (CPU) vs " << b.size() << " (GPU)";
  auto& deltas = detection_deltas();
  for (std::size_t k = 0; k < a.size(); ++k) {
    const auto &f = a[k], &g = b[k];
    const std::string at = "fiducial " + std::to_string(k) + " (ID " + std::to_string(f.id) + ", root " +
                           std::to_string(f.root) + "): ";
    if (f.id != g.id || f.root != g.root)
      return ::testing::AssertionFailure() << at << "GPU has ID " << g.id << " root " << g.root;
    if (f.root_size != g.root_size || f.leaves != g.leaves || f.gated_leaves != g.gated_leaves ||
        f.root_colour != g.root_colour || f.root_x != g.root_x || f.root_y != g.root_y)
      return ::testing::AssertionFailure() << at << "root or leaf statistics differ";
    const double dc = std::max(std::abs(f.x - g.x), std::abs(f.y - g.y)), da = angle_delta(f.angle, g.angle);
    deltas.centre_px = std::max(deltas.centre_px, dc);
    deltas.angle_rad = std::max(deltas.angle_rad, da);
    ++deltas.fiducials;
    if (dc > kCentreTolerance || da > kAngleTolerance)
      return ::testing::AssertionFailure() << at << "centre differs by " << dc << " px, angle by " << da << " rad";
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult same_roots(const std::vector<decode::RootCandidate>& a,
                                      const std::vector<decode::RootCandidate>& b) {
  if (a.size() != b.size())
    return ::testing::AssertionFailure() << "root candidate count " << a.size() << " (CPU) vs " << b.size() << " (GPU)";
  for (std::size_t k = 0; k < a.size(); ++k)
    if (a[k].region != b[k].region || a[k].x != b[k].x || a[k].y != b[k].y || a[k].size != b[k].size ||
        a[k].colour != b[k].colour)
      return ::testing::AssertionFailure() << "root candidate " << k << ": region " << a[k].region << " vs "
                                           << b[k].region;
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult same_stats(const decode::DecodeStats& a, const decode::DecodeStats& b) {
  if (a.candidates != b.candidates || a.valid != b.valid || a.fuzzy != b.fuzzy || a.invalid != b.invalid)
    return ::testing::AssertionFailure() << "candidates/valid/fuzzy/invalid " << a.candidates << "/" << a.valid << "/"
                                         << a.fuzzy << "/" << a.invalid << " (CPU) vs " << b.candidates << "/" << b.valid
                                         << "/" << b.fuzzy << "/" << b.invalid << " (GPU)";
  return ::testing::AssertionSuccess();
}

namespace {

// One blob of each backend: the same region and area, centre and sides within 1e-3 px, the long
// side's direction (an axis, modulo pi) within 1e-4 rad.
::testing::AssertionResult same_blob(const std::string& what, const decode::Blob& a, const decode::Blob& b) {
  if (a.region != b.region || a.area != b.area)
    return ::testing::AssertionFailure() << what << ": region " << a.region << " area " << a.area << " (CPU) vs region "
                                         << b.region << " area " << b.area << " (GPU)";
  if (!a.ok()) return ::testing::AssertionSuccess();
  const double dc = std::max({std::abs(a.x - b.x), std::abs(a.y - b.y), std::abs(a.width - b.width),
                              std::abs(a.height - b.height)});
  const double d = std::fmod(std::abs(a.angle - b.angle), std::numbers::pi);
  const double da = std::min(d, std::numbers::pi - d);
  auto& deltas = detection_deltas();
  deltas.blob_px = std::max(deltas.blob_px, dc);
  deltas.blob_angle_rad = std::max(deltas.blob_angle_rad, da);
  ++deltas.blobs;
  if (dc > kCentreTolerance || da > kAngleTolerance)
    return ::testing::AssertionFailure() << what << " (region " << a.region << "): box differs by " << dc
                                         << " px, angle by " << da << " rad";
  return ::testing::AssertionSuccess();
}

decode::Blob as_blob(const decode::Finger& f) { return {f.x, f.y, f.width, f.height, f.angle, f.area, f.region}; }

template <class T>
::testing::AssertionResult same_blobs(const std::string& what, const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size())
    return ::testing::AssertionFailure() << what << " count " << a.size() << " (CPU) vs " << b.size() << " (GPU)";
  for (std::size_t k = 0; k < a.size(); ++k) {
    ::testing::AssertionResult r = ::testing::AssertionSuccess();
    if constexpr (std::is_same_v<T, decode::Finger>) r = same_blob(what + " " + std::to_string(k), as_blob(a[k]), as_blob(b[k]));
    else r = same_blob(what + " " + std::to_string(k), a[k], b[k]);
    if (!r) return r;
  }
  return ::testing::AssertionSuccess();
}

}  // namespace

::testing::AssertionResult same_detections(const pipeline::Detections& a, const pipeline::Detections& b) {
  if (a.regions != b.regions)
    return ::testing::AssertionFailure() << "regions " << a.regions << " (CPU) vs " << b.regions << " (GPU)";
  if (auto r = same_stats(a.decode_stats, b.decode_stats); !r) return r;
  if (auto r = same_fiducials(a.fiducials, b.fiducials); !r) return r;
  if (auto r = same_roots(a.roots, b.roots); !r) return r;
  if (auto r = same_blobs("finger", a.fingers, b.fingers); !r) return r;
  if (auto r = same_blobs("blob", a.blobs, b.blobs); !r) return r;
  if (auto r = same_blobs("fiducial blob", a.fiducial_blobs, b.fiducial_blobs); !r) return r;
  return same_blobs("root candidate blob", a.root_blobs, b.root_blobs);
}

}  // namespace gpuvis::test

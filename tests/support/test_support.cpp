#include "test_support.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <numbers>
#include <random>
#include <sys/wait.h>

#include "gpuvis/cuda/runtime.hpp"
#include "gpuvis/io/image_file.hpp"
#include "gpuvis/synth/scene.hpp"

namespace gpuvis::test {

Image<std::uint8_t> random_image(int width, int height, std::uint32_t seed, int channels) {
  Image<std::uint8_t> img(width, height, channels);
  std::mt19937 rng(seed);
  for (int y = 0; y < height; ++y)
    for (int i = 0; i < width * channels; ++i) img.row(y)[i] = static_cast<std::uint8_t>(rng() >> 24);
  return img;
}

Image<std::uint8_t> textured_image(int width, int height, std::uint32_t seed) {
  Image<std::uint8_t> img(width, height);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::normal_distribution<double> noise(0.0, 6.0);
  struct Blob { double x, y, r, v; };
  std::vector<Blob> blobs(12 + rng() % 20);
  for (auto& b : blobs) b = {u(rng) * width, u(rng) * height, 2 + u(rng) * 0.1 * std::max(width, height), u(rng) > 0.5 ? 90.0 : -90.0};
  const double gx = u(rng) * 80 / std::max(1, width), gy = u(rng) * 80 / std::max(1, height);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      double v = 90 + gx * x + gy * y + noise(rng);
      for (const auto& b : blobs)
        if ((x - b.x) * (x - b.x) + (y - b.y) * (y - b.y) < b.r * b.r) v += b.v;
      img(x, y) = static_cast<std::uint8_t>(std::clamp(v, 0.0, 255.0));
    }
  return img;
}

Image<std::uint8_t> textured_colour(int width, int height, int channels, std::uint32_t seed) {
  Image<std::uint8_t> out(width, height, channels);
  for (int c = 0; c < channels; ++c) {
    const auto plane = textured_image(width, height, seed + static_cast<std::uint32_t>(c));
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) out(x, y, c) = plane(x, y);
  }
  return out;
}

Image<float> as_float(const Image<std::uint8_t>& image) {
  Image<float> out(image.width(), image.height(), image.channels());
  for (int y = 0; y < image.height(); ++y)
    for (int i = 0; i < image.width() * image.channels(); ++i) out.row(y)[i] = image.row(y)[i];
  return out;
}

std::string source_path(const std::string& relative) { return std::string(GPUVIS_SOURCE_DIR) + "/" + relative; }

std::string symbols_dir() {
  const char* pgm = std::getenv("GPUVIS_SYMBOL_PGM_DIR");
  return codec::available() || !pgm ? source_path("data/amoeba/symbols") : std::string(pgm);
}

std::string temp_path(const std::string& name) {
  namespace fs = std::filesystem;
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  fs::path dir = fs::temp_directory_path() / "gpuvis-tests" /
                 (info ? std::string(info->test_suite_name()) + "." + info->name() : std::string("global"));
  fs::create_directories(dir);
  fs::path p = dir / name;
  fs::remove_all(p);
  return p.string();
}

bool gpu_available() { return cuda::device_count() > 0; }
std::string gpu_skip_reason() { return cuda::unavailable_reason(); }

CommandResult run_cli(const std::string& args) { return run_cli_in("", args); }

CommandResult run_cli_in(const std::string& dir, const std::string& args) {
  const std::string cmd = (dir.empty() ? "" : "cd '" + dir + "' && ") + "'" + GPUVIS_CLI_PATH + "' " + args + " 2>&1";
  CommandResult r;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buf{};
  while (std::fgets(buf.data(), static_cast<int>(buf.size()), pipe)) r.output += buf.data();
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

std::vector<Image<std::uint8_t>> symbols_and_wiped_frames(int count, int width, int height, std::uint32_t seed) {
  synth::Generator gen(symbols_dir());
  std::vector<Image<std::uint8_t>> frames;
  for (int i = 0; i < count; ++i) {
    synth::SceneParams p;
    p.seed = seed;
    p.width = width;
    p.height = height;
    p.frame = i;
    p.speed = 3;
    p.symbols = 6;
    p.fingers = 2;
    auto scene = gen.make(p);
    if (i % 3 == 2)
      for (const auto& s : scene.symbols) {
        const int half = static_cast<int>(0.3 * s.size);
        for (int y = std::max(0, static_cast<int>(s.y) - half); y <= std::min(height - 1, static_cast<int>(s.y) + half); ++y)
          for (int x = std::max(0, static_cast<int>(s.x) - half); x <= std::min(width - 1, static_cast<int>(s.x) + half); ++x)
            scene.image(x, y) = 230;
      }
    frames.push_back(std::move(scene.image));
  }
  return frames;
}

std::vector<Image<std::uint8_t>> under_uneven_light(const std::vector<Image<std::uint8_t>>& frames) {
  std::vector<Image<std::uint8_t>> out;
  const int width = frames.front().width(), height = frames.front().height();
  auto shade = [&](int x, int y) { return 70 * (x + y) / (width + height); };
  out.emplace_back(width, height);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) out.back()(x, y) = static_cast<std::uint8_t>(230 - shade(x, y));
  for (const auto& f : frames) {
    out.emplace_back(width, height);
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) out.back()(x, y) = static_cast<std::uint8_t>(std::max(0, f(x, y) - shade(x, y)));
  }
  return out;
}

std::string tree_difference(const segment::RegionTree& a, const segment::RegionTree& b) {
  if (a.size() != b.size()) return "region counts " + std::to_string(a.size()) + " and " + std::to_string(b.size());
  const bool same = a.colour == b.colour && a.flags == b.flags && a.area == b.area && a.left == b.left && a.top == b.top &&
                    a.right == b.right && a.bottom == b.bottom && a.sum_x == b.sum_x && a.sum_y == b.sum_y && a.parent == b.parent &&
                    a.depth == b.depth && a.descendant_count == b.descendant_count && a.adj_begin == b.adj_begin && a.adj == b.adj;
  if (!same) return "per-region fields or neighbours differ";
  if (a.run_begin != b.run_begin || a.runs.size() != b.runs.size()) return "run lists differ";
  for (std::size_t i = 0; i < a.runs.size(); ++i)
    if (a.runs[i].y != b.runs[i].y || a.runs[i].x0 != b.runs[i].x0 || a.runs[i].x1 != b.runs[i].x1) return "run " + std::to_string(i) + " differs";
  return "";
}

void match_to_truth(const synth::Scene& scene, const std::vector<decode::Fiducial>& fiducials, TruthMatch& acc) {
  std::vector<bool> matched(scene.symbols.size(), false);
  for (const auto& f : fiducials) {
    if (f.fuzzy()) continue;
    bool ok = false;
    for (std::size_t k = 0; k < scene.symbols.size() && !ok; ++k) {
      const auto& s = scene.symbols[k];
      if (matched[k] || s.id != f.id || std::hypot(s.x - f.x, s.y - f.y) >= s.size / 4) continue;
      matched[k] = ok = true;
      const double turn = std::fmod(std::abs(s.angle - f.angle), 2 * std::numbers::pi);
      acc.centre_errors.push_back(std::hypot(s.x - f.x, s.y - f.y));
      acc.angle_errors.push_back(std::min(turn, 2 * std::numbers::pi - turn));
    }
    acc.false_ids += !ok;
  }
  acc.symbols += static_cast<int>(scene.symbols.size());
  acc.found += static_cast<int>(std::count(matched.begin(), matched.end(), true));
}

calibration::CalibrationGrid bent_grid(int width, int height) {
  const auto l = calibration::grid_layout(width, height);
  calibration::CalibrationGrid g = calibration::CalibrationGrid::zero(width, height);
  for (int r = 0; r < l.gy; ++r)
    for (int c = 0; c < l.gx; ++c) {
      const double u = (c - (l.gx - 1) / 2.0) / ((l.gx - 1) / 2.0), v = (r - (l.gy - 1) / 2.0) / ((l.gy - 1) / 2.0);
      const double k = 0.25 * (u * u + v * v) / 2;
      g.points[static_cast<std::size_t>(r * l.gx + c)] = {-k * u + 0.05 * v, -k * v - 0.05 * u};
    }
  return g;
}

}  // namespace gpuvis::test

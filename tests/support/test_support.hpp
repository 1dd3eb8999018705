#pragma once
// Helpers shared by the tests: deterministic random images, data paths, GPU skipping, running the
// CLI as a user would.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <type_traits>
#include <string>
#include <vector>

#include "gpuvis/core/image.hpp"
#include "gpuvis/decode/fiducial.hpp"
#include "gpuvis/calibration/grid.hpp"
#include "gpuvis/synth/scene.hpp"

namespace gpuvis::test {

// Uniform random 8-bit image (fresh content for every seed).
Image<std::uint8_t> random_image(int width, int height, std::uint32_t seed, int channels = 1);
// Random image with spatial structure: a smooth illumination gradient, blobs and noise, closer to
// camera frames than white noise (thresholds behave differently on it).
Image<std::uint8_t> textured_image(int width, int height, std::uint32_t seed);
// The same in each of `channels` channels (seeds seed, seed + 1, ...).
Image<std::uint8_t> textured_colour(int width, int height, int channels, std::uint32_t seed);
// The same samples as floats.
Image<float> as_float(const Image<std::uint8_t>& image);

// Random image of any element type: u8/u16 over their whole range, floats uniform in [lo, hi).
template <class T>
Image<T> random_typed(int width, int height, int channels, std::uint32_t seed, float lo = -100.f, float hi = 1000.f) {
  Image<T> img(width, height, channels);
  std::mt19937 rng(seed);
  for (int y = 0; y < height; ++y)
    for (int i = 0; i < width * channels; ++i) {
      if constexpr (std::is_same_v<T, float>) img.row(y)[i] = std::uniform_real_distribution<float>(lo, hi)(rng);
      else img.row(y)[i] = static_cast<T>(rng() % (std::is_same_v<T, std::uint8_t> ? 256u : 65536u));
    }
  return img;
}

std::string source_path(const std::string& relative);  // path inside the repository
std::string temp_path(const std::string& name);         // a fresh path in the test's temp folder
// The printed symbols for synth::Generator: the bundled PNGs, or the PGM copies in
// $GPUVIS_SYMBOL_PGM_DIR (scripts/gpu-check.sh makes them) in builds without libpng.
std::string symbols_dir();

// Frames for pipelined detection: generated tables of `width` x `height` with moving symbols, and
// every third frame the same table with each symbol's inside wiped to paper white, so that its
// root is left as a root candidate in the band the previous frame's symbols set.
std::vector<Image<std::uint8_t>> symbols_and_wiped_frames(int count, int width, int height, std::uint32_t seed);

// A table under uneven light, for the equaliser: the picture of the empty table (paper white
// darkened towards one corner by up to 70 grey levels) first, then `frames` darkened by the same
// shading.
std::vector<Image<std::uint8_t>> under_uneven_light(const std::vector<Image<std::uint8_t>>& frames);

// Two region trees are the same: every region's fields, neighbours and runs ("" when they are).
std::string tree_difference(const segment::RegionTree& a, const segment::RegionTree& b);

// Detections against a generated scene's truth, added up over frames: a valid fiducial is found
// when a true symbol of its ID lies within a quarter of the symbol's size (each true symbol is
// matched once); any other valid fiducial is a false ID.
struct TruthMatch {
  int symbols = 0, found = 0, false_ids = 0;
  std::vector<double> centre_errors, angle_errors;  // of the found ones, pixels and radians
};
void match_to_truth(const synth::Scene& scene, const std::vector<decode::Fiducial>& fiducials, TruthMatch& acc);

// A calibration grid (spec §9.5) for a frame size that bends like a wide-angle lens: points pulled
// toward the centre by up to a quarter cell, plus a slight twist.
calibration::CalibrationGrid bent_grid(int width, int height);

// True when a CUDA device is usable; otherwise the calling test should GTEST_SKIP() with
// gpu_skip_reason().
bool gpu_available();
std::string gpu_skip_reason();

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};
// Runs the gpuvis program with the given argument string (shell-quoted by the caller).
CommandResult run_cli(const std::string& args);
// The same with `dir` as the working folder.
CommandResult run_cli_in(const std::string& dir, const std::string& args);

}  // namespace gpuvis::test

#define GPUVIS_REQUIRE_GPU()                                                   \
  do {                                                                         \
    if (!::gpuvis::test::gpu_available())                                      \
      GTEST_SKIP() << "needs a CUDA device: " << ::gpuvis::test::gpu_skip_reason(); \
  } while (0)

#pragma once
// Helpers shared by the tests: deterministic random images, data paths, GPU skipping, running the
// CLI as a user would.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "gpuvis/core/image.hpp"

namespace gpuvis::test {

// Uniform random 8-bit image (fresh content for every seed).
Image<std::uint8_t> random_image(int width, int height, std::uint32_t seed, int channels = 1);
// Random image with spatial structure: a smooth illumination gradient, blobs and noise, closer to
// camera frames than white noise (thresholds behave differently on it).
Image<std::uint8_t> textured_image(int width, int height, std::uint32_t seed);

std::string source_path(const std::string& relative);  // path inside the repository
std::string temp_path(const std::string& name);         // a fresh path in the test's temp folder

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

}  // namespace gpuvis::test

#define GPUVIS_REQUIRE_GPU()                                                   \
  do {                                                                         \
    if (!::gpuvis::test::gpu_available())                                      \
      GTEST_SKIP() << "needs a CUDA device: " << ::gpuvis::test::gpu_skip_reason(); \
  } while (0)

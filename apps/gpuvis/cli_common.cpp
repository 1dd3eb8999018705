#include "cli_common.hpp"

#include "gpuvis/io/image_file.hpp"
#include "gpuvis/io/volume_file.hpp"

#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "gpuvis/cuda/runtime.hpp"
#include "gpuvis/opencl/devices.hpp"
#include "gpuvis/core/error.hpp"
#include "gpuvis/core/parallel.hpp"

namespace gpuvis::cli {

CLI::Option* add_backend_option(CLI::App& cmd, std::string& name) {
  // The OpenCL device, as GPUVIS_OPENCL_DEVICE names it (read when OpenCL is first used).
  cmd.add_option("--device", "OpenCL device for --backend opencl: an index from `gpuvis info` or part of a device's or platform's "
                             "name (overrides GPUVIS_OPENCL_DEVICE)")
      ->each([](const std::string& device) { ::setenv("GPUVIS_OPENCL_DEVICE", device.c_str(), 1); });
  return cmd.add_option("--backend", name,
                        "auto (CUDA when a device is present, else an OpenCL GPU for what runs on OpenCL, else the CPU), cpu, cuda or "
                        "opencl (the thresholds, convolution, the bilateral filter, mean shift and Life so far, on the device --device names)")
      ->check(CLI::IsMember({"auto", "cpu", "cuda", "opencl"}))
      ->default_val("auto");
}

CLI::Option* add_threads_option(CLI::App& cmd, int& n) {
  return cmd.add_option("--threads", n, "CPU worker threads (0 = one per core)")->check(CLI::Range(0, 1024))->default_val(0);
}

void add_finger_options(CLI::App& cmd, decode::FingerParams& f, CLI::Option*& size, CLI::Option*& sensitivity,
                        CLI::Option*& contrast) {
  size = cmd.add_option("--finger-size", f.size, "Average finger size in pixels (0 = no finger detection)")
             ->check(CLI::Range(0, 4096))
             ->default_val(0);
  sensitivity = cmd.add_option("--finger-sensitivity", f.sensitivity, "Finger test sensitivity 0..2 (reacTIVision's percent / 100)")
                    ->check(CLI::Range(0.0, 2.0))
                    ->default_val(0.75);
  contrast = cmd.add_option("--finger-contrast", f.contrast, "Minimum grey-level contrast inside a finger 0..255")
                 ->check(CLI::Range(0, 255))
                 ->default_val(16);
}

void add_yamaarashi_options(CLI::App& cmd, bool& yamaarashi, bool& mirror) {
  cmd.add_flag("--yamaarashi", yamaarashi, "Also decode yamaarashi symbols (IDs 0-65535; gpuvis synth --set yamaarashi)");
  cmd.add_flag("--mirror", mirror, "Read yamaarashi rings mirrored (a camera that sees the prints mirrored)");
}

std::string data_dir() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const auto installed = exe.parent_path().parent_path() / "share" / "gpuvis";
    if (std::filesystem::is_directory(installed / "amoeba", ec)) return installed.string();
  }
  return GPUVIS_DATA_DIR;
}

Backend choose_backend(const std::string& name, bool runs_on_opencl) {
  const Backend requested = parse_backend(name);
  if (requested == Backend::automatic && runs_on_opencl && cuda::device_count() == 0 && opencl::gpu_present()) {
    notice(cuda::unavailable_reason() + ", using OpenCL on " + opencl::chosen_device().name);
    return Backend::opencl;
  }
  return resolve_backend(requested, [](const std::string& why) { notice(why); });
}

void check_output_path(const std::string& output, const std::string& input, bool overwrite) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!input.empty() && fs::exists(output, ec) && fs::equivalent(output, input, ec))
    fail(ErrorCode::invalid_argument, "output '" + output + "' is the input file; choose another output path");
  if (fs::is_directory(output, ec))
    fail(ErrorCode::invalid_argument, "output '" + output + "' is a directory; give a file name");
  if (!overwrite && fs::exists(output, ec))
    fail(ErrorCode::invalid_argument, "output '" + output + "' already exists; pass --overwrite to replace it");
  const fs::path parent = fs::path(output).parent_path();
  if (!parent.empty() && !fs::is_directory(parent, ec))
    fail(ErrorCode::io, "cannot write '" + output + "': folder '" + parent.string() + "' does not exist");
}

void check_volume_outputs(const std::vector<std::string>& outputs, const std::string& input, bool overwrite) {
  namespace fs = std::filesystem;
  for (const auto& path : outputs) {
    std::error_code ec;
    const bool file = is_volume_file(path) || fs::path(path).extension() == ".json";
    if (!file) fs::create_directories(fs::path(path).parent_path(), ec);
    check_output_path(path, input, overwrite);
    if (!file) check_writable(path);
  }
}

void notice(const std::string& message) { std::cerr << "gpuvis: " << message << "\n"; }

decode::BlobParams parse_blob_size(const std::string& text) {
  decode::BlobParams b;
  if (std::sscanf(text.c_str(), "%d:%d", &b.min_size, &b.max_size) != 2 || b.min_size < 0 || b.max_size < b.min_size)
    fail(ErrorCode::invalid_argument, "--blob-size must be MIN:MAX with 0 <= MIN <= MAX, got '" + text + "'");
  return b;
}

}  // namespace gpuvis::cli

namespace gpuvis::cli {

void ThresholdFlags::add_to(CLI::App& cmd, const std::string& default_method) {
  method = default_method;
  method_option = cmd.add_option("--method", method, "Threshold: bernsen, tiled or bradley-roth")
      ->check(CLI::IsMember({"bernsen", "tiled", "bradley-roth"}))
      ->default_val(default_method);
  cmd.add_option("--window", window, "Window half-width (bernsen h >= 1, bradley-roth r >= 1)");
  cmd.add_option("--gate", gate, "Contrast gate 0..255 (bernsen C, tiled gradient G)");
  cmd.add_option("--tile", tile, "Tile size T >= 2 (tiled)");
  cmd.add_option("--bias", bias, "Bias 0..1 (bradley-roth; reacTIVision gradient/100)");
  cmd.add_option("--contrast", contrast, "Minimum local mean 0..255 (bradley-roth)");
  cmd.add_option("--sharpen", sharpen,
                 "Sharpen before thresholding, 0 (off) to 4: keeps small symbols' leaves apart on sharp, quiet cameras "
                 "(2 is a good start; noisy frames lose from it)")
      ->check(CLI::Range(0, 4));
}

threshold::Params ThresholdFlags::params(const threshold::Params& defaults) const {
  threshold::Params p = defaults;
  if (!method_option || method_option->count() > 0 || defaults.method == threshold::parse_method(method))
    p.method = threshold::parse_method(method);
  auto used = [](int v) { return v != -1; };
  if (p.method == threshold::Method::bernsen) {
    if (used(window)) p.bernsen.half_window = window;
    if (used(gate)) p.bernsen.gate = gate;
  } else if (p.method == threshold::Method::tiled) {
    if (used(tile)) p.tiled.tile = tile;
    if (used(gate)) p.tiled.gradient = gate;
  } else {
    if (used(window)) p.bradley_roth.size = window;
    if (bias != -1) p.bradley_roth.bias = bias;
    if (used(contrast)) p.bradley_roth.contrast = contrast;
  }
  const auto ignored = [&](bool given, const char* flag) {
    if (given) notice(std::string(flag) + " does not apply to --method " + method + " and is ignored");
  };
  ignored(used(tile) && p.method != threshold::Method::tiled, "--tile");
  ignored(used(window) && p.method == threshold::Method::tiled, "--window");
  ignored(used(gate) && p.method == threshold::Method::bradley_roth, "--gate");
  ignored((bias != -1 || used(contrast)) && p.method != threshold::Method::bradley_roth, "--bias/--contrast");
  if (used(sharpen)) p.sharpen = sharpen;
  threshold::validate(p);
  return p;
}

double parse_length_mm(const std::string& text, const char* what) {
  double value = 0;
  char unit[8] = {0};
  if (std::sscanf(text.c_str(), "%lf%7s", &value, unit) != 2 || !(value > 0))
    fail(ErrorCode::invalid_argument, std::string(what) + " must be a length such as 6cm, 60mm or 2.5in, got '" + text + "'");
  const std::string u = unit;
  if (u == "mm") return value;
  if (u == "cm") return value * 10;
  if (u == "in") return value * 25.4;
  fail(ErrorCode::invalid_argument, std::string(what) + ": unknown unit '" + u + "' (use mm, cm or in)");
}

}  // namespace gpuvis::cli

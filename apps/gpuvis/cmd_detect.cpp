// gpuvis detect FILES|DIR: fiducials in still frames, as JSON lines or a table, optionally drawn.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>

#include "annotate.hpp"
#include "debug_images.hpp"
#include "cli_common.hpp"
#include "gpuvis/core/parallel.hpp"
#include "gpuvis/io/image_file.hpp"
#include "gpuvis/pipeline/detector.hpp"

namespace gpuvis::cli {
namespace {

struct DetectArgs {
  std::vector<std::string> inputs;
  std::string trees = "default", backend = "auto", annotate_dir;
  ThresholdFlags options;
  bool json = false, overwrite = false, fuzzy = false, no_second_look = false;
  decode::FingerParams fingers;
  std::string blob_size, debug_dir;
  int threads = 0, max_fid = 0;
  bool yamaarashi = false, mirror = false;
  std::string grid;
};
DetectArgs a;

std::vector<std::string> expand_inputs(const std::vector<std::string>& inputs) {
  std::vector<std::string> files;
  for (const auto& in : inputs) {
    std::error_code ec;
    if (std::filesystem::is_directory(in, ec)) {
      std::vector<std::string> found;
      for (const auto& e : std::filesystem::directory_iterator(in))
        if (e.is_regular_file() && is_image_path(e.path().string())) found.push_back(e.path().string());
      std::sort(found.begin(), found.end());
      if (found.empty()) fail(ErrorCode::io, "folder '" + in + "' holds no image files (.pgm .ppm .png .jpg)");
      files.insert(files.end(), found.begin(), found.end());
    } else if (std::filesystem::exists(in, ec)) {
      files.push_back(in);
    } else {
      fail(ErrorCode::io, "'" + in + "': no such file or folder");
    }
  }
  return files;
}

nlohmann::json to_json(const std::string& file, const pipeline::Detections& d, bool with_fuzzy) {
  nlohmann::json fids = nlohmann::json::array();
  for (const auto& f : d.fiducials) {
    if (f.fuzzy() && !with_fuzzy) continue;
    fids.push_back({{"id", f.id}, {"x", f.x}, {"y", f.y}, {"angle", f.angle}, {"root_size", f.root_size},
                    {"leaves", f.leaves}, {"fuzzy", f.fuzzy()}});
  }
  nlohmann::json fingers = nlohmann::json::array(), blobs = nlohmann::json::array();
  for (const auto& f : d.fingers)
    fingers.push_back({{"x", f.x}, {"y", f.y}, {"size", std::max(f.width, f.height)}, {"width", f.width}, {"height", f.height},
                       {"angle", f.angle}, {"score", f.score}});
  for (const auto& b : d.blobs)
    blobs.push_back({{"x", b.x}, {"y", b.y}, {"width", b.width}, {"height", b.height}, {"angle", b.angle}, {"area", b.area}});
  return {{"file", file},
          {"width", d.width},
          {"height", d.height},
          {"fiducials", fids},
          {"fingers", fingers},
          {"blobs", blobs},
          {"regions", d.regions},
          {"times_us",
           {{"threshold", d.times.threshold_us},
            {"segment", d.times.segment_us},
            {"decode", d.times.decode_us},
            {"device", d.times.device_us}}}};  // CUDA: the whole device frame (stages are 0 when run as a graph)
}

// One frame's detections as the table `gpuvis detect` prints without --json.
void print_table(const std::string& file, const pipeline::Detections& d) {
  int shown = 0;
  for (const auto& f : d.fiducials) shown += !f.fuzzy() || a.fuzzy;
  std::cout << file << ": " << d.width << "x" << d.height << ", " << shown << " fiducial" << (shown == 1 ? "" : "s")
            << ", " << d.fingers.size() << " finger" << (d.fingers.size() == 1 ? "" : "s") << ", " << d.blobs.size()
            << " blob" << (d.blobs.size() == 1 ? "" : "s") << "\n";
  for (const auto& f : d.fiducials) {
    if (f.fuzzy() && !a.fuzzy) continue;
    std::cout << "  id " << std::setw(4) << (f.fuzzy() ? std::string("?") : std::to_string(f.id)) << std::fixed
              << std::setprecision(2) << "  x " << std::setw(8) << f.x << "  y " << std::setw(8) << f.y
              << "  angle " << std::setw(6) << f.angle << " rad (" << std::setprecision(1) << std::setw(5)
              << f.angle * 180 / M_PI << " deg)  size " << f.root_size << "\n";
  }
  for (const auto& f : d.fingers)
    std::cout << "  finger" << std::fixed << std::setprecision(2) << "  x " << std::setw(8) << f.x << "  y " << std::setw(8)
              << f.y << "  size " << std::max(f.width, f.height) << "\n";
  for (const auto& b : d.blobs)
    std::cout << "  blob  " << std::fixed << std::setprecision(2) << "  x " << std::setw(8) << b.x << "  y " << std::setw(8)
              << b.y << "  " << b.width << "x" << b.height << "  angle " << b.angle << "  area " << b.area << "\n";
}

// The detector's configuration from the flags (the backend is chosen later, once the outputs are
// checked).
pipeline::DetectorParams detector_config() {
  pipeline::DetectorParams config;
  config.threshold = a.options.params(pipeline::DetectorParams::default_threshold());
  config.trees = a.trees;
  config.max_fid = a.max_fid;
  config.yamaarashi = a.yamaarashi;
  config.mirror = a.mirror;
  config.fingers = a.fingers;
  config.second_look.enabled = !a.no_second_look;
  if (!a.blob_size.empty()) config.blobs = parse_blob_size(a.blob_size);
  if (!a.grid.empty()) config.calibration = calibration::CalibrationGrid::read(a.grid);
  return config;
}

int run_detect() {
  require(!a.inputs.empty(), "detect needs at least one image file or folder");
  if (a.threads) set_num_threads(a.threads);
  pipeline::DetectorParams config = detector_config();
  // A bad tree file is reported before any work starts; the set, as the detector applies the
  // options to it, serves the debug output.
  decode::TreeSet set = decode::TreeSet::load(config.trees);
  set.max_id = config.max_fid;
  set.yamaarashi = config.yamaarashi;
  set.mirror = config.mirror;
  const std::vector<std::string> files = expand_inputs(a.inputs);
  const std::string ext = codec::available() ? ".png" : ".ppm";
  auto annotated_path = [&](const std::string& file) {
    return (std::filesystem::path(a.annotate_dir) / std::filesystem::path(file).stem()).string() + ext;
  };
  auto debug_base = [&](const std::string& file) {
    return (std::filesystem::path(a.debug_dir) / std::filesystem::path(file).stem()).string();
  };
  if (!a.debug_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(a.debug_dir, ec);
    if (!std::filesystem::is_directory(a.debug_dir)) fail(ErrorCode::io, "cannot create the debug folder '" + a.debug_dir + "'");
    for (const auto& file : files)
      for (const auto& output : debug_outputs(ext)) check_output_path(debug_base(file) + output, file, a.overwrite);
  }
  if (!a.annotate_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(a.annotate_dir, ec);
    if (!std::filesystem::is_directory(a.annotate_dir))
      fail(ErrorCode::io, "cannot create the annotation folder '" + a.annotate_dir + "'");
    for (const auto& file : files) check_output_path(annotated_path(file), file, a.overwrite);
  }
  config.backend = choose_backend(a.backend);
  config.device_times = true;  // the JSON lines carry them
  // --debug shows the backend's own binary frame and regions.
  config.taps = {.threshold = !a.debug_dir.empty(), .regions = !a.debug_dir.empty()};
  pipeline::Detector detector(config);
  int failures = 0;
  for (const auto& file : files) {
    Image<std::uint8_t> grey;
    try {
      grey = read_grey8(file);
    } catch (const Error& e) {
      // One unreadable frame in a folder is reported and skipped; the exit status says so.
      std::cerr << "gpuvis: error: " << e.what() << "\n";
      ++failures;
      continue;
    }
    const auto& d = detector.detect(grey.view());
    if (a.json) {
      std::cout << to_json(std::filesystem::path(file).filename().string(), d, a.fuzzy).dump() << "\n";
    } else {
      print_table(file, d);
    }
    if (!a.annotate_dir.empty()) write_image(annotated_path(file), annotate(grey.view(), d).view());
    if (!a.debug_dir.empty())
      write_debug_images(a.debug_dir, std::filesystem::path(file).stem().string(), ext, grey.view(), set, d);
  }
  return failures ? 1 : 0;
}

}  // namespace

void register_detect(CLI::App& app, Command& run) {
  auto* cmd = app.add_subcommand("detect", "Find amoeba (and yamaarashi) fiducials in image files (one result per frame)");
  cmd->footer(
      "Output: a table per frame, or with --json one JSON object per line:\n"
      "  {\"file\", \"width\", \"height\", \"fiducials\": [{\"id\", \"x\", \"y\", \"angle\", ...}], \"fingers\", \"blobs\"}\n"
      "x, y in pixels (origin top-left, y down); angle in radians, 0 = upright, clockwise positive.\n"
      "The default threshold is full Bernsen h=16, gate 32 (docs/decoding.md says why).\n"
      "--backend cuda runs threshold, segmentation, decoding, fingers and blobs on the GPU; only the results come back.");
  cmd->add_option("inputs", a.inputs, "Image files or folders of images");
  cmd->add_option("--trees", a.trees, "Tree set: default, small, mini or a .trees file")->default_val("default");
  cmd->add_option("--max-fid", a.max_fid, "Symbols with a higher ID are reported as fuzzy candidates (reacTIVision's max_fid; 0 = no limit)")
      ->check(CLI::NonNegativeNumber)
      ->default_val(0);
  add_yamaarashi_options(*cmd, a.yamaarashi, a.mirror);
  a.options.add_to(*cmd, "bernsen");
  add_backend_option(*cmd, a.backend);
  {
    CLI::Option *size = nullptr, *sensitivity = nullptr, *contrast = nullptr;
    add_finger_options(*cmd, a.fingers, size, sensitivity, contrast);
  }
  add_threads_option(*cmd, a.threads);
  cmd->add_option("--blob-size", a.blob_size, "Report plain white blobs with MIN:MAX pixels size");
  cmd->add_option("--grid", a.grid,
                  "reacTIVision calibration.grid: report positions in table (undistorted) pixels, as track does")
      ->check(CLI::ExistingFile);
  cmd->add_flag("--json", a.json, "One JSON object per frame on stdout");
  cmd->add_flag("--fuzzy", a.fuzzy, "Also report fuzzy candidates (damaged symbols, id -1)");
  cmd->add_flag("--no-second-look", a.no_second_look,
                "Do not look again at candidates that did not decode (by default their motion blur is estimated and taken out, "
                "and they are decoded again; --debug lists each look)");
  cmd->add_option("--annotate", a.annotate_dir, "Write each frame with the detections drawn into this folder (PNG or PPM)");
  cmd->add_option("--debug", a.debug_dir,
                  "Write each stage's output into this folder: NAME_1_threshold, _2_regions, _3_candidates "
                  "(numbered candidate roots; green: decoded, orange: fuzzy, red: refused; blue: root-region "
                  "candidates), _4_detections, and _5_candidates.txt, which says what became of each numbered "
                  "candidate (decoded, or the gate that refused it), then each second look (estimated blur, outcome)");
  cmd->add_flag("--overwrite", a.overwrite, "Replace existing annotated or debug images");
  cmd->callback([&run] { run = run_detect; });
}

}  // namespace gpuvis::cli

// gpuvis synth OUT: generated camera frames with real printed symbols, plus their ground truth.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "cli_common.hpp"
#include "gpuvis/core/parallel.hpp"
#include "gpuvis/io/image_file.hpp"
#include "gpuvis/source/frame_source.hpp"
#include "gpuvis/synth/scene.hpp"

namespace gpuvis::cli {

void register_synth(CLI::App& app, Command& run) {
  static synth::SceneParams q;
  static std::string out, size = "640x480", symbols_dir, format = "pgm";
  static int count = 10, threads = 0;
  static bool overwrite = false;
  auto* cmd = app.add_subcommand("synth", "Generate test frames from the printed amoeba symbols (or drawn yamaarashi), with ground truth");
  cmd->footer(
      "Writes OUT/frame_NNNN.<format> (with --format avi one video, OUT/frames.avi, Motion JPEG) and\n"
      "OUT/truth.jsonl (one line per frame: the true centre in pixels\n"
      "and angle in radians of every symbol, as gpuvis detect reports them, a smeared symbol's travel during\n"
      "the exposure as \"smear\":[dx,dy] in pixels, and the finger positions).");
  cmd->add_option("out", out, "Output folder (created)");
  cmd->add_option("--count", count, "Number of frames")->check(CLI::Range(1, 1000000))->default_val(10);
  cmd->add_option("--size", size, "Frame size WxH")->default_val("640x480");
  cmd->add_option("--symbols", q.symbols, "Symbols per frame")->check(CLI::Range(0, 10000))->default_val(6);
  cmd->add_option("--set", q.set, "Printed symbol set: default, small or yamaarashi (drawn, IDs 0-65535)")->check(CLI::IsMember({"default", "small", "yamaarashi"}))->default_val("default");
  cmd->add_option("--min-size", q.min_size, "Smallest printed symbol side in pixels")->default_val(70);
  cmd->add_option("--max-size", q.max_size, "Largest printed symbol side in pixels")->default_val(130);
  cmd->add_option("--fingers", q.fingers, "Finger blobs per frame")->check(CLI::Range(0, 10000))->default_val(0);
  cmd->add_option("--finger-size", q.finger_size, "Finger blob diameter in pixels")->default_val(18);
  cmd->add_option("--blur", q.blur, "Gaussian blur sigma in pixels")->check(CLI::Range(0.0, 20.0))->default_val(0.8);
  cmd->add_option("--noise", q.noise, "Sensor noise sigma in grey levels")->check(CLI::Range(0.0, 100.0))->default_val(3.0);
  cmd->add_option("--perspective", q.perspective, "Perspective foreshortening 0..0.3")->check(CLI::Range(0.0, 0.3))->default_val(0.03);
  cmd->add_option("--illumination", q.illumination, "Brightness fall-off 0..0.9")->check(CLI::Range(0.0, 0.9))->default_val(0.35);
  cmd->add_option("--brightness", q.brightness, "Grey level of white paper in the brightest spot")->check(CLI::Range(10.0, 255.0))->default_val(220);
  cmd->add_option("--ink", q.ink, "Ink reflectance, paper being 0.9: 0.06 is black print, 0.45 a grey, low-contrast one")
      ->check(CLI::Range(0.0, 0.85))
      ->default_val(0.06);
  cmd->add_option("--table", q.table, "Table reflectance, paper being 0.9")->check(CLI::Range(0.0, 1.0))->default_val(0.35);
  cmd->add_option("--seed", q.seed, "Random seed (same seed, same frames)")->default_val(1);
  static bool sequence = false;
  static double spin_deg = 0;
  cmd->add_flag("--sequence", sequence,
                "Frames form a moving sequence of the same scene (for tracking): prints slide, bounce off each other and off "
                "fingers, and leave the frame");
  cmd->add_option("--speed", q.speed, "With --sequence: symbol speed in pixels per frame")->default_val(0);
  cmd->add_option("--spin", spin_deg, "With --sequence: rotation in degrees per frame")->default_val(0);
  cmd->add_option("--ramp", q.ramp,
                  "With --sequence: frames over which the prints get up to --speed and --spin from standing still (a hand puts "
                  "a token down, then slides it; 0: moving from the first frame)")
      ->check(CLI::Range(0.0, 1e6))
      ->default_val(0);
  cmd->add_option("--motion-blur", q.motion_blur,
                  "Exposure as a fraction of the frame interval (0-1): with --sequence each symbol is smeared along its own "
                  "motion and spin; the truth is the sharp pose at mid-exposure")
      ->check(CLI::Range(0.0, 1.0))
      ->default_val(0);
  cmd->add_option("--motion-px", q.motion_px, "Smear each symbol over this many pixels along its own random direction (a slide during the exposure)")
      ->check(CLI::Range(0.0, 100.0))
      ->default_val(0);
  cmd->add_option("--vignetting", q.vignetting, "Lens fall-off: the corners this fraction darker (0.25-0.45 is a webcam's)")
      ->check(CLI::Range(0.0, 0.95))
      ->default_val(0);
  cmd->add_option("--jpeg", q.jpeg, "Pass each frame through JPEG at this quality, as an MJPEG webcam sends it (1-100; 0: no JPEG)")
      ->check(CLI::Range(0, 100))
      ->default_val(0);
  cmd->add_option("--format", format, "Frame file format, or avi: one video file (Motion JPEG, as a webcam records it)")
      ->check(CLI::IsMember({"pgm", "png", "avi"}))
      ->default_val("pgm");
  static double fps = 30;
  cmd->add_option("--fps", fps, "With --format avi: the video's frame rate")->check(CLI::Range(1.0, 1000.0))->default_val(30);
  cmd->add_option("--symbols-dir", symbols_dir, "Folder with amoeba_<set>_NNN.png prints (default: the bundled data)");
  cmd->add_flag("--overwrite", overwrite, "Replace frames and truth in an existing folder");
  add_threads_option(*cmd, threads);
  cmd->callback([&run] {
    run = [] {
      require(!out.empty(), "synth needs an output folder");
      if (threads) set_num_threads(threads);
      if (std::sscanf(size.c_str(), "%dx%d", &q.width, &q.height) != 2 || q.width < 16 || q.height < 16)
        fail(ErrorCode::invalid_argument, "--size must be WxH with both at least 16, got '" + size + "'");
      const std::string truth_path = (std::filesystem::path(out) / "truth.jsonl").string();
      std::error_code ec;
      if (!overwrite && std::filesystem::exists(truth_path, ec))
        fail(ErrorCode::invalid_argument, "'" + out + "' already holds generated frames; pass --overwrite to replace them");
      std::filesystem::create_directories(out, ec);
      if (!std::filesystem::is_directory(out)) fail(ErrorCode::io, "cannot create folder '" + out + "'");
      const bool video = format == "avi";
      if (!video) check_writable("x." + format);
      const std::string video_path = (std::filesystem::path(out) / "frames.avi").string();
      if (video && !overwrite && std::filesystem::exists(video_path, ec))
        fail(ErrorCode::invalid_argument, "'" + video_path + "' exists; pass --overwrite to replace it");
      std::optional<source::VideoFileWriter> writer;
      if (video) writer.emplace(video_path, q.width, q.height, fps);
      synth::Generator gen(symbols_dir.empty() ? data_dir() + "/amoeba/symbols" : symbols_dir);
      std::ofstream truth(truth_path);
      if (!truth) fail(ErrorCode::io, "cannot write '" + truth_path + "'");
      const std::uint32_t seed0 = q.seed;
      for (int i = 0; i < count; ++i) {
        synth::SceneParams p = q;
        if (sequence) {
          p.frame = i;
          p.spin = spin_deg * M_PI / 180;
        } else {
          p.seed = seed0 + static_cast<std::uint32_t>(i) * 7919u;
        }
        const synth::Scene scene = gen.make(p);
        char name[32];
        if (video) {
          std::snprintf(name, sizeof name, "frames.avi#%d", i);  // the frame's index in the video
          writer->write(scene.image.view());
        } else {
          std::snprintf(name, sizeof name, "frame_%04d.%s", i, format.c_str());
          write_image((std::filesystem::path(out) / name).string(), scene.image.view());
        }
        truth << synth::truth_json(scene, name) << "\n" << std::flush;  // whole lines only, if interrupted
        if (count >= 20 && (i + 1) % std::max(1, count / 10) == 0)
          std::cerr << "gpuvis: synth " << (i + 1) << "/" << count << " frames\n";
      }
      writer.reset();  // the video's index is written when it closes
      std::cerr << "gpuvis: wrote " << count << " frames" << (video ? " (frames.avi)" : "") << " and truth.jsonl to " << out << "\n";
      return 0;
    };
  });
}

}  // namespace gpuvis::cli

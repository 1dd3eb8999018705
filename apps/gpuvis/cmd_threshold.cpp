// gpuvis threshold IN OUT: adaptive threshold of one image.
#include <chrono>
#include <iostream>

#include "cli_common.hpp"
#include "gpuvis/core/parallel.hpp"
#include "gpuvis/io/image_file.hpp"
#include "gpuvis/threshold/threshold.hpp"

namespace gpuvis::cli {

namespace {
struct ThresholdArgs {
  std::string input, output, method = "bernsen", backend = "auto", equalize;
  int window = -1, gate = -1, tile = -1, contrast = -1, threads = 0;
  float bias = -1;
  bool overwrite = false, timing = false;
};
}  // namespace

void register_threshold(CLI::App& app, Command& run) {
  static ThresholdArgs a;
  auto* cmd = app.add_subcommand("threshold", "Adaptive threshold of a grey image to black/white (0/255)");
  cmd->footer(
      "Methods and defaults:\n"
      "  bernsen       full per-pixel Bernsen: --window H (half-width, default 12) --gate C (default 32)\n"
      "  tiled         reacTIVision tiled Bernsen: --tile T (default 16) --gate G (gradient, default 16)\n"
      "  bradley-roth  reacTIVision Bradley-Roth: --window R (default 16) --bias B (default 0.16)\n"
      "                --contrast M (minimum local mean, default 32)\n"
      "With no method flags, tiled and bradley-roth reproduce reacTIVision 1.6's shipped settings.\n"
      "Colour inputs are converted to grey with reacTIVision's weights.");
  // Positionals are checked in the callback so that an unknown option is reported first.
  cmd->add_option("input", a.input, "Input image (PGM/PPM/PFM, PNG, JPEG)");
  cmd->add_option("output", a.output, "Output image (.pgm, .png, ...)");
  cmd->add_option("--method", a.method, "bernsen, tiled or bradley-roth")
      ->check(CLI::IsMember({"bernsen", "tiled", "bradley-roth"}))
      ->default_val("bernsen");
  cmd->add_option("--window", a.window, "Window half-width (bernsen h >= 1, bradley-roth r >= 1)");
  cmd->add_option("--gate", a.gate, "Contrast gate 0..255 (bernsen C, tiled gradient G)");
  cmd->add_option("--tile", a.tile, "Tile size T >= 2 (tiled)");
  cmd->add_option("--bias", a.bias, "Bias 0..1 (bradley-roth; reacTIVision gradient/100)");
  cmd->add_option("--contrast", a.contrast, "Minimum local mean 0..255 (bradley-roth)");
  cmd->add_option("--equalize", a.equalize, "Background image: subtract it first (reacTIVision's equaliser)");
  add_backend_option(*cmd, a.backend);
  add_threads_option(*cmd, a.threads);
  cmd->add_flag("--overwrite", a.overwrite, "Replace OUTPUT if it exists");
  cmd->add_flag("--time", a.timing, "Print how long the threshold took");
  cmd->callback([&run] {
    run = [] {
      require(!a.input.empty() && !a.output.empty(), "threshold needs INPUT and OUTPUT image paths");
      threshold::Params p;
      p.method = threshold::parse_method(a.method);
      auto used = [](int v) { return v != -1; };
      if (p.method == threshold::Method::bernsen) {
        if (used(a.window)) p.bernsen.half_window = a.window;
        if (used(a.gate)) p.bernsen.gate = a.gate;
      } else if (p.method == threshold::Method::tiled) {
        if (used(a.tile)) p.tiled.tile = a.tile;
        if (used(a.gate)) p.tiled.gradient = a.gate;
      } else {
        if (used(a.window)) p.bradley_roth.size = a.window;
        if (a.bias != -1) p.bradley_roth.bias = a.bias;
        if (used(a.contrast)) p.bradley_roth.contrast = a.contrast;
      }
      const auto ignored = [&](bool given, const char* flag) {
        if (given) notice(std::string(flag) + " does not apply to --method " + a.method + " and is ignored");
      };
      ignored(used(a.tile) && p.method != threshold::Method::tiled, "--tile");
      ignored(used(a.window) && p.method == threshold::Method::tiled, "--window");
      ignored(used(a.gate) && p.method == threshold::Method::bradley_roth, "--gate");
      ignored((a.bias != -1 || used(a.contrast)) && p.method != threshold::Method::bradley_roth, "--bias/--contrast");
      threshold::validate(p);
      check_output_path(a.output, a.input, a.overwrite);
      check_writable(a.output);
      if (a.threads) set_num_threads(a.threads);

      Image<std::uint8_t> grey = read_grey8(a.input);
      if (!a.equalize.empty()) {
        threshold::Equalizer eq;
        eq.capture(read_grey8(a.equalize).view());
        eq.apply(grey.view());
      }
      const Backend backend = choose_backend(a.backend);
      auto thresholder = threshold::make_thresholder(p, backend);
      Image<std::uint8_t> out(grey.width(), grey.height());
      const auto t0 = std::chrono::steady_clock::now();
      thresholder->apply(grey.view(), out.view());
      const auto t1 = std::chrono::steady_clock::now();
      write_image(a.output, out.view());
      if (a.timing)
        std::cerr << "gpuvis: threshold " << a.method << " " << grey.width() << "x" << grey.height() << " on "
                  << to_string(backend) << ": " << std::chrono::duration<double, std::milli>(t1 - t0).count()
                  << " ms (first call, includes setup" << (backend == Backend::cuda ? " and transfers" : "") << ")\n";
      return 0;
    };
  });
}

}  // namespace gpuvis::cli

// gpuvis threshold IN OUT: adaptive threshold of one image.
#include <chrono>
#include <iostream>

#include "cli_common.hpp"
#include "gpuvis/pipeline/detector.hpp"
#include "gpuvis/core/parallel.hpp"
#include "gpuvis/io/image_file.hpp"
#include "gpuvis/threshold/threshold.hpp"

namespace gpuvis::cli {

namespace {
struct ThresholdArgs {
  std::string input, output, backend = "auto", equalize;
  ThresholdFlags options;
  int threads = 0;
  bool overwrite = false, timing = false;
};
}  // namespace

void register_threshold(CLI::App& app, Command& run) {
  static ThresholdArgs a;
  auto* cmd = app.add_subcommand("threshold", "Adaptive threshold of a grey image to black/white (0/255)");
  cmd->footer(
      "Methods and defaults:\n"
      "  bernsen       full per-pixel Bernsen: --window H (half-width, default 16, the detector's) --gate C (default 32)\n"
      "  tiled         reacTIVision tiled Bernsen: --tile T (default 16) --gate G (gradient, default 16)\n"
      "  bradley-roth  reacTIVision Bradley-Roth: --window R (default 16) --bias B (default 0.16)\n"
      "                --contrast M (minimum local mean, default 32)\n"
      "With no method flags, tiled and bradley-roth reproduce reacTIVision 1.6's shipped settings.\n"
      "Colour inputs are converted to grey with reacTIVision's weights.");
  // Positionals are checked in the callback so that an unknown option is reported first.
  cmd->add_option("input", a.input, "Input image (PGM/PPM/PFM, PNG, JPEG)");
  cmd->add_option("output", a.output, "Output image (.pgm, .png, ...)");
  a.options.add_to(*cmd, "bernsen");
  cmd->add_option("--equalize", a.equalize, "Background image: subtract it first (reacTIVision's equaliser)");
  add_backend_option(*cmd, a.backend);
  add_threads_option(*cmd, a.threads);
  cmd->add_flag("--overwrite", a.overwrite, "Replace OUTPUT if it exists");
  cmd->add_flag("--time", a.timing, "Print how long the threshold took");
  cmd->callback([&run] {
    run = [] {
      require(!a.input.empty() && !a.output.empty(), "threshold needs INPUT and OUTPUT image paths");
      // The detector's threshold unless flags say otherwise: what `detect --debug` shows as its first stage.
      threshold::Params p = a.options.params(pipeline::DetectorParams::default_threshold());
      check_output_path(a.output, a.input, a.overwrite);
      check_writable(a.output);
      if (a.threads) set_num_threads(a.threads);

      Image<std::uint8_t> grey = read_grey8(a.input);
      const Backend backend = choose_backend(a.backend, true);
      p.backend = backend;
      auto thresholder = threshold::make_thresholder(p);
      if (!a.equalize.empty()) {  // on the chosen backend, before the threshold
        auto eq = std::make_shared<threshold::Equalizer>();
        eq->capture(read_grey8(a.equalize).view());
        thresholder->set_equalizer(eq);
      }
      Image<std::uint8_t> out(grey.width(), grey.height());
      const auto t0 = std::chrono::steady_clock::now();
      thresholder->apply(grey.view(), out.view());
      const auto t1 = std::chrono::steady_clock::now();
      write_image(a.output, out.view());
      if (a.timing)
        std::cerr << "gpuvis: threshold " << a.options.method << " " << grey.width() << "x" << grey.height() << " on "
                  << to_string(backend) << ": " << std::chrono::duration<double, std::milli>(t1 - t0).count()
                  << " ms (first call, includes setup" << (backend == Backend::cuda ? " and transfers" : "") << ")\n";
      return 0;
    };
  });
}

}  // namespace gpuvis::cli

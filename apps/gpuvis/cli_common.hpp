#pragma once
// Pieces every subcommand shares: the --backend option, output-file safety, messages.
#include <CLI/CLI.hpp>

#include <chrono>
#include <iostream>
#include <string>
#include <vector>

#include "gpuvis/core/backend.hpp"
#include "gpuvis/decode/blobs.hpp"
#include "gpuvis/threshold/threshold.hpp"

namespace gpuvis::cli {

// Adds --backend auto|cpu|cuda|opencl (default auto) bound to `name`.
CLI::Option* add_backend_option(CLI::App& cmd, std::string& name);
// Adds --threads N (CPU worker threads; 0 = all cores) bound to `n`.
CLI::Option* add_threads_option(CLI::App& cmd, int& n);
// --finger-size, --finger-sensitivity, --finger-contrast (reacTIVision's <finger size sensitivity>
// and its contrast); the options are returned so that a config file's values can yield to them.
void add_finger_options(CLI::App& cmd, decode::FingerParams& fingers, CLI::Option*& size, CLI::Option*& sensitivity,
                        CLI::Option*& contrast);
// --yamaarashi and --mirror (reacTIVision's <fiducial yamaarashi mirror>), into a detector's config.
void add_yamaarashi_options(CLI::App& cmd, bool& yamaarashi, bool& mirror);

// Parses and resolves the backend; `auto` without a device prints a one-line notice on stderr.
// `runs_on_opencl`: the command, with its options, runs on OpenCL, so `auto` takes an OpenCL GPU
// when there is no CUDA device (opencl::prefer_opencl_gpu).
Backend choose_backend(const std::string& name, bool runs_on_opencl = false);
// The data folder (printed symbols): share/gpuvis beside an installed program, else the source
// tree this program was built from.
std::string data_dir();

// Refuses to replace an existing file unless `overwrite` is set, and refuses to write onto the
// input file in any case, so nothing the user gave us is lost.
void check_output_path(const std::string& output, const std::string& input, bool overwrite);

// check_output_path for every file a volume command will write, creating a folder volume's output
// folders (and only those) so that their files can be checked too.
void check_volume_outputs(const std::vector<std::string>& outputs, const std::string& input, bool overwrite);
void notice(const std::string& message);

// "6cm", "60mm", "2.5in" -> millimetres; errors name `what` (the option).
double parse_length_mm(const std::string& text, const char* what);

// Prints "gpuvis: convolve 42%" on stderr, but only once a job has run for more than a second.
class Progress {
 public:
  explicit Progress(std::string what) : what_(std::move(what)), start_(std::chrono::steady_clock::now()) {}
  ~Progress() {
    if (shown_) std::cerr << "\rgpuvis: " << what_ << " 100%\n";
  }
  void operator()(double fraction) {
    if (!shown_ && std::chrono::steady_clock::now() - start_ < std::chrono::seconds(1)) return;
    shown_ = true;
    std::cerr << "\rgpuvis: " << what_ << " " << static_cast<int>(fraction * 100) << "%" << std::flush;
  }

 private:
  std::string what_;
  std::chrono::steady_clock::time_point start_;
  bool shown_ = false;
};


// "MIN:MAX" for --blob-size (0 <= MIN <= MAX); throws ErrorCode::invalid_argument otherwise.
decode::BlobParams parse_blob_size(const std::string& text);  // "gpuvis: <message>" on stderr

// The threshold flags shared by `threshold`, `detect` and later `track`: --method, --window,
// --gate, --tile, --bias, --contrast. Unset flags keep the given defaults.
struct ThresholdFlags {
  std::string method;
  int window = -1, gate = -1, tile = -1, contrast = -1, sharpen = -1;
  float bias = -1;
  CLI::Option* method_option = nullptr;  // to tell a given --method from its default
  void add_to(CLI::App& cmd, const std::string& default_method);
  threshold::Params params(const threshold::Params& defaults) const;
};

// Registers a subcommand's callback; the main program runs it after parsing.
using Command = std::function<int()>;

void register_info(CLI::App& app, Command& run);
void register_threshold(CLI::App& app, Command& run);
void register_detect(CLI::App& app, Command& run);
void register_synth(CLI::App& app, Command& run);
void register_filter(CLI::App& app, Command& run);
void register_segment(CLI::App& app, Command& run);
void register_symbols(CLI::App& app, Command& run);
void register_calibrate(CLI::App& app, Command& run);
void register_track(CLI::App& app, Command& run);
void register_tuio_dump(CLI::App& app, Command& run);
void register_life(CLI::App& app, Command& run);
void register_lab(CLI::App& app, Command& run);

}  // namespace gpuvis::cli

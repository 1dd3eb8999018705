#include "cli_common.hpp"

#include <filesystem>
#include <iostream>

#include "gpuvis/core/error.hpp"
#include "gpuvis/core/parallel.hpp"

namespace gpuvis::cli {

CLI::Option* add_backend_option(CLI::App& cmd, std::string& name) {
  return cmd.add_option("--backend", name, "auto (CUDA when a device is present, else CPU), cpu or cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->default_val("auto");
}

CLI::Option* add_threads_option(CLI::App& cmd, int& n) {
  return cmd.add_option("--threads", n, "CPU worker threads (0 = one per core)")->check(CLI::Range(0, 1024))->default_val(0);
}

Backend choose_backend(const std::string& name) {
  return resolve_backend(parse_backend(name), [](const std::string& why) { notice(why); });
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

void notice(const std::string& message) { std::cerr << "gpuvis: " << message << "\n"; }

}  // namespace gpuvis::cli

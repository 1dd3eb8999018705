// gpuvis: command-line front end. Each subcommand lives in its own cmd_*.cpp.
#include <unistd.h>

#include <csignal>
#include <iostream>

#include "cli_common.hpp"
#include "gpuvis/core/build_info.hpp"
#include "gpuvis/core/error.hpp"
#include "gpuvis/io/image_file.hpp"

namespace {

// Ctrl-C or a kill while an image is being written: the output stays absent (it is renamed into
// place only when complete), and its temporary is removed here. `gpuvis track` and `tuio-dump`
// install their own handlers, which stop them cleanly.
void remove_partial_output_and_die(int sig) {
  if (const char* partial = gpuvis::partial_output()) unlink(partial);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gpuvis;
  std::signal(SIGINT, remove_partial_output_and_die);
  std::signal(SIGTERM, remove_partial_output_and_die);
  CLI::App app{"gpuvis " + version() +
               ": GPU vision toolkit - reacTIVision-compatible fiducial tracking and fast image filters, "
               "on CUDA and CPU.\nRun 'gpuvis COMMAND --help' for a command's options."};
  app.name("gpuvis");
  app.set_version_flag("--version", "gpuvis " + version());
  app.require_subcommand(1);
  cli::Command run;
  cli::register_info(app, run);
  cli::register_threshold(app, run);
  cli::register_detect(app, run);
  cli::register_synth(app, run);
  cli::register_symbols(app, run);
  cli::register_calibrate(app, run);
  cli::register_filter(app, run);
  cli::register_segment(app, run);
  cli::register_track(app, run);
  cli::register_tuio_dump(app, run);
  cli::register_life(app, run);
  cli::register_lab(app, run);

  // A mistyped command (or sub-command, as in 'filter sharpen') should be named as such, not
  // reported as a missing one. `path` is the command the arguments name, whose --help a mistake
  // in its options points to.
  std::string path = "gpuvis";
  {
    CLI::App* current = &app;
    for (int i = 1; i < argc && argv[i][0] != '-'; ++i) {
      const auto subs = current->get_subcommands([](CLI::App*) { return true; });
      if (subs.empty()) break;  // a command's positional arguments follow
      CLI::App* next = nullptr;
      std::string names;
      for (CLI::App* sub : subs) {
        if (sub->get_name() == argv[i]) next = sub;
        names += (names.empty() ? "" : ", ") + sub->get_name();
      }
      if (!next) {
        std::cerr << "gpuvis: error: unknown command '" << (path == "gpuvis" ? "" : path.substr(7) + " ") << argv[i]
                  << "' (" << (path == "gpuvis" ? "commands" : path.substr(7) + " commands") << ": " << names
                  << "; see " << path << " --help)\n";
        return 2;
      }
      current = next;
      path += " " + next->get_name();
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "gpuvis: error: " << e.what() << " (see " << path << " --help)\n";
    return 2;
  }
  try {
    return run ? run() : 0;
  } catch (const Error& e) {
    // A value the command cannot take (a missing OUTPUT, a bandwidth of -1) is the user's to fix
    // from the command's help, as a mistyped option is.
    std::cerr << "gpuvis: error: " << e.what();
    if (e.code() == ErrorCode::invalid_argument && path != "gpuvis") std::cerr << " (see " << path << " --help)";
    std::cerr << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << "gpuvis: error: out of memory\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "gpuvis: error: " << e.what() << "\n";
    return 1;
  }
}

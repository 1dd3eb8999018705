// gpuvis: command-line front end. Each subcommand lives in its own cmd_*.cpp.
#include <iostream>

#include "cli_common.hpp"
#include "gpuvis/core/build_info.hpp"
#include "gpuvis/core/error.hpp"

int main(int argc, char** argv) {
  using namespace gpuvis;
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
  cli::register_filter(app, run);

  // A mistyped command should be named as such, not reported as a missing one.
  if (argc > 1 && argv[1][0] != '-') {
    const std::string name = argv[1];
    bool known = false;
    std::string names;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
      known = known || sub->get_name() == name;
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (!known) {
      std::cerr << "gpuvis: error: unknown command '" << name << "' (commands: " << names << "; see gpuvis --help)\n";
      return 2;
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
    std::cerr << "gpuvis: error: " << e.what() << " (see gpuvis --help)\n";
    return 2;
  }
  try {
    return run ? run() : 0;
  } catch (const Error& e) {
    std::cerr << "gpuvis: error: " << e.what() << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << "gpuvis: error: out of memory\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "gpuvis: error: " << e.what() << "\n";
    return 1;
  }
}

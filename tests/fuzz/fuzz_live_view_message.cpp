// Messages from the live view's page (JSON) as `gpuvis track --view` applies them: settings,
// calibration grid actions, saves. A message is applied, or refused with an error for the page.
#include <filesystem>

#include "fuzz_support.hpp"
#include "track_view.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpuvis;
  if (!output::live_view_available()) return 0;
  static cli::TrackView* view = [] {
    const std::string dir = fuzz::as_file(nullptr, 0, ".view");
    std::filesystem::remove_all(dir);  // a directory a process with the same pid left behind
    std::filesystem::create_directories(dir);
    output::LiveViewParams options;
    options.port = 0;
    cli::TrackViewFiles files;
    files.settings = dir + "/reacTIVision.xml";
    files.grid = dir + "/calibration.grid";
    auto* v = new cli::TrackView(options, cli::TrackSettings{}, files);
    Image<std::uint8_t> frame(640, 480);  // a frame seen: the grid's size follows it
    frame.fill(128);
    v->show(frame.view(), track::Frame{}, pipeline::Detections{}, 0, 0, 0, 0, 0);
    return v;
  }();
  fuzz::expect_clean([&] { view->receive(fuzz::as_text(data, size)); });
  return 0;
}

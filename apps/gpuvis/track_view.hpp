#pragma once
// `gpuvis track --view`: what the live view's page shows (the frame, the binary frame or the
// undistorted frame, the tracked state, per-stage times) and what its controls change
// (reacTIVision's keys, spec §9.4: threshold, equaliser, fingers, blobs, inversion, the calibration
// grid), applied by the tracking loop on its next frame. The transport is output::LiveView.
#include <memory>
#include <optional>
#include <string>

#include "gpuvis/config/reactivision.hpp"
#include "gpuvis/output/live_view.hpp"
#include "gpuvis/pipeline/detector.hpp"
#include "gpuvis/track/tracker.hpp"
#include "stage_stats.hpp"

namespace gpuvis::cli {

// Everything the page can change.
struct TrackSettings {
  pipeline::DetectorParams detector;  // with the equaliser, and the threshold tap for the binary picture
  bool invert_x = false, invert_y = false, invert_angle = false;
};

// Where the page's "save" buttons write (the user confirms overwriting in the page).
struct TrackViewFiles {
  std::string settings = "reacTIVision.xml";  // --config, else ./reacTIVision.xml
  std::string grid = "calibration.grid";      // --grid, else ./calibration.grid
  config::ReacTIVisionConfig base;            // what --config held: saved back with the changes
};

class TrackView {
 public:
  TrackView(const output::LiveViewParams& options, TrackSettings settings, TrackViewFiles files);
  int port() const { return view_->port(); }

  // What the page changed since the last poll().
  struct Changes {
    bool detector = false;     // threshold, fingers, blobs: the detector must be made again
    bool calibration = false;  // the grid: Detector::set_calibration(settings().detector.calibration)
    bool inversion = false;    // TuioSender::set_inversion
    bool equalizer = false;    // Detector::set_equalize(settings().detector.equalize)
    bool recapture = false;    // Detector::recapture_background(): the next frame is the empty table
    bool taps = false;         // Detector::set_taps(settings().detector.taps)
    bool any() const { return detector || calibration || inversion || equalizer || recapture || taps; }
  };
  // Reads the page's messages; on the tracking thread, once per frame.
  Changes poll();
  // What one message from a page changes (poll() applies each received message so). A message
  // that is not understood or asks for a wrong value changes nothing and is answered with an error.
  Changes receive(const std::string& message);
  const TrackSettings& settings() const { return settings_; }

  // After each tracked frame: `frame` is what the detector saw (Detector::received_frame).
  void show(HostView<const std::uint8_t> frame, const track::Frame& tracked, const pipeline::Detections& detections,
            double track_us, double send_us, double latency_us, long dropped, double now);

 private:
  void apply(const std::string& message, Changes& changes);
  void apply_settings(const nlohmann::json& j, Changes& changes);
  void apply_grid(const nlohmann::json& j, Changes& changes);
  void publish_settings();
  void publish_grid();
  void notice(const std::string& kind, const std::string& message);
  void save_settings();

  std::unique_ptr<output::LiveView> view_;
  TrackSettings settings_;
  TrackViewFiles files_;
  std::optional<calibration::CalibrationGrid> grid_;  // kept while switched off
  std::string display_ = "camera";  // camera | binary | undistorted
  int width_ = 0, height_ = 0;      // of the last frame
  StageStats stats_;
  nlohmann::json last_stats_ = nlohmann::json::object();
  double period_start_ = -1, last_state_ = -1;
};

}  // namespace gpuvis::cli

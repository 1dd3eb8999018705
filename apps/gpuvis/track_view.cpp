#include "track_view.hpp"

#include <cmath>
#include <filesystem>
#include <limits>
#include <type_traits>

#include "gpuvis/core/error.hpp"
#include "gpuvis/threshold/threshold.hpp"

namespace gpuvis::cli {
namespace {

using nlohmann::json;

// JSON text for the page. A message may quote what a page sent (an unknown type, a bad value) or a
// path, which need not be UTF-8: such bytes become U+FFFD instead of failing the answer.
std::string to_text(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

constexpr double kStatePeriod = 1.0 / 30;  // the tracked state goes to the page at most 30 times a second

json threshold_json(const threshold::Params& t) {
  return {{"method", std::string(threshold::to_string(t.method))},
          {"bernsen", {{"half_window", t.bernsen.half_window}, {"gate", t.bernsen.gate}}},
          {"tiled", {{"tile", t.tiled.tile}, {"gradient", t.tiled.gradient}}},
          {"bradley_roth", {{"size", t.bradley_roth.size}, {"bias", t.bradley_roth.bias}, {"contrast", t.bradley_roth.contrast}}}};
}

// A number from the page as T: read as a double first, so that a value out of T's range is an error
// here rather than an undefined conversion inside the JSON library. A value of the wrong type
// throws nlohmann's type_error.
template <class T>
T number(const json& value, const char* key) {
  if constexpr (std::is_same_v<T, bool>) {
    return value.get<bool>();
  } else {
    const double v = value.get<double>();
    if (!std::isfinite(v) || v < static_cast<double>(std::numeric_limits<T>::lowest()) || v > static_cast<double>(std::numeric_limits<T>::max()))
      fail(ErrorCode::invalid_argument, std::string(key) + " is out of range");
    return static_cast<T>(v);
  }
}

// Sets `field` from j[key] when present.
template <class T>
void take(const json& j, const char* key, T& field) {
  if (j.contains(key)) field = number<T>(j.at(key), key);
}

void check_range(const char* what, double value, double lo, double hi) {
  if (value < lo || value > hi)
    fail(ErrorCode::invalid_argument, std::string(what) + " must be in " + json(lo).dump() + ".." + json(hi).dump());
}

// The picture of the undistorted (table) frame: each pixel u shows the camera pixel the grid maps
// it to, p = u + G(u / cell) * cell (nearest pixel; black where p leaves the frame).
Image<std::uint8_t> undistorted(const Image<std::uint8_t>& camera, const calibration::CalibrationGrid& grid) {
  const calibration::CalibrationMap map(grid, camera.width(), camera.height());
  const auto& layout = map.layout();
  Image<std::uint8_t> out(camera.width(), camera.height(), camera.channels());
  for (int y = 0; y < out.height(); ++y)
    for (int x = 0; x < out.width(); ++x) {
      const auto g = map.displacement(static_cast<double>(x) / layout.cell_w, static_cast<double>(y) / layout.cell_h);
      const int px = static_cast<int>(std::lround(x + g[0] * layout.cell_w));
      const int py = static_cast<int>(std::lround(y + g[1] * layout.cell_h));
      const bool inside = px >= 0 && py >= 0 && px < camera.width() && py < camera.height();
      for (int c = 0; c < out.channels(); ++c) out(x, y, c) = inside ? camera(px, py, c) : 0;
    }
  return out;
}

}  // namespace

TrackView::TrackView(const output::LiveViewParams& options, TrackSettings settings, TrackViewFiles files)
    : view_(output::open_live_view(options)), settings_(std::move(settings)), files_(std::move(files)) {
  if (settings_.detector.calibration) grid_ = settings_.detector.calibration;
}

TrackView::Changes TrackView::poll() {
  Changes changes;
  for (const auto& message : view_->take_messages()) apply(message, changes);
  return changes;
}

TrackView::Changes TrackView::receive(const std::string& message) {
  Changes changes;
  apply(message, changes);
  return changes;
}

void TrackView::apply(const std::string& message, Changes& changes) {
  try {
    const json j = json::parse(message);
    const std::string type = j.at("type").get<std::string>();
    if (type == "hello") {
      publish_settings();
      publish_grid();
    } else if (type == "settings") {
      apply_settings(j, changes);
    } else if (type == "recapture") {
      changes.recapture = true;
      notice("notice", "background recaptured from the next frame");
    } else if (type == "grid") {
      apply_grid(j, changes);
    } else if (type == "save_settings") {
      save_settings();
    } else {
      notice("error", "unknown message type '" + type + "'");
    }
  } catch (const json::exception& e) {
    notice("error", std::string("message not understood: ") + e.what());
  } catch (const Error& e) {
    notice("error", e.what());
    publish_settings();  // the page shows the values in force again
  }
}

void TrackView::apply_settings(const json& j, Changes& changes) {
  TrackSettings next = settings_;
  auto& det = next.detector;
  if (j.contains("threshold")) {
    const json& t = j.at("threshold");
    if (t.contains("method")) det.threshold.method = threshold::parse_method(t.at("method").get<std::string>());
    if (t.contains("bernsen")) {
      take(t.at("bernsen"), "half_window", det.threshold.bernsen.half_window);
      take(t.at("bernsen"), "gate", det.threshold.bernsen.gate);
    }
    if (t.contains("tiled")) {
      take(t.at("tiled"), "tile", det.threshold.tiled.tile);
      take(t.at("tiled"), "gradient", det.threshold.tiled.gradient);
    }
    if (t.contains("bradley_roth")) {
      take(t.at("bradley_roth"), "size", det.threshold.bradley_roth.size);
      take(t.at("bradley_roth"), "bias", det.threshold.bradley_roth.bias);
      take(t.at("bradley_roth"), "contrast", det.threshold.bradley_roth.contrast);
    }
    threshold::validate(det.threshold);
  }
  if (j.contains("fingers")) {
    const json& f = j.at("fingers");
    take(f, "size", det.fingers.size);
    if (f.contains("sensitivity")) det.fingers.sensitivity = number<int>(f.at("sensitivity"), "sensitivity") / 100.0;
    take(f, "contrast", det.fingers.contrast);
    check_range("finger size", det.fingers.size, 0, 64);  // reacTIVision's F key range
    check_range("finger sensitivity", det.fingers.sensitivity * 100, 0, 200);
    check_range("finger contrast", det.fingers.contrast, 0, 255);
  }
  if (j.contains("blobs")) {
    const json& b = j.at("blobs");
    take(b, "min_size", det.blobs.min_size);
    take(b, "max_size", det.blobs.max_size);
    take(b, "object_blobs", det.blobs.object_blobs);
    take(b, "finger_blobs", det.blobs.finger_blobs);
    check_range("blob min size", det.blobs.min_size, 0, 1 << 20);
    check_range("blob max size", det.blobs.max_size, 0, 1 << 20);
    if (det.blobs.max_size > 0 && det.blobs.max_size < det.blobs.min_size)
      fail(ErrorCode::invalid_argument, "blob max size must be at least the min size (or 0: no blobs)");
  }
  take(j, "equalize", next.detector.equalize);
  if (j.contains("invert")) {
    take(j.at("invert"), "x", next.invert_x);
    take(j.at("invert"), "y", next.invert_y);
    take(j.at("invert"), "angle", next.invert_angle);
  }
  if (j.contains("display")) {
    const std::string display = j.at("display").get<std::string>();
    if (display != "camera" && display != "binary" && display != "undistorted")
      fail(ErrorCode::invalid_argument, "display must be camera, binary or undistorted");
    display_ = display;
    next.detector.taps.threshold = display_ == "binary";
  }
  const auto& old = settings_.detector;
  changes.detector |= threshold_json(det.threshold) != threshold_json(old.threshold) || det.fingers.size != old.fingers.size ||
                      det.fingers.sensitivity != old.fingers.sensitivity || det.fingers.contrast != old.fingers.contrast ||
                      det.blobs.min_size != old.blobs.min_size || det.blobs.max_size != old.blobs.max_size ||
                      det.blobs.object_blobs != old.blobs.object_blobs || det.blobs.finger_blobs != old.blobs.finger_blobs;
  changes.inversion |= next.invert_x != settings_.invert_x || next.invert_y != settings_.invert_y ||
                       next.invert_angle != settings_.invert_angle;
  changes.equalizer |= next.detector.equalize != settings_.detector.equalize;
  changes.recapture |= next.detector.equalize && !settings_.detector.equalize;  // switching the equaliser on takes a new background
  changes.taps |= next.detector.taps.threshold != settings_.detector.taps.threshold;
  settings_ = std::move(next);
  publish_settings();
}

void TrackView::apply_grid(const json& j, Changes& changes) {
  const std::string action = j.at("action").get<std::string>();
  auto require_frame = [&] {
    if (width_ == 0) fail(ErrorCode::invalid_argument, "no frame yet: the grid's size follows the frame's");
  };
  if (action == "on") {
    require_frame();
    if (!grid_ || calibration::grid_layout(width_, height_).entries() != static_cast<int>(grid_->points.size()))
      grid_ = calibration::CalibrationGrid::zero(width_, height_);
    settings_.detector.calibration = grid_;
  } else if (action == "off") {
    settings_.detector.calibration.reset();
  } else if (action == "point") {
    require_frame();
    if (!settings_.detector.calibration) fail(ErrorCode::invalid_argument, "switch the calibration grid on first");
    const auto layout = calibration::grid_layout(width_, height_);
    const int index = number<int>(j.at("index"), "index");
    const double dx = number<double>(j.at("dx"), "dx"), dy = number<double>(j.at("dy"), "dy");
    if (index < 0 || index >= layout.gx * layout.gy) fail(ErrorCode::invalid_argument, "grid point out of range");
    const double limit = calibration::CalibrationGrid::kMaxDisplacement;
    check_range("a grid point's displacement", std::max(std::abs(dx), std::abs(dy)), 0, limit);
    grid_->points[static_cast<std::size_t>(index)] = {dx, dy};
    settings_.detector.calibration = grid_;
  } else if (action == "reset") {
    require_frame();
    grid_ = calibration::CalibrationGrid::zero(width_, height_);
    settings_.detector.calibration = grid_;
  } else if (action == "revert") {
    if (!std::filesystem::exists(files_.grid)) fail(ErrorCode::io, files_.grid + " does not exist yet: nothing to revert to");
    grid_ = calibration::CalibrationGrid::read(files_.grid);
    settings_.detector.calibration = grid_;
  } else if (action == "save") {
    if (!grid_) fail(ErrorCode::invalid_argument, "no grid to save: switch the calibration grid on first");
    grid_->write(files_.grid);
    notice("notice", "grid saved to " + files_.grid);
  } else {
    fail(ErrorCode::invalid_argument, "unknown grid action '" + action + "'");
  }
  if (settings_.detector.calibration && width_ > 0)  // a grid for another frame size is an error here, not per frame
    calibration::CalibrationMap(*settings_.detector.calibration, width_, height_);
  changes.calibration = true;
  publish_grid();
  publish_settings();
}

void TrackView::save_settings() {
  config::ReacTIVisionConfig cfg = files_.base;
  cfg.detector = settings_.detector;
  cfg.tuio_options.invert_x = settings_.invert_x;
  cfg.tuio_options.invert_y = settings_.invert_y;
  cfg.tuio_options.invert_angle = settings_.invert_angle;
  std::string grid;
  if (settings_.detector.calibration && std::filesystem::exists(files_.grid)) {
    // Relative to the XML's folder, as load_reactivision_xml reads it.
    const auto folder = std::filesystem::absolute(files_.settings).parent_path();
    grid = std::filesystem::absolute(files_.grid).lexically_relative(folder).string();
  }
  config::save_reactivision_xml(files_.settings, cfg, grid);
  notice("notice", "settings saved to " + files_.settings);
  publish_settings();
}

void TrackView::publish_settings() {
  const auto& det = settings_.detector;
  const json j = {
      {"type", "settings"},
      {"threshold", threshold_json(det.threshold)},
      {"fingers",
       {{"size", det.fingers.size},
        {"sensitivity", static_cast<int>(std::lround(100 * det.fingers.sensitivity))},
        {"contrast", det.fingers.contrast}}},
      {"blobs",
       {{"min_size", det.blobs.min_size},
        {"max_size", det.blobs.max_size},
        {"object_blobs", det.blobs.object_blobs},
        {"finger_blobs", det.blobs.finger_blobs}}},
      {"equalize", settings_.detector.equalize},
      {"invert", {{"x", settings_.invert_x}, {"y", settings_.invert_y}, {"angle", settings_.invert_angle}}},
      {"display", display_},
      {"backend", std::string(to_string(det.backend))},
      {"files",
       {{"settings", files_.settings},
        {"settings_exists", std::filesystem::exists(files_.settings)},
        {"grid", files_.grid},
        {"grid_exists", std::filesystem::exists(files_.grid)}}}};
  view_->publish("settings", to_text(j));
}

void TrackView::publish_grid() {
  json j = {{"type", "grid"}, {"on", settings_.detector.calibration.has_value()}};
  if (width_ > 0) {
    const auto layout = calibration::grid_layout(width_, height_);
    j["gx"] = layout.gx;
    j["gy"] = layout.gy;
    j["cell_w"] = layout.cell_w;
    j["cell_h"] = layout.cell_h;
  }
  json points = json::array();
  if (grid_)
    for (const auto& p : grid_->points) points.push_back({p[0], p[1]});
  j["points"] = points;
  view_->publish("grid", to_text(j));
}

void TrackView::notice(const std::string& kind, const std::string& message) {
  view_->publish(kind, to_text(json{{"type", kind}, {"message", message}}));
}

void TrackView::show(HostView<const std::uint8_t> frame, const track::Frame& tracked, const pipeline::Detections& detections,
                     double track_us, double send_us, double latency_us, long dropped, double now) {
  if (frame.width != width_ || frame.height != height_) {
    width_ = frame.width;
    height_ = frame.height;
    publish_grid();
  }
  stats_.add(detections, track_us, send_us, latency_us);
  if (period_start_ < 0) period_start_ = now;
  if (now - period_start_ >= 1.0) {
    last_stats_ = stats_.take_json(now - period_start_, dropped);
    period_start_ = now;
  }
  if (view_->clients() == 0) return;
  if (view_->wants_picture()) {
    if (display_ == "binary" && !detections.binary.empty()) {
      view_->offer_picture(detections.binary);  // the backend's own (the threshold tap)
    } else if (display_ == "undistorted" && settings_.detector.calibration) {
      view_->offer_picture(frame, [grid = *settings_.detector.calibration](Image<std::uint8_t> grey) {
        return undistorted(grey, grid);
      });
    } else {
      view_->offer_picture(frame);
    }
  }
  if (now - last_state_ < kStatePeriod) return;
  last_state_ = now;
  json objects = json::array(), cursors = json::array(), blobs = json::array();
  for (const auto& o : tracked.objects)
    objects.push_back({{"session", o.session_id}, {"id", o.symbol_id}, {"x", o.m.x}, {"y", o.m.y}, {"angle", o.angle}});
  for (const auto& c : tracked.cursors)
    if (c.visible) cursors.push_back({{"session", c.session_id}, {"id", c.cursor_id}, {"x", c.m.x}, {"y", c.m.y}});
  for (const auto& b : tracked.blobs)
    if (b.visible)
      blobs.push_back({{"session", b.session_id}, {"x", b.m.x}, {"y", b.m.y}, {"angle", b.angle}, {"width", b.width},
                       {"height", b.height}});
  const json state = {{"type", "state"},   {"fseq", tracked.fseq}, {"width", width_},  {"height", height_},
                      {"objects", objects}, {"cursors", cursors},   {"blobs", blobs}, {"stats", last_stats_}};
  view_->publish("state", to_text(state));
}

}  // namespace gpuvis::cli

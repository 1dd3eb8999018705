// gpuvis track: frames from a source -> detection -> tracking -> TUIO 1.1, with JSON and stats.
#include <algorithm>
#include <cctype>
#include <csignal>
#include <deque>
#include <filesystem>
#include <sstream>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli_common.hpp"
#include "stage_stats.hpp"
#include "track_view.hpp"
#include "gpuvis/config/camera.hpp"
#include "gpuvis/core/parallel.hpp"
#include "gpuvis/config/reactivision.hpp"
#include "gpuvis/io/image_file.hpp"
#include "gpuvis/output/tuio.hpp"
#include "gpuvis/pipeline/detector.hpp"
#include "gpuvis/source/frame_source.hpp"
#include "gpuvis/synth/synth_source.hpp"
#include "gpuvis/track/tracker.hpp"

namespace gpuvis::cli {
namespace {

std::atomic<bool> g_stop{false};
void on_signal(int) { g_stop = true; }

struct TrackArgs {
  int threads = 0, max_fid = 0;
  bool yamaarashi = false, mirror = false;
  std::string grid;
  std::string tuio_version = "1.1";
  CLI::Option* max_fid_opt = nullptr;
  CLI::Option *sensitivity_opt = nullptr, *contrast_opt = nullptr;
  std::string smooth;
  CLI::Option* smooth_opt = nullptr;
  std::string camera_config;
  std::string folder, video, camera_size, trees = "default", backend = "auto", source_name = "gpuvis", invert, blob_size, config;
  int camera = -1, synth = -1;
  double camera_fps = 0;
  CLI::Option *trees_opt = nullptr, *finger_opt = nullptr, *source_opt = nullptr;
  std::vector<std::string> tuio;
  ThresholdFlags options;
  decode::FingerParams fingers;
  double fps = 0;
  long long frames = 0;  // stop after this many tracked frames (0: when the source ends)
  bool loop = false, json = false, stats = false, headless = false, no_tuio = false, equalize = false, no_second_look = false;
  bool object_blobs = false, finger_blobs = false;
  std::string background;
  std::string view;  // --view [ADDR:]PORT
  std::string view_token;
};
TrackArgs a;

nlohmann::json frame_json(const track::Frame& f) {
  nlohmann::json objs = nlohmann::json::array(), curs = nlohmann::json::array(), blbs = nlohmann::json::array();
  for (const auto& o : f.objects)
    objs.push_back({{"session", o.session_id}, {"id", o.symbol_id}, {"x", o.m.x}, {"y", o.m.y}, {"angle", o.angle},
                    {"vx", o.m.vx}, {"vy", o.m.vy}, {"rotation_speed", o.rotation_speed}, {"updated", o.updated}});
  for (const auto& c : f.cursors)
    if (c.visible) curs.push_back({{"session", c.session_id}, {"cursor", c.cursor_id}, {"x", c.m.x}, {"y", c.m.y}});
  for (const auto& b : f.blobs) {
    if (!b.visible) continue;
    nlohmann::json j = {{"session", b.session_id}, {"blob", b.blob_id}, {"x", b.m.x},         {"y", b.m.y},
                        {"angle", b.angle},        {"width", b.width}, {"height", b.height}, {"area", b.area}};
    if (b.owner != track::BlobOwner::none) j["of"] = b.owner == track::BlobOwner::object ? "object" : "cursor";
    blbs.push_back(j);
  }
  return {{"fseq", f.fseq}, {"time", f.time}, {"objects", objs}, {"cursors", curs}, {"blobs", blbs}};
}

// reacTIVision.xml first, then the flags that were given on the command line.
pipeline::DetectorParams detector_config(const config::ReacTIVisionConfig& file_cfg) {
  pipeline::DetectorParams config = a.config.empty() ? pipeline::DetectorParams{} : file_cfg.detector;
  config.threshold = a.options.params(config.threshold);
  if (a.config.empty() || a.trees_opt->count()) config.trees = a.trees;
  if (a.config.empty() || a.max_fid_opt->count()) config.max_fid = a.max_fid;
  config.yamaarashi = config.yamaarashi || a.yamaarashi;
  config.mirror = config.mirror || a.mirror;
  if (a.config.empty() || a.finger_opt->count()) config.fingers.size = a.fingers.size;
  if (a.config.empty() || a.sensitivity_opt->count()) config.fingers.sensitivity = a.fingers.sensitivity;
  if (a.config.empty() || a.contrast_opt->count()) config.fingers.contrast = a.fingers.contrast;
  if (!a.blob_size.empty()) {
    const auto sizes = parse_blob_size(a.blob_size);
    config.blobs.min_size = sizes.min_size;
    config.blobs.max_size = sizes.max_size;
  }
  config.second_look.enabled = !a.no_second_look;
  config.equalize = config.equalize || a.equalize || !a.background.empty();
  if (!a.background.empty()) config.background = std::make_shared<const Image<std::uint8_t>>(read_grey8(a.background));
  config.blobs.object_blobs = config.blobs.object_blobs || a.object_blobs;
  config.blobs.finger_blobs = config.blobs.finger_blobs || a.finger_blobs;
  if (!a.grid.empty()) {
    config.calibration = calibration::CalibrationGrid::read(a.grid);
  } else if (!a.config.empty() && !config.calibration && std::filesystem::exists("calibration.grid")) {
    // reacTIVision reads ./calibration.grid when its XML names none.
    notice("using ./calibration.grid (reacTIVision's default grid file)");
    config.calibration = calibration::CalibrationGrid::read("calibration.grid");
  }
  decode::TreeSet::load(config.trees);  // report a bad tree file before starting
  config.backend = choose_backend(a.backend);
  config.device_times = a.stats;  // only --stats reports them (they add latency)
  return config;
}

output::TuioParams tuio_options(const config::ReacTIVisionConfig& file_cfg) {
  output::TuioParams options = file_cfg.tuio_options;
  const std::string trees = a.config.empty() || a.trees_opt->count() ? a.trees : file_cfg.detector.trees;
  if (trees == "small") options.symbol_type = "fidtrk/12";
  if (a.config.empty() || a.source_opt->count()) options.source = a.source_name;
  for (char c : a.invert) {
    if (c == 'x') options.invert_x = true;
    else if (c == 'y') options.invert_y = true;
    else if (c == 'a') options.invert_angle = true;
    else fail(ErrorCode::invalid_argument, "--invert takes the letters x, y and a, got '" + a.invert + "'");
  }
  return options;
}

std::vector<output::TuioTarget> tuio_targets(const config::ReacTIVisionConfig& file_cfg) {
  std::vector<output::TuioTarget> targets;
  const int version = a.tuio_version == "2" || a.tuio_version == "2.0" ? 2 : 1;
  for (const auto& t : a.tuio) targets.push_back(output::parse_tuio_target(t, version));
  if (targets.empty()) targets = file_cfg.tuio;
  if (targets.empty()) {
    targets.push_back({});
    targets.back().version = version;
  }
  return targets;
}

// The source: a flag, else camera.xml (--camera-config, or reacTIVision.xml's <camera config>).
std::unique_ptr<source::FrameSource> open_source(const config::ReacTIVisionConfig& file_cfg) {
  const int sources = !a.folder.empty() + !a.video.empty() + (a.camera >= 0) + !a.camera_config.empty() + (a.synth >= 0);
  require(sources <= 1, "give only one of --folder, --video, --camera, --camera-config and --synth");
  int cam_w = 0, cam_h = 0;
  if (!a.camera_size.empty() && (std::sscanf(a.camera_size.c_str(), "%dx%d", &cam_w, &cam_h) != 2 || cam_w < 1 || cam_h < 1))
    fail(ErrorCode::invalid_argument, "--camera-size must be WxH, got '" + a.camera_size + "'");
  std::string camera_xml = a.camera_config;
  if (sources == 0 && !file_cfg.camera_config.empty())
    camera_xml = file_cfg.camera_config == "default" ? config::find_camera_xml() : file_cfg.camera_config;
  require(sources == 1 || !camera_xml.empty(),
          "track needs a frame source: --folder DIR, --video FILE, --camera N, --camera-config camera.xml or --synth N");
  if (!a.folder.empty()) return source::make_folder_source(a.folder, a.loop, [](const std::string& w) { notice(w); });
  if (!a.video.empty()) return source::make_video_source(a.video, a.loop);
  if (a.synth >= 0) {
    synth::SceneParams q;  // a table with symbols and fingertips that move and turn
    q.symbols = 6;
    q.fingers = 3;
    q.speed = 1.5;
    q.spin = 0.02;
    return synth::make_synth_source(data_dir() + "/amoeba/symbols", q, a.synth);
  }
  if (a.camera >= 0) return source::make_camera_source({a.camera, cam_w, cam_h, a.camera_fps, "", {}});
  const auto cam = config::load_camera_xml(camera_xml);
  for (const auto& w : cam.warnings) notice(w);
  return config::make_camera_xml_source(cam, a.loop);
}

track::TrackerParams tracker_params(const config::ReacTIVisionConfig& file_cfg) {
  track::TrackerParams params = file_cfg.tracker;
  if (!a.smooth_opt->count()) return params;
  params.smooth_objects = params.smooth_cursors = params.smooth_blobs = false;
  std::stringstream parts(a.smooth);
  std::string part;
  while (std::getline(parts, part, ',')) {
    if (part == "fiducial") params.smooth_objects = true;
    else if (part == "finger") params.smooth_cursors = true;
    else if (part == "blob") params.smooth_blobs = true;
    else if (part != "none") fail(ErrorCode::invalid_argument, "--smooth takes fiducial, finger, blob or none, got '" + part + "'");
  }
  return params;
}

// The live view (--view), with what the page can change and where it saves.
std::unique_ptr<TrackView> open_view(const pipeline::DetectorParams& config, const output::TuioParams& options,
                                     const config::ReacTIVisionConfig& file_cfg) {
  TrackViewFiles files;
  if (!a.config.empty()) {
    files.settings = a.config;
    files.base = file_cfg;
  }
  if (!a.grid.empty()) files.grid = a.grid;
  output::LiveViewParams view_options = output::parse_live_view_address(a.view);
  view_options.token = a.view_token;
  if (view_options.token.empty() && !output::is_loopback(view_options.address)) view_options.token = output::make_view_token();
  auto view = std::make_unique<TrackView>(view_options, TrackSettings{config, options.invert_x, options.invert_y, options.invert_angle},
                                          std::move(files));
  std::cerr << "gpuvis: live view on http://" << view_options.address << ":" << view->port() << "/";
  if (!view_options.token.empty()) std::cerr << "?token=" << view_options.token << " (open this address: the token is needed to see frames or change settings)";
  std::cerr << "\n" << std::flush;
  return view;
}

// The live view's changes, applied from this frame on. A new detector (threshold, fingers, blobs)
// waits until no frame is in flight: `rebuild` says one is due.
void apply_view_changes(TrackView& view, pipeline::Detector& detector, output::TuioSender* tuio, bool& rebuild) {
  const auto changes = view.poll();
  rebuild |= changes.detector;
  const auto& s = view.settings();
  if (changes.calibration) detector.set_calibration(s.detector.calibration);
  if (changes.inversion && tuio) tuio->set_inversion(s.invert_x, s.invert_y, s.invert_angle);
  if (changes.equalizer) detector.set_equalize(s.detector.equalize);
  if (changes.recapture) detector.recapture_background();  // the next frame becomes the empty table
  if (changes.taps) detector.set_taps(s.detector.taps);
}

// The loop: source -> detector (equaliser, stages, second look) -> tracker -> TUIO / JSON / live
// view, until the source ends or a signal arrives.
int run_track() {
  config::ReacTIVisionConfig file_cfg;
  if (!a.config.empty()) {
    file_cfg = config::load_reactivision_xml(a.config);
    for (const auto& w : file_cfg.warnings) notice(w);
  }
  // --threads, else reacTIVision.xml's <threshold threads>; results do not depend on it.
  if (const int threads = a.threads ? a.threads : file_cfg.threads) set_num_threads(threads);
  const auto options = tuio_options(file_cfg);
  const auto targets = tuio_targets(file_cfg);
  auto source = open_source(file_cfg);
  pipeline::DetectorParams config = detector_config(file_cfg);
  // Ctrl-C stops cleanly from here on: before the live view's address is printed, which is when a
  // user (or a test) may press it while the detector is still being built.
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  std::unique_ptr<TrackView> view;
  if (!a.view.empty()) {
    config.device_times = true;  // the page shows the per-stage times
    view = open_view(config, options, file_cfg);
  }
  auto detector = std::make_unique<pipeline::Detector>(config);
  track::Tracker tracker(tracker_params(file_cfg));
  std::unique_ptr<output::TuioSender> tuio;
  if (!a.no_tuio) {
    tuio = output::make_tuio_sender(targets, options);
    tuio->send_empty(-1);
  }
  // Recorded and generated frames (a folder, a video file, --synth) that are delivered as fast as
  // they are processed carry no time of their own: the tracker's clock is then the frame's place
  // in the sequence at a nominal 60 Hz, so motion prediction, the velocities sent and the JSON
  // times do not depend on how busy this machine is. Cameras, and any source paced by --fps, use
  // the time each frame arrived.
  const bool sequence_clock = a.fps == 0 && (!a.folder.empty() || !a.video.empty() || a.synth >= 0);
  constexpr double kSequenceRate = 60.0;
  source::CaptureThread capture(std::move(source), a.fps);
  Image<std::uint8_t> frame;
  double arrival = 0, last_report = source::now_seconds();
  std::deque<double> arrivals;  // of the frames in flight, oldest first
  auto submit = [&] {
    detector->submit(frame.view());
    arrivals.push_back(arrival);
  };
  StageStats stats;
  std::vector<decode::ExpectedSymbol> expected;
  long long tracked = 0;
  bool rebuild_detector = false;
  while (!g_stop && (a.frames == 0 || tracked < a.frames)) {
    if (view) apply_view_changes(*view, *detector, tuio.get(), rebuild_detector);
    if (rebuild_detector && detector->in_flight() == 0) {
      pipeline::DetectorParams next = view->settings().detector;
      next.background = detector->background();  // the empty table stays as captured
      detector = std::make_unique<pipeline::Detector>(std::move(next));
      rebuild_detector = false;
    }
    if (detector->in_flight() == 0) {
      if (!capture.take(frame, arrival)) break;
      submit();
    }
    // CUDA: while the GPU works on this frame, the next one, if it has arrived already, goes up and
    // computes beside it, so a fast source keeps the GPU busy. A frame is never waited for here:
    // with a camera slower than the GPU, each frame is tracked as soon as it is done.
    if (!rebuild_detector && detector->overlaps() && detector->in_flight() < pipeline::Detector::kMaxInFlight &&
        (a.frames == 0 || tracked + detector->in_flight() < a.frames) && capture.try_take(frame, arrival))
      submit();
    // The second look also looks where the tracker expects its symbols in this frame.
    tracker.expected_symbols(expected);
    detector->expect(expected);
    const auto& d = detector->receive();
    const double frame_arrival = arrivals.front();
    arrivals.pop_front();
    const double t0 = source::now_seconds();
    const auto& f = tracker.update(d, sequence_clock ? static_cast<double>(tracked) / kSequenceRate : frame_arrival);
    ++tracked;
    const double t1 = source::now_seconds();
    if (tuio) tuio->send(f);
    const double sent = source::now_seconds();
    if (a.json) std::cout << frame_json(f).dump() << "\n" << std::flush;
    stats.add(d, (t1 - t0) * 1e6, (sent - t1) * 1e6, (sent - frame_arrival) * 1e6);
    // With two CUDA frames in flight `frame` is already the next one: the page's picture may lead
    // its detections by a frame, which nobody sees at 15 pictures a second.
    if (view) view->show(detector->received_frame(), f, d, (t1 - t0) * 1e6, (sent - t1) * 1e6, (sent - frame_arrival) * 1e6, capture.dropped(), sent);
    if (a.stats && sent - last_report >= 1.0) {
      stats.print(sent - last_report, capture.dropped());
      last_report = sent;
    }
  }
  const std::string err = capture.error();
  if (tuio) tuio->send_empty(-1);  // shutdown: empty alive lists for every profile (spec §8.5)
  // Frames still in flight (a signal arrived) are finished without being tracked.
  while (detector->in_flight() > 0) detector->receive();
  if (a.stats && stats.frames())
    std::cerr << "gpuvis: " << capture.captured() << " frames captured, " << capture.dropped() << " dropped, " << tracked
              << " tracked\n";
  if (!err.empty()) fail(ErrorCode::io, "frame source stopped: " + err);
  return 0;
}

}  // namespace

void register_track(CLI::App& app, Command& run) {
  auto* cmd = app.add_subcommand("track", "Track fiducials, fingers and blobs over time and send TUIO 1.1");
  cmd->footer(
      "Frames come from --folder (image files in name order), --video FILE, --camera N, a camera.xml (--camera-config, or\n"
      "reacTIVision.xml's <camera config>) or the scene generator (--synth N). --equalize subtracts the empty table. Each frame is detected (threshold, segment,\n"
      "decode), tracked (session IDs, motion) and sent as TUIO 1.1 bundles to every --tuio target\n"
      "(default udp:127.0.0.1:3333):\n"
      "  udp:HOST:PORT     datagrams to a receiver\n"
      "  tcp:HOST:PORT     a TCP connection to a receiver (4-byte length before each packet; retried while absent)\n"
      "  tcp:server:PORT   a TCP server; each connected client gets every packet\n"
      "  web:PORT          a WebSocket server (binary frames), for TUIO clients in a browser\n"
      "Servers listen on 127.0.0.1 only; name an address to open them to the network (tcp:server:0.0.0.0:PORT, web:0.0.0.0:PORT).\n"
      "--json prints the tracked state per frame; --stats prints per-stage times once a second.\n"
      "Ctrl-C stops cleanly (empty alive lists are sent).");
  cmd->add_option("--config", a.config, "reacTIVision.xml: tree set, threshold, finger, blob, TUIO targets, inversion "
                                        "(command-line flags override it)");
  cmd->add_option("--folder", a.folder, "Folder of frames (sorted by name)");
  cmd->add_option("--video", a.video, "Video file (any format FFmpeg/OpenCV reads)");
  cmd->add_option("--camera", a.camera, "Camera number N (/dev/videoN)")->check(CLI::Range(0, 255));
  cmd->add_option("--synth", a.synth,
                  "Generated frames instead of a camera: N frames of moving symbols and fingers (0 = endless)")
      ->check(CLI::Range(0, 1 << 30));
  cmd->add_option("--camera-config", a.camera_config,
                  "camera.xml (reacTIVision's portvideo format): driver, id, capture size/fps/format, settings, crop");
  cmd->add_option("--camera-size", a.camera_size, "Camera capture size WxH (default: the camera's)");
  cmd->add_option("--camera-fps", a.camera_fps, "Camera capture rate (default: the camera's)")->check(CLI::Range(0.0, 1000.0));
  cmd->add_flag("--loop", a.loop, "Start the folder or video again at its end");
  cmd->add_option("--frames", a.frames, "Stop after this many frames (0 = when the source ends)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--fps", a.fps, "Deliver frames at this rate, dropping what processing cannot keep up with (0 = every frame)")
      ->default_val(0);
  cmd->add_option("--tuio", a.tuio,
                  "TUIO target udp:HOST:PORT, tcp:HOST:PORT, tcp:server:PORT or web:PORT (repeatable); add @2 for TUIO 2.0, "
                  "e.g. web:8080@2");
  cmd->add_option("--tuio-version", a.tuio_version, "TUIO version of the targets without @: 1.1 or 2")
      ->check(CLI::IsMember({"1", "1.1", "2", "2.0"}))
      ->default_val("1.1");
  cmd->add_flag("--no-tuio", a.no_tuio, "Do not send TUIO");
  cmd->add_flag("--no-second-look", a.no_second_look,
                "Do not look again at candidates that did not decode (by default their motion blur is estimated and taken out, "
                "and they are decoded again)");
  a.source_opt = cmd->add_option("--source-name", a.source_name, "TUIO source name")->default_val("gpuvis");
  a.smooth_opt = cmd->add_option("--smooth", a.smooth,
                                 "1-euro smoothing for any of: fiducial, finger, blob (comma separated; 'none' for none)");
  cmd->add_option("--invert", a.invert, "Invert x, y and/or the angle in TUIO output: any of the letters x, y, a");
  a.trees_opt = cmd->add_option("--trees", a.trees, "Tree set: default, small, mini or a .trees file")->default_val("default");
  a.max_fid_opt = cmd->add_option("--max-fid", a.max_fid,
                                  "Symbols with a higher ID are only fuzzy candidates, as reacTIVision's max_fid (0 = no limit)")
                      ->check(CLI::NonNegativeNumber)
                      ->default_val(0);
  a.options.add_to(*cmd, "bernsen");
  add_finger_options(*cmd, a.fingers, a.finger_opt, a.sensitivity_opt, a.contrast_opt);
  add_yamaarashi_options(*cmd, a.yamaarashi, a.mirror);
  cmd->add_option("--blob-size", a.blob_size, "Track plain white blobs with MIN:MAX pixels size");
  cmd->add_flag("--object-blobs", a.object_blobs,
                "Also send each symbol's root region as a /tuio/2Dblb blob with its object's session ID (obj_blob)");
  cmd->add_flag("--finger-blobs", a.finger_blobs,
                "Also send each finger as a /tuio/2Dblb blob with its cursor's session ID (cur_blob)");
  add_backend_option(*cmd, a.backend);
  add_threads_option(*cmd, a.threads);
  cmd->add_flag("--equalize", a.equalize,
                "Subtract the background (reacTIVision's equaliser): the first frame is taken as the empty table");
  cmd->add_option("--background", a.background, "Subtract this image of the empty table instead of the first frame")
      ->check(CLI::ExistingFile);
  cmd->add_option("--grid", a.grid,
                  "reacTIVision calibration.grid: positions and angles in table (undistorted) pixels "
                  "(default: reacTIVision.xml's <calibration grid>)")
      ->check(CLI::ExistingFile);
  cmd->add_flag("--json", a.json, "Print the tracked state of every frame as a JSON line");
  cmd->add_flag("--stats", a.stats, "Print per-stage times once a second");
  cmd->add_option("--view", a.view,
                  "Live view in the browser at http://127.0.0.1:PORT/ ([ADDR:]PORT; name an address, e.g. 0.0.0.0:8080, to open it "
                  "to the network): the frames, what was found, per-stage times, reacTIVision's settings and the calibration grid");
  cmd->add_option("--view-token", a.view_token,
                  "The live view's token (letters, digits, - and _): the page's address must carry ?token=TOKEN to see frames "
                  "or change settings. Made at random and printed when --view names an address beyond 127.0.0.1")
      ->check([](const std::string& t) {
        const bool ok = !t.empty() && t.size() <= 128 &&
                        std::all_of(t.begin(), t.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_'; });
        return ok ? std::string() : std::string("a token is 1-128 letters, digits, - or _");
      });
  cmd->add_flag("--headless", a.headless, "No display window (gpuvis has none; see --view): accepted for reacTIVision users");
  cmd->callback([&run] { run = run_track; });
}

void register_tuio_dump(CLI::App& app, Command& run) {
  static int port = 3333;
  static double seconds = 0;
  static bool tcp = false;
  static std::string address = "127.0.0.1";
  auto* cmd = app.add_subcommand("tuio-dump", "Print the TUIO/OSC messages arriving on a UDP (or TCP) port");
  cmd->add_option("--port", port, "Port to listen on")->check(CLI::Range(1, 65535))->default_val(3333);
  cmd->add_option("--address", address,
                  "Address to listen on: 127.0.0.1 (this machine only) unless another is named, e.g. 0.0.0.0 for every interface")
      ->default_val("127.0.0.1");
  cmd->add_flag("--tcp", tcp, "Listen for TCP connections (length-prefixed packets, as `track --tuio tcp:HOST:PORT` sends)");
  cmd->add_option("--seconds", seconds, "Stop after this long (0 = until Ctrl-C)")->default_val(0);
  cmd->callback([&run] {
    run = [] {
      std::signal(SIGINT, on_signal);
      std::signal(SIGTERM, on_signal);
      output::dump_osc(address, port, tcp, g_stop, std::cout, seconds);
      return 0;
    };
  });
}

}  // namespace gpuvis::cli

// The tracker end to end: generated moving symbols -> gpuvis track -> TUIO over UDP -> liblo's
// own oscdump (an OSC receiver nobody here wrote) -> checks on what arrived.
#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <thread>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "gpuvis/io/image_file.hpp"
#include "gpuvis/output/live_view.hpp"
#include "gpuvis/output/tuio.hpp"
#include "gpuvis/pipeline/detector.hpp"
#include "gpuvis/synth/scene.hpp"
#include "gpuvis/threshold/threshold.hpp"
#include "threshold/cpu/threshold_cpu.hpp"
#include "gpuvis/track/tracker.hpp"
#include "test_support.hpp"

using namespace gpuvis;

namespace {
std::string quote(const std::string& s) { return "'" + s + "'"; }
bool have_oscdump() { return std::system("command -v oscdump > /dev/null 2>&1") == 0; }

// A receiver (oscdump, tuio-dump) run in the background with its output in `out`; stop() ends it
// with SIGTERM.
struct Background {
  int pid = 0;
  Background(const std::string& command, const std::string& out, const std::string& name) {
    const std::string pidfile = test::temp_path(name + ".pid");
    if (std::system(("(" + command + " > " + quote(out) + " 2>&1 & echo $! > " + quote(pidfile) + ")").c_str()) == 0)
      std::ifstream(pidfile) >> pid;
  }
  void stop() {
    if (pid > 0) kill(pid, SIGTERM);
    pid = 0;
  }
  ~Background() { stop(); }
};

// Waits (up to 10 s: sanitized builds and loaded machines start slowly) until `done` holds.
template <class Done>
void wait_for(Done done) {
  for (int i = 0; i < 200 && !done(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
}

// Which local addresses have a socket on `port` in /proc/net/<table> (the kernel's own table, e.g.
// "udp" or "tcp6"): 127.0.0.1, and any other.
struct Bound {
  bool loopback = false, other = false;
};
Bound bound_on(const std::string& table, int port) {
  std::ifstream in("/proc/net/" + table);
  std::string line, local;
  char want[16];
  std::snprintf(want, sizeof want, ":%04X", port);
  Bound b;
  std::getline(in, line);
  while (std::getline(in, line)) {
    std::istringstream ss(line);
    std::string slot;
    ss >> slot >> local;
    if (local.size() < 5 || local.substr(local.size() - 5) != want) continue;
    (local.rfind("0100007F:", 0) == 0 ? b.loopback : b.other) = true;
  }
  return b;
}

// Whether any socket, IPv4 or IPv6, is bound to `port` for `transport` ("udp" or "tcp").
bool bound_anywhere(const std::string& transport, int port) {
  for (const std::string& table : {transport, transport + "6"}) {
    const Bound b = bound_on(table, port);
    if (b.loopback || b.other) return true;
  }
  return false;
}

// How often `text` occurs in the file at `path`.
int occurrences(const std::string& path, const std::string& text) {
  std::ifstream in(path);
  const std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  int n = 0;
  for (auto at = all.find(text); at != std::string::npos; at = all.find(text, at + 1)) ++n;
  return n;
}

struct Truth {
  std::vector<std::map<int, std::pair<double, double>>> frames;  // per frame: id -> (x, y) pixels
};

Truth read_truth(const std::string& path) {
  Truth t;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::map<int, std::pair<double, double>> f;
    std::size_t pos = 0;
    while ((pos = line.find("\"id\":", pos)) != std::string::npos) {
      const int id = std::stoi(line.substr(pos + 5));
      const auto xp = line.find("\"x\":", pos), yp = line.find("\"y\":", pos);
      f[id] = {std::stod(line.substr(xp + 4)), std::stod(line.substr(yp + 4))};
      ++pos;
    }
    t.frames.push_back(f);
  }
  return t;
}

// Tracks a generated sequence with TUIO going to liblo's oscdump, listening at `listen` (a UDP port
// or a liblo URL), through `transport` ("udp" or "tcp"), and checks what arrived. `synth_args` and
// `track_args` are added to the two commands (another symbol set, and its detector flags). Every
// position must be within `tolerance` px of the truth, but for `allowed_off` of them; with
// `some_leave`, prints leave the frame and their sessions end.
void check_tuio_at_oscdump(const std::string& transport, int port, const std::string& listen,
                           const std::string& synth_args = "", const std::string& track_args = "",
                           const std::string& motion = "--speed 12 --spin 2", double tolerance = 1.0, double allowed_off = 0,
                           bool some_leave = true) {
  const std::string seq = test::temp_path("seq");
  auto r = test::run_cli("synth " + quote(seq) + " --count 24 --sequence " + motion + " --symbols 4 --seed 4 --overwrite " +
                         synth_args);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const Truth truth = read_truth(seq + "/truth.jsonl");
  ASSERT_EQ(truth.frames.size(), 24u);

  const std::string dump = test::temp_path("oscdump.txt");
  Background oscdump("oscdump -L " + listen, dump, "oscdump");
  ASSERT_GT(oscdump.pid, 0);
  wait_for([&] { return bound_anywhere(transport, port); });
  r = test::run_cli("track --folder " + quote(seq) + " --tuio " + transport + ":127.0.0.1:" + std::to_string(port) +
                    " --backend cpu " + track_args);  // every frame: fseq N is frame N - 1, however slow the build
  // Everything has arrived once the shutdown's empty bundles are printed: track sends one per
  // profile (2Dcur, 2Dobj, 2Dblb, each closed by "fseq" -1) when it starts and again at shutdown.
  wait_for([&] { return occurrences(dump, "\"fseq\" -1") >= 6; });
  oscdump.stop();
  ASSERT_EQ(r.exit_code, 0) << r.output;

  // oscdump lines: "<timetag> /tuio/2Dobj <types> "set" s_id id x y a X Y A m r"
  std::ifstream in(dump);
  std::string line;
  std::vector<int> fseqs;
  std::map<int, std::set<int>> sessions_of_id;        // symbol id -> session ids seen
  std::vector<std::vector<int>> alive_lists;
  int sets = 0, bad_positions = 0, unknown_ids = 0, current_fseq = -1;
  std::vector<std::vector<std::string>> pending_sets;  // sets of the bundle until its fseq arrives
  while (std::getline(in, line)) {
    std::istringstream ss(line);
    std::string tt, path, types, cmd;
    ss >> tt >> path >> types >> cmd;
    if (path != "/tuio/2Dobj") continue;
    if (cmd == "\"alive\"") {
      std::vector<int> ids;
      int v;
      while (ss >> v) ids.push_back(v);
      alive_lists.push_back(ids);
    } else if (cmd == "\"set\"") {
      std::vector<std::string> args;
      std::string a;
      while (ss >> a) args.push_back(a);
      pending_sets.push_back(args);
    } else if (cmd == "\"fseq\"") {
      ss >> current_fseq;
      if (current_fseq >= 0) fseqs.push_back(current_fseq);
      for (const auto& args : pending_sets) {
        ++sets;
        const int sid = std::stoi(args[0]), id = std::stoi(args[1]);
        const double x = std::stod(args[2]) * 640, y = std::stod(args[3]) * 480;
        sessions_of_id[id].insert(sid);
        const int frame = current_fseq - 1;  // fseq 1 is the first frame
        ASSERT_GE(frame, 0);
        ASSERT_LT(frame, 24);
        const auto& f = truth.frames[frame];
        const auto it = f.find(id);
        if (it == f.end()) ++unknown_ids;
        else if (std::hypot(it->second.first - x, it->second.second - y) > tolerance) ++bad_positions;
      }
      pending_sets.clear();
    }
  }
  ASSERT_GT(sets, 40) << "too few TUIO set messages arrived";
  for (std::size_t i = 1; i < fseqs.size(); ++i) EXPECT_GT(fseqs[i], fseqs[i - 1]) << "fseq must increase";
  EXPECT_EQ(unknown_ids, 0) << "IDs that are not in the frame";
  EXPECT_LE(bad_positions, allowed_off * sets) << "positions more than " << tolerance << " px from the truth";
  for (const auto& [id, sessions] : sessions_of_id) {
    std::string list;
    for (int s : sessions) list += std::to_string(s) + " ";
    EXPECT_EQ(sessions.size(), 1u) << "symbol " << id << " changed session: " << list;
  }
  // A symbol that leaves the frame leaves the alive list; at shutdown the list is empty.
  ASSERT_FALSE(alive_lists.empty());
  EXPECT_TRUE(alive_lists.back().empty()) << "the last alive list must be empty after shutdown";
  std::set<int> first(alive_lists[1].begin(), alive_lists[1].end());
  std::set<int> late(alive_lists[alive_lists.size() - 3].begin(), alive_lists[alive_lists.size() - 3].end());
  if (some_leave) {
    EXPECT_LT(late.size(), first.size()) << "symbols that moved out should have been removed";
  }
  for (int s : late) EXPECT_TRUE(first.count(s)) << "no new sessions for the same symbols";
}
}  // namespace

TEST(Track, TuioArrivesAtAnExternalOscReceiver) {
  if (!output::tuio_available()) GTEST_SKIP() << "built without the TUIO adapter (liblo)";
  if (!have_oscdump()) GTEST_SKIP() << "oscdump (Debian liblo-tools) is not installed";
  if (!codec::available()) GTEST_SKIP() << "the printed symbols are PNG files and this build has no PNG support";
  const int port = 42000 + getpid() % 2000;
  check_tuio_at_oscdump("udp", port, std::to_string(port));
}

// TUIO over TCP (4-byte big-endian length before each packet) read by liblo's own TCP receiver.
TEST(Track, TuioOverTcpArrivesAtAnExternalOscReceiver) {
  if (!output::tuio_available()) GTEST_SKIP() << "built without the TUIO adapter (liblo)";
  if (!have_oscdump()) GTEST_SKIP() << "oscdump (Debian liblo-tools) is not installed";
  if (!codec::available()) GTEST_SKIP() << "the printed symbols are PNG files and this build has no PNG support";
  const int port = 44000 + getpid() % 2000;
  check_tuio_at_oscdump("tcp", port, "osc.tcp://:" + std::to_string(port));
}

// Prints 48-80 px wide sliding 6 px a frame (8 after a bounce) and turning, the shutter open for
// 0.8 of the frame interval: smears of 5-6.5 px, which the first pass often does not read. The
// second look and motion-aware root tracking keep every print in one session at the receiver;
// positions are within 1.5 px of the truth but for the frames where a print is followed by its
// smeared root alone (a few px off).
TEST(Track, SmearedSlidingPrintsKeepOneSessionAtTheReceiver) {
  if (!output::tuio_available()) GTEST_SKIP() << "built without the TUIO adapter (liblo)";
  if (!have_oscdump()) GTEST_SKIP() << "oscdump (Debian liblo-tools) is not installed";
  if (!codec::available()) GTEST_SKIP() << "the printed symbols are PNG files and this build has no PNG support";
  const int port = 48000 + getpid() % 2000;
  check_tuio_at_oscdump("udp", port, std::to_string(port), "--motion-blur 0.8 --min-size 53 --max-size 89", "",
                        "--speed 6 --spin 2", 1.5, 0.25, false);
}

// Yamaarashi symbols (IDs up to 65535) drawn by synth, decoded and sent as TUIO objects.
TEST(Track, YamaarashiTuioArrivesAtAnExternalOscReceiver) {
  if (!output::tuio_available()) GTEST_SKIP() << "built without the TUIO adapter (liblo)";
  if (!have_oscdump()) GTEST_SKIP() << "oscdump (Debian liblo-tools) is not installed";
  const int port = 46000 + getpid() % 2000;
  check_tuio_at_oscdump("udp", port, std::to_string(port), "--set yamaarashi", "--yamaarashi");
}

// Whether a UDP or TCP socket listens on 127.0.0.1:port and on no other IPv4 address.
bool listens_on_loopback_only(const std::string& table, int port) {
  const Bound b = bound_on(table, port);
  return b.loopback && !b.other;
}

// gpuvis tuio-dump receives what track sends, over UDP and TCP, and listens on 127.0.0.1 only
// unless another address is named.
TEST(Track, TuioDumpPrintsWhatTrackSendsAndListensOnLoopback) {
  if (!output::tuio_available()) GTEST_SKIP() << "built without the TUIO adapter";
  const std::string seq = test::temp_path("dump-seq");
  ASSERT_EQ(test::run_cli("synth " + quote(seq) + " --count 6 --sequence --speed 4 --symbols 3 --seed 5 --overwrite").exit_code, 0);
  const Truth truth = read_truth(seq + "/truth.jsonl");
  for (const std::string transport : {"udp", "tcp"}) {
    SCOPED_TRACE(transport);
    const int port = 44000 + getpid() % 2000 + (transport == "tcp" ? 1 : 0);
    const std::string dump = test::temp_path("tuio-dump.txt");
    Background receiver(quote(GPUVIS_CLI_PATH) + " tuio-dump --port " + std::to_string(port) + (transport == "tcp" ? " --tcp" : ""),
                        dump, "tuio-dump");
    ASSERT_GT(receiver.pid, 0);
    wait_for([&] { return listens_on_loopback_only(transport, port); });
    EXPECT_TRUE(listens_on_loopback_only(transport, port)) << "tuio-dump must listen on 127.0.0.1 only by default";
    const auto r = test::run_cli("track --folder " + quote(seq) + " --backend cpu --tuio " + transport + ":127.0.0.1:" + std::to_string(port));
    // Everything has arrived once the shutdown's empty bundle (the second "fseq -1") is printed.
    wait_for([&] { return occurrences(dump, "/tuio/2Dobj fseq -1") >= 2; });
    receiver.stop();
    ASSERT_EQ(r.exit_code, 0) << r.output;
    // Lines: /tuio/2Dobj set s_id id x y a X Y A m r, then ... fseq N for the bundle.
    std::ifstream in(dump);
    std::string line;
    int sets = 0, known = 0, fseqs = 0;
    while (std::getline(in, line)) {
      std::istringstream ss(line);
      std::string path, cmd2;
      ss >> path >> cmd2;
      if (path == "/tuio/2Dobj" && cmd2 == "fseq") ++fseqs;
      if (path != "/tuio/2Dobj" || cmd2 != "set") continue;
      int sid = 0, id = -1;
      ss >> sid >> id;
      ++sets;
      for (const auto& f : truth.frames) known += f.count(id) ? 1 : 0;
    }
    EXPECT_GE(sets, 12) << "3 symbols over 6 frames";
    EXPECT_GE(fseqs, 6);
    EXPECT_GT(known, 0) << "IDs that are in the scene";
  }
  const auto bad = test::run_cli("tuio-dump --address not-an-ip --seconds 1");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.output.find("not an IP address"), std::string::npos) << bad.output;
}

TEST(Track, AbsentReceiversNeverBlock) {
  if (!output::tuio_available()) GTEST_SKIP() << "built without the TUIO adapter (liblo)";
  if (!codec::available()) GTEST_SKIP() << "the printed symbols are PNG files and this build has no PNG support";
  const std::string seq = test::temp_path("seq");
  ASSERT_EQ(test::run_cli("synth " + quote(seq) + " --count 10 --sequence --speed 5 --symbols 3").exit_code, 0);
  const auto t0 = std::chrono::steady_clock::now();
  // Nobody listens on these ports: UDP goes nowhere, TCP cannot connect; both must not stop tracking.
  const auto r = test::run_cli("track --folder " + quote(seq) + " --tuio udp:127.0.0.1:9 --tuio tcp:127.0.0.1:9 --json --backend cpu");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '{') >= 10, true) << r.output;
  EXPECT_LT(seconds, 20.0);
}

TEST(Track, BadSourcesAndTargetsAreOneLineErrors) {
  auto r = test::run_cli("track --folder /no/such/frames");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("does not exist"), std::string::npos) << r.output;
  r = test::run_cli("track --folder . --tuio udp:host:notaport");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("udp:HOST:PORT"), std::string::npos) << r.output;
  r = test::run_cli("track");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("--folder"), std::string::npos) << r.output;
}

// A folder with unreadable frames among good ones (a header claiming 100000 x 100000 pixels, a
// truncated file, text named .pgm): they are skipped with one warning each, also when looping; a
// folder of nothing but such files is a one-line error.
TEST(Track, UnreadableFramesInAFolderAreSkippedWithAWarning) {
  const std::string dir = test::temp_path("bad_frames");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  Image<std::uint8_t> good(64, 48);
  good.fill(128);
  for (const char* name : {"a.pgm", "c.pgm", "e.pgm"}) write_image(dir + "/" + name, good.view());
  std::ofstream(dir + "/b.pgm") << "P5\n100000 100000\n255\n";
  std::ofstream(dir + "/d.pgm") << "P5\n4 4\n255\nab";
  std::ofstream(dir + "/f.pgm") << "not an image";
  auto r = test::run_cli("track --folder " + quote(dir) + " --no-tuio --json --backend cpu --loop --frames 9 --stats");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("9 tracked"), std::string::npos) << r.output;
  std::size_t warnings = 0;
  for (std::size_t pos = 0; (pos = r.output.find("skipping an unreadable frame", pos)) != std::string::npos; ++pos) ++warnings;
  EXPECT_EQ(warnings, 3u) << r.output;  // once per file, not once per loop
  EXPECT_NE(r.output.find("over the limit"), std::string::npos) << r.output;
  for (const char* name : {"a.pgm", "c.pgm", "e.pgm"}) std::filesystem::remove(dir + "/" + name);
  r = test::run_cli("track --folder " + quote(dir) + " --no-tuio --backend cpu");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("holds no readable image"), std::string::npos) << r.output;
}

#include "gpuvis/config/camera.hpp"
#include "gpuvis/config/reactivision.hpp"
#include "gpuvis/source/frame_source.hpp"
#include <filesystem>

// Writes `xml` to `path`, loads it with `load` and expects an error mentioning `needle`.
template <class Load>
void expect_load_error(Load load, const std::string& path, const std::string& xml, const std::string& needle) {
  std::ofstream(path) << xml;
  try {
    load();
    FAIL() << xml;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(Config, ReadsReacTIVisionXmlAndNamesTheLineOfErrors) {
  if (!config::xml_available()) GTEST_SKIP() << "built without the XML adapter (tinyxml2)";
  const std::string path = test::temp_path("reacTIVision.xml");
  std::ofstream(path) << "<?xml version=\"1.0\"?>\n<reactivision>\n"
                         "  <tuio type=\"udp\" host=\"10.0.0.2\" port=\"4444\" />\n"
                         "  <tuio type=\"tcp\" host=\"localhost\" port=\"3334\" />\n"
                         "  <tuio type=\"udp\" host=\"server\" port=\"3333\" />\n"
                         "  <tuio type=\"web\" port=\"8080\" version=\"2\" />\n"
                         "  <tuio type=\"flc\" />\n"
                         "  <tuio source=\"table\" />\n"
                         "  <fiducial amoeba=\"small\" max_fid=\"200\" />\n"
                         "  <finger size=\"20\" sensitivity=\"80\" contrast=\"12\" />\n"
                         "  <blob min_size=\"10\" max_size=\"60\" obj_blob=\"true\" cur_blob=\"1\" />\n"
                         "  <threshold type=\"tb\" gradient=\"24\" size=\"12\" />\n"
                         "  <calibration invert=\" xa\" />\n"
                         "  <image equalize=\"true\" />\n"
                         "  <camera config=\"cam/camera.xml\" />\n"
                         "  <fiducial yamaarashi=\"true\" max_fid=\"0\" />\n"
                         "</reactivision>\n";
  const auto c = config::load_reactivision_xml(path);
  ASSERT_EQ(c.tuio.size(), 4u);
  EXPECT_EQ(c.tuio[0].host, "10.0.0.2");
  EXPECT_EQ(c.tuio[0].port, 4444);
  EXPECT_EQ(c.tuio[1].transport, output::Transport::tcp);
  // host="server": a TCP server, whatever the type; servers listen on the loopback interface only
  EXPECT_EQ(output::to_string(c.tuio[2]), "tcp:server:127.0.0.1:3333");
  EXPECT_EQ(output::to_string(c.tuio[3]), "web:127.0.0.1:8080@2");  // version="2": TUIO 2.0 to this target
  EXPECT_EQ(c.tuio_options.source, "table");
  EXPECT_TRUE(c.tuio_options.invert_x);
  EXPECT_FALSE(c.tuio_options.invert_y);
  EXPECT_TRUE(c.tuio_options.invert_angle);
  EXPECT_EQ(c.detector.trees, "small");
  EXPECT_EQ(c.detector.fingers.size, 20);
  EXPECT_DOUBLE_EQ(c.detector.fingers.sensitivity, 0.8);
  EXPECT_EQ(c.detector.fingers.contrast, 12);
  EXPECT_EQ(c.detector.blobs.max_size, 60);
  EXPECT_TRUE(c.detector.blobs.object_blobs);
  EXPECT_TRUE(c.detector.blobs.finger_blobs);
  EXPECT_EQ(c.detector.threshold.method, threshold::Method::tiled);
  EXPECT_EQ(c.detector.threshold.tiled.tile, 12);
  EXPECT_EQ(c.detector.threshold.tiled.gradient, 24);
  EXPECT_TRUE(c.detector.equalize);
  EXPECT_EQ(c.camera_config, (std::filesystem::path(path).parent_path() / "cam/camera.xml").string());
  EXPECT_EQ(c.detector.max_fid, 0);  // the last <fiducial> sets it
  EXPECT_TRUE(c.detector.yamaarashi);
  EXPECT_FALSE(c.detector.mirror);
  ASSERT_EQ(c.warnings.size(), 2u);  // the TCP server's interface, and flc (removed): said, not ignored
  EXPECT_NE(c.warnings[0].find(":5: <tuio host>"), std::string::npos) << c.warnings[0];
  EXPECT_NE(c.warnings[1].find(":7: <tuio type>"), std::string::npos) << c.warnings[1];

  auto expect_error = [&](const std::string& xml, const std::string& needle) {
    expect_load_error([&] { config::load_reactivision_xml(path); }, path, xml, needle);
  };
  expect_error("<reactivision>\n<finger size=\"big\"/>\n</reactivision>\n", ":2: <finger size>");
  expect_error("<reactivision>\n\n<tuio type=\"udp\" port=\"70000\"/>\n</reactivision>\n", ":3: <tuio port>");
  expect_error("<reactivision>\n<finger size=\"1\"\n</reactivision>\n", "malformed XML");
  expect_error("<other/>\n", "<reactivision>");
}

// Every element and attribute of the spec's reacTIVision.xml table (§9.1, and §2.1's threshold) is
// either honoured, with the same meaning, or named in a warning: none is dropped silently.
TEST(Config, EveryReacTIVisionSettingIsHonouredOrNamed) {
  if (!config::xml_available()) GTEST_SKIP() << "built without the XML adapter (tinyxml2)";
  const std::string path = test::temp_path("reacTIVision.xml");
  // The grid sits beside the XML (a relative grid= is read from the XML's folder).
  calibration::CalibrationGrid grid = calibration::CalibrationGrid::zero(640, 480);
  grid.points[3] = {0.125, -0.25};
  grid.write((std::filesystem::path(path).parent_path() / "table.grid").string());
  std::ofstream(path) << "<reactivision>\n"                                                         // line 1
                         "  <camera config=\"default\" />\n"                                         // 2
                         "  <tuio type=\"udp\" host=\"127.0.0.1\" port=\"3334\" />\n"                // 3
                         "  <tuio source=\"rtv\" />\n"                                               // 4
                         "  <fiducial amoeba=\"mini\" yamaarashi=\"true\" mirror=\"true\" max_fid=\"99\" />\n"  // 5
                         "  <finger size=\"16\" sensitivity=\"75\" contrast=\"20\" />\n"            // 6
                         "  <blob max_size=\"50\" min_size=\"32\" obj_blob=\"1\" cur_blob=\"true\" />\n"  // 7
                         "  <filter fiducial=\"false\" finger=\"true\" blob=\"true\" />\n"            // 8
                         "  <image display=\"dest\" equalize=\"true\" fullscreen=\"true\" />\n"      // 9
                         "  <threshold type=\"br\" gradient=\"max\" size=\"min\" contrast=\"40\" threads=\"3\" />\n"  // 10
                         "  <calibration invert=\" y\" grid=\"table.grid\" file=\"default.grid\" />\n"  // 11
                         "  <fiducial amoeba=\"mini\" colour=\"red\" max_fid=\"99\" />\n"             // 12
                         "  <display />\n"                                                             // 13
                         "</reactivision>\n";
  const auto c = config::load_reactivision_xml(path);
  // Honoured, with reacTIVision's meaning.
  EXPECT_EQ(c.camera_config, "default");
  ASSERT_EQ(c.tuio.size(), 1u);
  EXPECT_EQ(output::to_string(c.tuio[0]), "udp:127.0.0.1:3334");
  EXPECT_EQ(c.tuio_options.source, "rtv");
  EXPECT_EQ(c.detector.trees, "mini");
  EXPECT_EQ(c.detector.max_fid, 99);
  EXPECT_TRUE(c.detector.yamaarashi);
  EXPECT_TRUE(c.detector.mirror);
  EXPECT_EQ(c.detector.fingers.size, 16);
  EXPECT_DOUBLE_EQ(c.detector.fingers.sensitivity, 0.75);
  EXPECT_EQ(c.detector.fingers.contrast, 20);
  EXPECT_EQ(c.detector.blobs.min_size, 32);
  EXPECT_EQ(c.detector.blobs.max_size, 50);
  EXPECT_TRUE(c.detector.blobs.object_blobs);
  EXPECT_TRUE(c.detector.blobs.finger_blobs);
  EXPECT_FALSE(c.tracker.smooth_objects);
  EXPECT_TRUE(c.tracker.smooth_cursors);
  EXPECT_TRUE(c.tracker.smooth_blobs);
  EXPECT_TRUE(c.detector.equalize);
  EXPECT_EQ(c.detector.threshold.method, threshold::Method::bradley_roth);
  EXPECT_FLOAT_EQ(c.detector.threshold.bradley_roth.bias, 0.64f);  // gradient "max" = 64 -> 64/100
  EXPECT_EQ(c.detector.threshold.bradley_roth.size, 2);             // "min" gives 2 (spec §2.1)
  EXPECT_EQ(c.detector.threshold.bradley_roth.contrast, 40);
  EXPECT_EQ(c.threads, 3);
  EXPECT_FALSE(c.tuio_options.invert_x);
  EXPECT_TRUE(c.tuio_options.invert_y);
  ASSERT_TRUE(c.detector.calibration.has_value());
  ASSERT_EQ(c.detector.calibration->points.size(), 80u);
  EXPECT_EQ(c.detector.calibration->points[3], (calibration::Displacement{0.125, -0.25}));
  // Named in a warning, with the line and the attribute.
  const std::vector<std::string> named = {":9: <image display>", ":9: <image fullscreen>", ":11: <calibration file>",
                                          ":12: <fiducial colour>", ":13: <display>"};
  std::string all;
  for (const auto& w : c.warnings) all += w + "\n";
  for (const auto& n : named) EXPECT_NE(all.find(n), std::string::npos) << n << " not named in:\n" << all;
  EXPECT_EQ(c.warnings.size(), named.size()) << all;

  // Without max_fid reacTIVision reports every ID as fuzzy (Q19); gpuvis sets no limit and says so.
  std::ofstream(path) << "<reactivision>\n<fiducial amoeba=\"default\" />\n"
                         "<threshold gradient=\"20\" tile=\"12\" size=\"8\" />\n</reactivision>\n";
  const auto d = config::load_reactivision_xml(path);
  EXPECT_EQ(d.detector.max_fid, 0);
  EXPECT_EQ(d.detector.threshold.method, threshold::Method::bradley_roth);  // no type: BR, the code's default (Q31)
  EXPECT_EQ(d.detector.threshold.bradley_roth.size, 8);                      // tile= is ignored, size= counts
  all.clear();
  for (const auto& w : d.warnings) all += w + "\n";
  EXPECT_NE(all.find(":2: <fiducial max_fid>"), std::string::npos) << all;
  EXPECT_NE(all.find(":3: <threshold type>"), std::string::npos) << all;
  EXPECT_NE(all.find(":3: <threshold tile>"), std::string::npos) << all;
}

// The live view's "save settings": what it writes is read back as it was, for each threshold
// method, and the rest of an existing file (TUIO targets, comments, other attributes) is kept.
TEST(Config, SavedSettingsReadBackAndKeepTheRestOfTheFile) {
  if (!config::xml_available()) GTEST_SKIP() << "built without the XML adapter (tinyxml2)";
  const std::string path = test::temp_path("saved-reacTIVision.xml");
  std::ofstream(path) << "<?xml version=\"1.0\"?>\n<reactivision>\n"
                         "  <!-- the table in room 2 -->\n"
                         "  <tuio type=\"udp\" host=\"10.0.0.2\" port=\"4444\" />\n"
                         "  <fiducial amoeba=\"small\" max_fid=\"200\" />\n"
                         "  <finger size=\"20\" sensitivity=\"80\" contrast=\"12\" />\n"
                         "  <threshold type=\"br\" gradient=\"24\" size=\"12\" contrast=\"30\" threads=\"2\" />\n"
                         "</reactivision>\n";
  auto cfg = config::load_reactivision_xml(path);
  threshold::Params methods[3];
  methods[0].method = threshold::Method::bernsen;
  methods[0].bernsen = {7, 40};
  methods[1].method = threshold::Method::tiled;
  methods[1].tiled = {20, 12};
  methods[2].method = threshold::Method::bradley_roth;
  methods[2].bradley_roth = {9, 0.21f, 25};
  for (const auto& t : methods) {
    cfg.detector.threshold = t;
    cfg.detector.fingers = {14, 0.6, 20};
    cfg.detector.blobs = {5, 90, true, false};
    cfg.detector.equalize = true;
    cfg.tuio_options.invert_y = true;
    config::save_reactivision_xml(path, cfg, "table.grid");
    std::ifstream in(path);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("<!-- the table in room 2 -->"), std::string::npos) << text;
    EXPECT_NE(text.find("threads=\"2\""), std::string::npos) << text;
    EXPECT_NE(text.find("grid=\"table.grid\""), std::string::npos) << text;
    calibration::CalibrationGrid::zero(640, 480).write(test::temp_path("table.grid"));
    const auto back = config::load_reactivision_xml(path);
    ASSERT_EQ(back.tuio.size(), 1u);
    EXPECT_EQ(back.tuio[0].host, "10.0.0.2");
    EXPECT_EQ(back.detector.trees, "small");
    EXPECT_EQ(back.detector.max_fid, 200);
    EXPECT_EQ(back.detector.threshold.method, t.method);
    if (t.method == threshold::Method::bernsen) {
      EXPECT_EQ(back.detector.threshold.bernsen.half_window, 7);
      EXPECT_EQ(back.detector.threshold.bernsen.gate, 40);
    }
    if (t.method == threshold::Method::tiled) {
      EXPECT_EQ(back.detector.threshold.tiled.tile, 20);
      EXPECT_EQ(back.detector.threshold.tiled.gradient, 12);
    }
    if (t.method == threshold::Method::bradley_roth) {
      EXPECT_EQ(back.detector.threshold.bradley_roth.size, 9);
      EXPECT_FLOAT_EQ(back.detector.threshold.bradley_roth.bias, 0.21f);
      EXPECT_EQ(back.detector.threshold.bradley_roth.contrast, 25);
    }
    EXPECT_EQ(back.detector.fingers.size, 14);
    EXPECT_DOUBLE_EQ(back.detector.fingers.sensitivity, 0.6);
    EXPECT_EQ(back.detector.fingers.contrast, 20);
    EXPECT_EQ(back.detector.blobs.min_size, 5);
    EXPECT_EQ(back.detector.blobs.max_size, 90);
    EXPECT_TRUE(back.detector.blobs.object_blobs);
    EXPECT_FALSE(back.detector.blobs.finger_blobs);
    EXPECT_TRUE(back.detector.equalize);
    EXPECT_FALSE(back.tuio_options.invert_x);
    EXPECT_TRUE(back.tuio_options.invert_y);
    EXPECT_TRUE(back.detector.calibration.has_value());
  }
  // A new file holds the settings alone; a file that is not reacTIVision.xml is refused untouched.
  const std::string fresh = test::temp_path("new-reacTIVision.xml");
  std::filesystem::remove(fresh);
  config::save_reactivision_xml(fresh, cfg);
  EXPECT_EQ(config::load_reactivision_xml(fresh).detector.fingers.size, 14);
  const std::string other = test::temp_path("not-reactivision.xml");
  std::ofstream(other) << "<camera><image width=\"640\"/></camera>\n";
  EXPECT_THROW(config::save_reactivision_xml(other, cfg), Error);
  std::ifstream in(other);
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()),
            "<camera><image width=\"640\"/></camera>\n");
}

// max_fid: a symbol whose ID is above it is a fuzzy candidate (spec §5.5) on the CPU backend (the
// CUDA backend's equality is checked in tests/gpu).
TEST(Config, MaxFidTurnsHigherIdsIntoFuzzyCandidates) {
  if (!codec::available()) GTEST_SKIP() << "the printed symbols are PNG files and this build has no PNG support";
  synth::Generator gen(test::source_path("data/amoeba/symbols"));
  synth::SceneParams q;
  q.symbols = 6;
  q.seed = 5;
  const auto scene = gen.make(q);
  pipeline::Detector all(pipeline::DetectorParams{});
  std::vector<int> ids;
  for (const auto& f : all.detect(scene.image.view()).fiducials)
    if (f.id >= 0) ids.push_back(f.id);
  ASSERT_GE(ids.size(), 3u);
  std::sort(ids.begin(), ids.end());
  pipeline::DetectorParams limited;
  limited.max_fid = ids[ids.size() / 2];
  pipeline::Detector det(limited);
  const auto& d = det.detect(scene.image.view());
  int valid = 0, fuzzy = 0;
  for (const auto& f : d.fiducials) {
    EXPECT_LE(f.id, limited.max_fid);
    (f.id >= 0 ? valid : fuzzy) += 1;
  }
  const int kept = static_cast<int>(std::count_if(ids.begin(), ids.end(), [&](int id) { return id <= limited.max_fid; }));
  EXPECT_EQ(valid, kept);
  EXPECT_GE(fuzzy, static_cast<int>(ids.size()) - kept);  // the others are still seen, as fuzzy candidates
}

TEST(Config, ReadsCameraXmlAndNamesTheLineOfErrors) {
  if (!config::xml_available()) GTEST_SKIP() << "built without the XML adapter (tinyxml2)";
  const std::string path = test::temp_path("camera.xml");
  std::ofstream(path) << "<portvideo>\n<camera driver=\"folder\" id=\"2\" src=\"frames\">\n"
                         "  <capture width=\"max\" height=\"480\" fps=\"60\" format=\"mjpeg\" />\n"
                         "  <settings brightness=\"default\" gain=\"10\" exposure=\"auto\" focus=\"min\" />\n"
                         "  <frame width=\"301\" height=\"max\" xoff=\"min\" yoff=\"7\" mode=\"1\" />\n"
                         "</camera>\n</portvideo>\n";
  const auto c = config::load_camera_xml(path);
  EXPECT_EQ(c.driver, "folder");
  EXPECT_EQ(c.src, (std::filesystem::path(path).parent_path() / "frames").string()) << "relative to the XML";
  EXPECT_EQ(c.camera.index, 2);
  EXPECT_EQ(c.camera.width, source::kLargestCaptureSize);
  EXPECT_EQ(c.camera.height, 480);
  EXPECT_DOUBLE_EQ(c.camera.fps, 60);
  EXPECT_EQ(c.camera.format, "mjpeg");
  ASSERT_EQ(c.camera.controls.size(), 3u) << "brightness=default leaves the camera alone";
  EXPECT_EQ(c.camera.controls[0].name, "gain");
  EXPECT_EQ(c.camera.controls[0].value, 10);
  EXPECT_EQ(c.camera.controls[1].mode, source::CameraControl::Mode::automatic);
  EXPECT_EQ(c.camera.controls[2].mode, source::CameraControl::Mode::minimum);
  EXPECT_TRUE(c.crop);
  EXPECT_EQ(c.frame.width, 301);
  EXPECT_EQ(c.frame.height, 0);
  EXPECT_EQ(c.frame.y, 7);
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_NE(c.warnings[0].find(":5: <frame mode>"), std::string::npos) << c.warnings[0];

  auto expect_error = [&](const std::string& xml, const std::string& needle) {
    expect_load_error([&] { config::load_camera_xml(path); }, path, xml, needle);
  };
  expect_error("<portvideo>\n<camera driver=\"gopro\"/>\n</portvideo>\n", ":2: <camera driver>");
  expect_error("<portvideo>\n<camera driver=\"file\"/>\n</portvideo>\n", "needs a src");
  expect_error("<portvideo>\n<camera>\n<capture fps=\"fast\"/></camera>\n</portvideo>\n", ":3: <capture fps>");
  expect_error("<portvideo/>\n", "no <camera>");
}

// camera.xml's crop: even sizes clamped to the frame, offsets clamped so the crop fits.
TEST(Source, CropsLikeReacTIVision) {
  const std::string dir = test::temp_path("crop");
  std::filesystem::create_directories(dir);
  Image<std::uint8_t> img(40, 30);
  for (int y = 0; y < 30; ++y)
    for (int x = 0; x < 40; ++x) img(x, y) = static_cast<std::uint8_t>(x + 40 * (y % 5));
  write_image(dir + "/a.pgm", img.view());
  auto crop = [&](source::Crop c) {
    auto s = source::make_cropped_source(source::make_folder_source(dir, false), c);
    Image<std::uint8_t> f;
    EXPECT_TRUE(s->next(f));
    return f;
  };
  auto f = crop({35, 3, 11, 9});  // 11x9 -> 10x8, x clamped to 30
  ASSERT_EQ(f.width(), 10);
  ASSERT_EQ(f.height(), 8);
  EXPECT_EQ(f(0, 0), img(30, 3));
  EXPECT_EQ(f(9, 7), img(39, 10));
  f = crop({5, 5, 0, 0});  // full size: no crop at all
  EXPECT_EQ(f.width(), 40);
  EXPECT_EQ(f.height(), 30);
}

// reacTIVision's equaliser in track (spec §2.3): the first frame is the empty table, so symbols
// already on it disappear from the following identical frames.
TEST(Track, EqualizeSubtractsTheFirstFrame) {
  if (!codec::available()) GTEST_SKIP() << "the printed symbols are PNG files and this build has no PNG support";
  const std::string seq = test::temp_path("eq");
  ASSERT_EQ(test::run_cli("synth " + quote(seq) + " --count 3 --sequence --speed 0 --symbols 3").exit_code, 0);
  auto objects = [&](const std::string& flags) {
    const auto r = test::run_cli("track --folder " + quote(seq) + " --no-tuio --json --backend cpu " + flags);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    std::vector<int> n;
    std::istringstream lines(r.output);
    std::string line;
    while (std::getline(lines, line))
      if (line.find("\"fseq\"") != std::string::npos) n.push_back(static_cast<int>(std::count(line.begin(), line.end(), '{')) - 1);
    return n;
  };
  const auto plain = objects(""), equalized = objects("--equalize");
  ASSERT_EQ(plain.size(), 3u);
  ASSERT_EQ(equalized.size(), 3u);
  EXPECT_GE(plain[2], 3) << "three symbols tracked without the equaliser";
  EXPECT_EQ(equalized[2], 0) << "with it, what was on the table at the start is background";
}

// track reads its source from camera.xml (here the folder driver with a crop).
TEST(Track, RunsFromACameraXml) {
  if (!codec::available() || !config::xml_available()) GTEST_SKIP() << "needs PNG support and the XML adapter";
  const std::string dir = test::temp_path("camxml");
  ASSERT_EQ(test::run_cli("synth " + quote(dir + "/frames") + " --count 2 --sequence --symbols 3").exit_code, 0);
  std::ofstream(dir + "/camera.xml") << "<portvideo><camera driver=\"folder\" src=\"frames\">"
                                        "<frame width=\"320\" height=\"240\" xoff=\"0\" yoff=\"0\"/></camera></portvideo>\n";
  const auto r = test::run_cli("track --camera-config " + quote(dir + "/camera.xml") + " --no-tuio --json --backend cpu");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n') >= 2, true) << r.output;
  const auto bad = test::run_cli("track --camera-config " + quote(dir + "/missing.xml"));
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.output.find("does not exist"), std::string::npos) << bad.output;
}

// The scene generator as a live source: a moving table tracked with stable sessions, no files.
TEST(Track, GeneratedScenesAsALiveSource) {
  if (!codec::available()) GTEST_SKIP() << "the printed symbols are PNG files and this build has no PNG support";
  const auto r = test::run_cli("track --synth 12 --no-tuio --json --backend cpu");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::vector<std::set<int>> sessions;
  std::istringstream lines(r.output);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.find("\"fseq\"") == std::string::npos) continue;
    std::set<int> s;
    for (std::size_t pos = 0; (pos = line.find("\"session\":", pos)) != std::string::npos; ++pos) s.insert(std::stoi(line.substr(pos + 10)));
    sessions.push_back(s);
  }
  ASSERT_EQ(sessions.size(), 12u);
  EXPECT_GE(sessions.back().size(), 5u) << "six moving symbols (one may be at the edge)";
  for (int s : sessions.back()) EXPECT_TRUE(sessions.front().count(s)) << "session " << s << " is new: tracking lost a symbol";
}

#include <random>

#include "gpuvis/track/one_euro.hpp"
#include "gpuvis/track/tracker.hpp"
#include "segment/cpu/segment.hpp"

TEST(OneEuro, RemovesJitterAtRestAndFollowsMotion) {
  track::OneEuroFilter f(1.0f, 0.25f, 10.0f);
  std::mt19937 rng(1);
  std::normal_distribution<float> jitter(0, 0.002f);
  float raw_var = 0, out_var = 0;
  for (int i = 0; i < 300; ++i) {  // at rest at 0.5, 60 Hz
    const float raw = 0.5f + jitter(rng);
    const float out = f.filter(raw, 1 / 60.0f);
    if (i > 30) raw_var += (raw - 0.5f) * (raw - 0.5f), out_var += (out - 0.5f) * (out - 0.5f);
  }
  EXPECT_LT(out_var, raw_var / 4) << "jitter at rest should shrink";
  float out = 0;
  for (int i = 1; i <= 60; ++i) out = f.filter(0.5f + 0.5f * static_cast<float>(i) / 60.0f, 1 / 60.0f);  // a fast move to 1.0 in a second
  // During the move the lag is about speed x tau (0.5 / (2 pi x 1.1 Hz) = 0.07 of the width) ...
  EXPECT_GT(out, 0.9f) << "the filter should follow a fast move with a bounded lag";
  // ... and once the item rests again it settles on the true position.
  for (int i = 0; i < 60; ++i) out = f.filter(1.0f, 1 / 60.0f);
  EXPECT_NEAR(out, 1.0f, 0.005f);
}

TEST(Track, SmoothingReducesObjectJitter) {
  auto jitter_of = [](bool smooth) {
    track::TrackerParams p;
    p.smooth_objects = smooth;
    track::Tracker t(p);
    std::mt19937 rng(2);
    std::normal_distribution<double> n(0, 0.4);  // pixels
    pipeline::Detections d;
    d.width = 640;
    d.height = 480;
    double var = 0;
    for (int i = 0; i < 200; ++i) {
      decode::Fiducial f;
      f.id = 7;
      f.x = 320 + n(rng);
      f.y = 240 + n(rng);
      f.angle = 6.2 + 0.05 * n(rng);  // near 2π: the filter must not jump across the wrap
      f.root_size = 80;
      d.fiducials = {f};
      const auto& fr = t.update(d, i / 60.0);
      EXPECT_EQ(fr.objects.size(), 1u);
      const double dx = fr.objects[0].m.x * 640 - 320;
      const float a = fr.objects[0].angle;
      EXPECT_TRUE(a > 5.5f || a < 0.5f) << a;
      if (i > 20) var += dx * dx;
    }
    return var;
  };
  EXPECT_LT(jitter_of(true), jitter_of(false) / 4);
}

namespace {
pipeline::Detections table(std::vector<decode::Fiducial> fiducials, std::vector<decode::RootCandidate> roots = {}) {
  pipeline::Detections d;
  d.width = 640;
  d.height = 480;
  d.fiducials = std::move(fiducials);
  d.roots = std::move(roots);
  return d;
}

decode::Fiducial symbol(int id, double x, double y, double angle = 1.0) {
  decode::Fiducial f;
  f.id = id;
  f.x = x;
  f.y = y;
  f.angle = angle;
  f.root_size = 80;
  f.root_x = x - 3;  // the root's centroid is off the symbol centre (leaves weigh unevenly)
  f.root_y = y + 2;
  f.root_colour = 255;
  return f;
}
}  // namespace

// Spec §6.4: a symbol of another ID where an object is, is a misread of that object until it has
// been seen more often than the object's conflict threshold allows (fresh objects: the 3rd time).
TEST(Track, MisreadIdsKeepTheObjectUntilTheSymbolReallyChanged) {
  track::Tracker t;
  t.update(table({symbol(5, 300, 200)}), 0.0);
  const auto session = t.frame().objects.at(0).session_id;
  for (int k = 1; k <= 2; ++k) {
    const auto& f = t.update(table({symbol(9, 301, 200, 1.1)}), k / 60.0);
    ASSERT_EQ(f.objects.size(), 1u) << "misread " << k;
    EXPECT_EQ(f.objects[0].symbol_id, 5);
    EXPECT_EQ(f.objects[0].session_id, session);
    EXPECT_EQ(f.objects[0].tracking, track::Tracking::fuzzy);
    EXPECT_NEAR(f.objects[0].m.x * 640, 301, 1e-3);
    EXPECT_NEAR(f.objects[0].angle, 1.1, 1e-6);
  }
  const auto& f = t.update(table({symbol(9, 301, 200)}), 3 / 60.0);
  ASSERT_EQ(f.objects.size(), 1u);
  EXPECT_EQ(f.objects[0].symbol_id, 9) << "the third sighting of the other ID replaces the object";
  EXPECT_NE(f.objects[0].session_id, session);

  // An object found for many frames tolerates more misreads (threshold 9: replaced at the 6th).
  track::Tracker u;
  for (int k = 0; k < 20; ++k) u.update(table({symbol(5, 300, 200)}), k / 60.0);
  int kept = 0;
  for (int k = 20; k < 30 && u.frame().objects.at(0).symbol_id == 5; ++k) {
    u.update(table({symbol(9, 300, 200)}), k / 60.0);
    kept += u.frame().objects.at(0).symbol_id == 5;
  }
  EXPECT_EQ(kept, 5);
  // A symbol of another ID out of reach (root size / 1.1) is a new object beside the old one.
  track::Tracker v;
  v.update(table({symbol(5, 300, 200)}), 0);
  EXPECT_EQ(v.update(table({symbol(9, 400, 200)}), 1 / 60.0).objects.size(), 2u);
}

// Spec §6.5: a symbol whose inside stops decoding keeps its session and follows its root region,
// with its angle kept, for as long as the root is seen.
TEST(Track, LostSymbolsFollowTheirRootRegion) {
  track::Tracker t;
  t.update(table({symbol(5, 300, 200, 2.0)}), 0.0);
  const auto session = t.frame().objects.at(0).session_id;
  for (int k = 1; k <= 10; ++k) {
    decode::RootCandidate root{297.0 + 2 * k, 202.0, 80, 255, 1};
    const auto& f = t.update(table({}, {root}), k / 60.0);
    ASSERT_EQ(f.objects.size(), 1u) << "frame " << k;
    EXPECT_EQ(f.objects[0].session_id, session);
    EXPECT_EQ(f.objects[0].tracking, track::Tracking::root);
    EXPECT_NEAR(f.objects[0].m.x * 640, 300 + 2 * k, 1e-3) << "root centroid + the offset measured when found";
    EXPECT_NEAR(f.objects[0].m.y * 480, 200, 1e-3);
    EXPECT_NEAR(f.objects[0].angle, 2.0, 1e-6);
  }
  // A root of the wrong colour or size does not hold it: removed after the usual missed frames.
  decode::RootCandidate black{317.0, 202.0, 80, 0, 1}, small{317.0, 202.0, 40, 255, 1};
  t.update(table({}, {black, small}), 11 / 60.0);
  EXPECT_EQ(t.update(table({}, {black, small}), 12 / 60.0).objects.size(), 0u);
}

// The same on a real printed symbol: wipe its inside (every region the root encloses takes the
// root's colour) and the detector offers the root as a candidate, which keeps the object alive.
TEST(Track, RealSymbolWithItsInsideWipedIsTrackedByItsRoot) {
  if (!codec::available()) GTEST_SKIP() << "the printed symbols are PNG files and this build has no PNG support";
  synth::Generator gen(test::source_path("data/amoeba/symbols"));
  synth::SceneParams q;
  q.symbols = 1;
  q.fingers = 0;
  q.seed = 11;
  auto scene = gen.make(q);
  pipeline::Detector det(pipeline::DetectorParams{});
  track::Tracker t;
  const auto& d0 = det.detect(scene.image.view());
  ASSERT_EQ(d0.fiducials.size(), 1u);
  const auto root = d0.fiducials[0].root;
  // The detector keeps no run lists without fingers or blobs: segment the frame again, with them
  // (the same definition numbers the regions the same way).
  Image<std::uint8_t> binary(scene.image.width(), scene.image.height());
  threshold::threshold_cpu(scene.image.view(), binary.view(), pipeline::DetectorParams::default_threshold());
  segment::RegionTree tree;
  segment::segment_cpu(binary.view(), d0.tree->cap, tree);
  ASSERT_EQ(tree.size(), d0.tree->size());
  const std::uint8_t colour = scene.image(tree.first_x[root], tree.first_y[root]) > 127 ? 255 : 0;
  std::vector<std::pair<int, int>> inside;  // pixels of regions whose ancestor chain reaches the root
  for (int r = 0; r < tree.size(); ++r) {
    int a = tree.parent[r];
    while (a >= 0 && a != root) a = tree.parent[a];
    if (a != root) continue;
    for (int i = tree.run_begin[r]; i < tree.run_begin[r + 1]; ++i)
      for (int x = tree.runs[i].x0; x <= tree.runs[i].x1; ++x) inside.emplace_back(x, tree.runs[i].y);
  }
  ASSERT_FALSE(inside.empty());
  t.update(d0, 0.0);
  const auto session = t.frame().objects.at(0).session_id;
  const double x0 = t.frame().objects[0].m.x;
  for (auto [x, y] : inside) scene.image(x, y) = colour;
  for (int k = 1; k <= 5; ++k) {
    const auto& d = det.detect(scene.image.view());
    EXPECT_TRUE(std::none_of(d.fiducials.begin(), d.fiducials.end(), [](const auto& f) { return !f.fuzzy(); }));
    ASSERT_FALSE(d.roots.empty()) << "frame " << k;
    const auto& f = t.update(d, k / 60.0);
    ASSERT_EQ(f.objects.size(), 1u);
    EXPECT_EQ(f.objects[0].session_id, session);
    EXPECT_NEAR(f.objects[0].m.x, x0, 1.0 / 640);
  }
}

// Spec §7.6 (obj_blob, cur_blob): a symbol's root region and a finger are also TUIO blobs, with
// their owner's session ID, moving with it and gone with it; plain blobs never take them over.
// Issue #32: a finger keeps one cursor session while it stays down, while prints slide, turn and
// bounce around it, and no cursor appears anywhere else (on a print or its leaves), with 14 px
// fingers and the default sensitivity.
TEST(Track, AFingerKeepsOneSessionWhileItStaysDown) {
  if (!codec::available()) GTEST_SKIP() << "needs PNG support to read the printed symbols";
  synth::Generator gen(test::symbols_dir());
  synth::SceneParams q;
  q.symbols = 6;
  q.fingers = 3;
  q.finger_size = 14;
  q.min_size = 60;
  q.max_size = 100;
  q.speed = 6;
  q.spin = 0.03;
  pipeline::DetectorParams config;
  config.fingers.size = 14;
  int stray = 0, shown = 0, checked = 0;
  for (std::uint32_t seed : {9u, 17u}) {
    q.seed = seed;
    pipeline::Detector detector(config);
    track::Tracker tracker;
    std::map<int, std::set<int>> sessions_of_finger;
    int true_fingers = 0;
    for (q.frame = 0; q.frame < 60; ++q.frame) {
      const auto scene = gen.make(q);
      true_fingers = static_cast<int>(scene.fingers.size());
      const auto& f = tracker.update(detector.detect(scene.image.view()), q.frame / 60.0);
      for (const auto& c : f.cursors) {
        if (!c.visible) continue;
        ++shown;
        const double x = static_cast<double>(c.m.x) * scene.image.width(), y = static_cast<double>(c.m.y) * scene.image.height();
        int nearest = -1;
        for (std::size_t k = 0; k < scene.fingers.size(); ++k)
          if (std::hypot(scene.fingers[k].x - x, scene.fingers[k].y - y) < scene.fingers[k].size / 2) nearest = static_cast<int>(k);
        if (nearest < 0) {
          ++stray;
          ADD_FAILURE() << "seed " << seed << " frame " << q.frame << ": a cursor at " << x << "," << y << " is no finger";
        } else {
          sessions_of_finger[nearest].insert(c.session_id);
        }
      }
    }
    ASSERT_GT(true_fingers, 0);
    for (int k = 0; k < true_fingers; ++k, ++checked)
      EXPECT_EQ(sessions_of_finger[k].size(), 1u) << "seed " << seed << ": finger " << k << " had " << sessions_of_finger[k].size()
                                                  << " sessions";
  }
  EXPECT_EQ(stray, 0);
  EXPECT_GT(shown, 0);
  EXPECT_GT(checked, 3);
}

TEST(Track, ObjectAndFingerBlobsShareTheirOwnersSessionAndLifetime) {
  auto frame_with = [](double shift, bool with_symbol) {
    pipeline::Detections d = table(with_symbol ? std::vector<decode::Fiducial>{symbol(5, 100 + shift, 100)} : std::vector<decode::Fiducial>{});
    d.object_blobs = d.finger_blobs = true;
    if (with_symbol) d.fiducial_blobs = {{97 + shift, 102, 80, 78, 0.5, 4000, 3}};
    d.fingers = {{300 + shift, 200, 14, 12, 0.0, 0.01, 130, 7}};
    d.blobs = {{100 + shift, 100, 60, 30, 0.2, 1500, 9}};  // where the symbol is once it has gone
    if (with_symbol) d.blobs.clear();
    return d;
  };
  auto blob_of = [](const track::Frame& f, std::int32_t session, track::BlobOwner owner) -> const track::TrackedBlob* {
    for (const auto& b : f.blobs)
      if (b.session_id == session && b.owner == owner) return &b;
    return nullptr;
  };
  track::Tracker t;
  const track::Frame& f1 = t.update(frame_with(0, true), 0.0);
  ASSERT_EQ(f1.objects.size(), 1u);
  ASSERT_EQ(f1.cursors.size(), 1u);
  const auto object = f1.objects[0].session_id, cursor = f1.cursors[0].session_id;
  const auto* ob = blob_of(f1, object, track::BlobOwner::object);
  ASSERT_NE(ob, nullptr) << "the object's blob appears with the object";
  EXPECT_TRUE(ob->visible);
  EXPECT_NEAR(ob->m.x * 640, 97, 1e-3);
  EXPECT_NEAR(ob->width * 640, 80, 1e-3);
  EXPECT_NEAR(ob->area * 640 * 480, 4000, 1e-2);
  const auto* cb = blob_of(f1, cursor, track::BlobOwner::cursor);
  ASSERT_NE(cb, nullptr);
  EXPECT_FALSE(cb->visible) << "shown with its cursor, from the cursor's second frame";

  const track::Frame& f2 = t.update(frame_with(4, true), 1 / 60.0);
  ob = blob_of(f2, object, track::BlobOwner::object);
  cb = blob_of(f2, cursor, track::BlobOwner::cursor);
  ASSERT_TRUE(ob && cb);
  EXPECT_NEAR(ob->m.x * 640, 101, 1e-3) << "moves with its object";
  EXPECT_GT(ob->m.vx, 0.0f);
  EXPECT_TRUE(cb->visible && cb->updated);
  EXPECT_NEAR(cb->m.x * 640, 304, 1e-3);
  EXPECT_EQ(f2.blobs.size(), 2u);
  EXPECT_TRUE(f2.blobs_changed);

  // The symbol goes; a plain blob shows up where it was. The object's blob leaves with the object
  // (after the object's missed frames), and the plain blob becomes a blob of its own.
  t.update(frame_with(8, false), 2 / 60.0);
  const track::Frame& f4 = t.update(frame_with(8, false), 3 / 60.0);
  EXPECT_TRUE(f4.objects.empty());
  EXPECT_EQ(blob_of(f4, object, track::BlobOwner::object), nullptr) << "gone with its object";
  int plain = 0;
  for (const auto& b : f4.blobs)
    if (b.owner == track::BlobOwner::none) {
      ++plain;
      EXPECT_NE(b.session_id, object);
      EXPECT_NE(b.session_id, cursor);
    }
  EXPECT_EQ(plain, 1);
  EXPECT_NE(blob_of(f4, cursor, track::BlobOwner::cursor), nullptr) << "the finger is still there";
}

// The same end to end: real symbols and fingers from the generator, blobs on from the command line.
TEST(Track, ObjectBlobsFromTheCommandLine) {
  if (!codec::available()) GTEST_SKIP() << "the printed symbols are PNG files and this build has no PNG support";
  const auto r = test::run_cli("track --synth 4 --finger-size 18 --object-blobs --finger-blobs --no-tuio --json --backend cpu");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::string last;
  std::istringstream lines(r.output);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("{", 0) == 0) last = line;
  ASSERT_FALSE(last.empty()) << r.output;
  const auto frame = nlohmann::json::parse(last);
  // Every object has a blob with its session ID, marked "of": "object"; so has every cursor.
  ASSERT_GE(frame["objects"].size(), 5u);
  ASSERT_GE(frame["cursors"].size(), 1u);
  for (const char* kind : {"objects", "cursors"})
    for (const auto& item : frame[kind]) {
      int blobs = 0;
      for (const auto& b : frame["blobs"])
        if (b["session"] == item["session"]) blobs += b.value("of", "") == (std::string(kind) == "objects" ? "object" : "cursor");
      EXPECT_EQ(blobs, 1) << kind << " " << item.dump();
    }
}

namespace {
// A camera that delivers `frames` frames (grey level = a running number), then fails: returns
// false, or throws when `throws`.
class FakeCamera final : public source::FrameSource {
 public:
  FakeCamera(int frames, bool throws, int& counter) : left_(frames), throws_(throws), counter_(counter) {}
  bool next(Image<std::uint8_t>& frame) override {
    if (left_-- <= 0) {
      if (throws_) fail(ErrorCode::io, "read error");
      return false;
    }
    frame = Image<std::uint8_t>(4, 4);
    frame.fill(static_cast<std::uint8_t>(++counter_));
    return true;
  }
  std::string describe() const override { return "fake camera"; }

 private:
  int left_;
  bool throws_;
  int& counter_;
};
}  // namespace

// A camera that is unplugged and plugged in again: frames continue after it is back, with one
// message when it is lost and one when it is back; while it is missing, stopping does not hang.
TEST(Source, ALostCameraIsReopenedAndFramesContinue) {
  int counter = 0, opens = 0;
  std::vector<std::string> messages;
  auto open = [&]() -> std::unique_ptr<source::FrameSource> {
    ++opens;
    if (opens == 2 || opens == 3) fail(ErrorCode::io, "no such device");  // unplugged for a while
    return std::make_unique<FakeCamera>(3, opens == 4, counter);
  };
  auto cam = source::make_reconnecting_source(open, "camera 7", [&](const std::string& m) { messages.push_back(m); }, 0.01);
  Image<std::uint8_t> frame;
  std::vector<int> seen;
  for (int i = 0; i < 8; ++i) {
    ASSERT_TRUE(cam->next(frame));
    seen.push_back(frame(0, 0));
  }
  EXPECT_EQ(seen, (std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(opens, 5);  // lost after 3 frames (false), two failed reopenings, lost after 3 more (error)
  ASSERT_EQ(messages.size(), 4u);
  EXPECT_NE(messages[0].find("camera 7 stopped delivering frames"), std::string::npos) << messages[0];
  EXPECT_EQ(messages[1], "camera 7 is back");
  EXPECT_NE(messages[2].find("read error"), std::string::npos) << messages[2];
  EXPECT_EQ(messages[3], "camera 7 is back");

  // A camera missing at start-up is an error; one that never comes back does not hang a stop.
  EXPECT_THROW(source::make_reconnecting_source([]() -> std::unique_ptr<source::FrameSource> { fail(ErrorCode::io, "none"); },
                                                "camera 9", {}),
               Error);
  int gone = 0;
  auto once = source::make_reconnecting_source(
      [&, first = true]() mutable -> std::unique_ptr<source::FrameSource> {
        if (!first) fail(ErrorCode::io, "gone");
        first = false;
        return std::make_unique<FakeCamera>(1, false, gone);
      },
      "camera 8", {}, 0.05);
  const auto t0 = std::chrono::steady_clock::now();
  {
    source::CaptureThread capture(std::move(once), 0);
    double arrival = 0;
    ASSERT_TRUE(capture.take(frame, arrival));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the camera is gone, being retried
    capture.stop();
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 1.0) << "stopping hung";
}

// An XML entity bomb ("billion laughs") is not expanded: tinyxml2 knows only the five predefined
// entities, so the file is refused quickly with a one-line error instead of eating memory.
TEST(Config, AnEntityBombIsRefusedNotExpanded) {
  if (!config::xml_available()) GTEST_SKIP() << "built without the XML adapter (tinyxml2)";
  const std::string path = test::temp_path("bomb.xml");
  std::string xml = "<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [\n <!ENTITY lol \"lol\">\n";
  for (int i = 1; i <= 9; ++i) {
    xml += " <!ENTITY lol" + std::to_string(i) + " \"";
    for (int k = 0; k < 10; ++k) xml += "&lol" + (i > 1 ? std::to_string(i - 1) : std::string()) + ";";
    xml += "\">\n";
  }
  xml += "]>\n<reactivision><tuio source=\"&lol9;\" /></reactivision>\n";
  std::ofstream(path) << xml;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    const auto c = config::load_reactivision_xml(path);
    EXPECT_LT(c.tuio_options.source.size(), 100u) << "the entity was expanded";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 1.0);
}

// `track --grid`: TUIO positions come out in table coordinates. A grid shifted by (0.125,
// -0.0625) cells is (-10, +5) px at 640x480 for every object; a grid for another camera size is a
// one-line error.
TEST(Track, GridMovesEveryObjectIntoTableCoordinates) {
  if (!codec::available()) GTEST_SKIP() << "the printed symbols are PNG files and this build has no PNG support";
  const std::string seq = test::temp_path("grid-seq"), grid_path = test::temp_path("shift.grid");
  ASSERT_EQ(test::run_cli("synth " + quote(seq) + " --count 1 --symbols 5 --seed 8 --overwrite").exit_code, 0);
  calibration::CalibrationGrid grid = calibration::CalibrationGrid::zero(640, 480);
  for (auto& p : grid.points) p = {0.125, -0.0625};
  grid.write(grid_path);
  auto first_frame = [&](const std::string& flags) {
    const auto r = test::run_cli("track --folder " + quote(seq) + " --no-tuio --json --backend cpu " + flags);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    std::map<int, std::pair<double, double>> at;
    std::istringstream lines(r.output);
    for (std::string line; std::getline(lines, line);)
      if (line.rfind("{", 0) == 0) {
        const auto frame = nlohmann::json::parse(line);
        for (const auto& o : frame["objects"]) at[o["id"].get<int>()] = {o["x"].get<double>(), o["y"].get<double>()};
        break;
      }
    return at;
  };
  const auto plain = first_frame(""), moved = first_frame("--grid " + quote(grid_path));
  ASSERT_GE(plain.size(), 4u);
  ASSERT_EQ(moved.size(), plain.size());
  for (const auto& [id, p] : plain) {
    EXPECT_NEAR(moved.at(id).first, p.first - 10.0 / 640, 1e-5) << id;
    EXPECT_NEAR(moved.at(id).second, p.second + 5.0 / 480, 1e-5) << id;
  }
  calibration::CalibrationGrid::zero(1280, 720).write(grid_path);
  const auto bad = test::run_cli("track --folder " + quote(seq) + " --no-tuio --backend cpu --grid " + quote(grid_path));
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.output.find("another camera size"), std::string::npos) << bad.output;
}

// `gpuvis track --view ADDR:PORT` beyond loopback prints the page's address with a fresh token (or
// the --view-token given); on loopback, no token unless given.
TEST(Track, TheLiveViewBeyondLoopbackPrintsItsToken) {
  if (!output::live_view_available()) GTEST_SKIP() << "built without the live view (Boost)";
  const auto open = test::run_cli("track --synth 2 --view 0.0.0.0:0 --backend cpu --no-tuio");
  ASSERT_EQ(open.exit_code, 0) << open.output;
  const auto at = open.output.find("/?token=");
  ASSERT_NE(at, std::string::npos) << open.output;
  EXPECT_EQ(open.output.substr(at + 8, 32).find_first_not_of("0123456789abcdef"), std::string::npos) << open.output;
  const auto given = test::run_cli("track --synth 2 --view 0.0.0.0:0 --view-token my-table_1 --backend cpu --no-tuio");
  EXPECT_NE(given.output.find("/?token=my-table_1 "), std::string::npos) << given.output;
  const auto local = test::run_cli("track --synth 2 --view 0 --backend cpu --no-tuio");
  EXPECT_EQ(local.output.find("token"), std::string::npos) << local.output;
  const auto bad = test::run_cli("track --synth 2 --view 0 --view-token 'a b' --backend cpu --no-tuio");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.output.find("a token is 1-128 letters"), std::string::npos) << bad.output;
}

// reacTIVision.xml, from its element tree (config/xml_tree.hpp). Element and attribute names and their meaning follow the
// behaviour spec §9.1; values are validated here with the line they came from.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string_view>
#include <vector>

#include "gpuvis/config/reactivision.hpp"
#include "gpuvis/io/read_limited.hpp"
#include "gpuvis/io/text_file.hpp"
#include "gpuvis/core/error.hpp"
#include "config/xml_tree.hpp"

namespace gpuvis::config {

namespace {

// The attributes each element of spec §9.1 has. Anything else is named in a warning, so a typo or
// a setting of another reacTIVision version is never silently dropped.
struct ElementSpec {
  const char* name;
  std::vector<const char*> attributes;
};
const std::vector<ElementSpec>& elements() {
  static const std::vector<ElementSpec> table = {
      {"camera", {"config"}},
      {"tuio", {"type", "host", "port", "source", "version"}},
      {"fiducial", {"amoeba", "yamaarashi", "mirror", "max_fid"}},
      {"finger", {"size", "sensitivity", "contrast"}},
      {"blob", {"min_size", "max_size", "obj_blob", "cur_blob"}},
      {"filter", {"fiducial", "finger", "blob"}},
      {"image", {"display", "equalize", "fullscreen"}},
      {"threshold", {"type", "gradient", "size", "contrast", "threads", "tile", "sharpen"}},
      {"calibration", {"invert", "grid", "file"}},
  };
  return table;
}

void warn_unknown_attributes(const Reader& r, const XmlElement& e, const ElementSpec& spec) {
  for (const auto& [name, value] : e.attributes) {
    bool known = false;
    for (const char* k : spec.attributes) known = known || name == k;
    if (!known) r.warnings->push_back(r.where(e, name.c_str()) + ": unknown attribute, ignored");
  }
}

std::string relative_to(const std::string& config_path, const std::string& file) {
  if (std::filesystem::path(file).is_absolute()) return file;
  return (std::filesystem::path(config_path).parent_path() / file).string();
}

void read_tuio(const Reader& r, const XmlElement& e, ReacTIVisionConfig& cfg) {
  const char* type = e.attribute("type");
  if (!type) {  // <tuio source="..."/> names the TUIO source
    if (const char* src = e.attribute("source")) cfg.tuio_options.source = src;
    return;
  }
  const std::string t = type;
  if (t == "flc") {  // Flash LocalConnection: removed in reacTIVision 1.6 too
    r.warnings->push_back(r.where(e, "type") + ": flc (Flash) was removed from reacTIVision 1.6; ignored");
    return;
  }
  if (t != "udp" && t != "tcp" && t != "web") r.bad(e, "type", "'" + t + "' is not udp, tcp, web or flc");
  const char* host = e.attribute("host");
  if (host && std::string_view(host).size() > 253)  // the longest name DNS can resolve
    r.bad(e, "host", "longer than the 253 characters a host name may have");
  output::TuioTarget target;
  // Servers listen on 127.0.0.1 only, where reacTIVision listens on every interface: nothing is
  // reachable from the network unless asked for (a web server's host names its interface; a TCP
  // server's host is "server", so --tuio tcp:server:0.0.0.0:PORT opens one to the network).
  if (host && std::string(host) == "server") {  // a TCP server, whatever the type (spec §8.1)
    target.transport = output::Transport::tcp_server;
    target.host = output::kLoopback;
    r.warnings->push_back(r.where(e, "host") + ": the TCP server listens on 127.0.0.1 only (reacTIVision: every "
                                               "interface); --tuio tcp:server:0.0.0.0:PORT opens it to the network");
  } else if (t == "web") {  // a WebSocket server
    target.transport = output::Transport::websocket;
    target.host = host ? host : output::kLoopback;
  } else {
    target.transport = t == "tcp" ? output::Transport::tcp : output::Transport::udp;
    if (host) target.host = host;
  }
  if (!r.integer(e, "port", 1, 65535, target.port)) target.port = t == "web" ? 8080 : 3333;
  // gpuvis's addition: version="2" sends TUIO 2.0 to this target (reacTIVision 1.6 sends 1.1 only).
  if (const char* v = e.attribute("version")) {
    const std::string version = v;
    if (version == "2" || version == "2.0") target.version = 2;
    else if (version != "1" && version != "1.1") r.bad(e, "version", "is 1.1 or 2");
  }
  cfg.tuio.push_back(target);
}

void read_fiducial(const Reader& r, const XmlElement& e, ReacTIVisionConfig& cfg) {
  auto& det = cfg.detector;
  if (const char* amoeba = e.attribute("amoeba")) {
    const std::string trees = amoeba;
    det.trees = trees.find(".trees") != std::string::npos ? relative_to(r.path, trees) : trees;
  }
  r.boolean(e, "yamaarashi", det.yamaarashi);
  r.boolean(e, "mirror", det.mirror);
  if (!r.integer(e, "max_fid", 0, 1 << 30, det.max_fid)) {
    // reacTIVision 1.6 then reports every ID as fuzzy and creates no object at all (spec Q19).
    det.max_fid = 0;
    r.warnings->push_back(r.where(e, "max_fid") +
                          ": absent; reacTIVision 1.6 would then report every symbol as fuzzy (no objects), gpuvis "
                          "sets no limit (write max_fid=\"0\" to say so)");
  }
}

void read_threshold(const Reader& r, const XmlElement& e, ReacTIVisionConfig& cfg) {
  auto& det = cfg.detector;
  const char* type = e.attribute("type");
  // Any type other than exactly "br" selects tiled Bernsen; without one the code's default, BR
  // (spec §2.1, Q31: the shipped XML's comment calls TB the default).
  const bool br = type ? std::string(type) == "br" : true;
  if (type && std::string(type) == "bernsen") {  // gpuvis's own Bernsen (save_reactivision_xml writes it)
    det.threshold.method = threshold::Method::bernsen;
    r.integer(e, "size", 1, 4096, det.threshold.bernsen.half_window);
    r.integer(e, "contrast", 0, 255, det.threshold.bernsen.gate);
    r.integer(e, "sharpen", 0, 4, det.threshold.sharpen);
    return;
  }
  r.integer(e, "sharpen", 0, 4, det.threshold.sharpen);  // gpuvis's addition (Params::sharpen)
  if (!type)
    r.warnings->push_back(r.where(e, "type") + ": absent; Bradley-Roth (br), reacTIVision 1.6's default "
                                               "(write type=\"tb\" for tiled Bernsen)");
  if (e.attribute("tile"))
    r.warnings->push_back(r.where(e, "tile") + ": ignored, as reacTIVision 1.6 does; the tile size is size=");
  int gradient = 16, size = 16, contrast = 32;
  r.integer(e, "gradient", 0, 64, gradient);
  if (const char* v = e.attribute("size"); v && std::string(v) == "min") size = 2;
  else r.integer(e, "size", 1, 4096, size);  // "max": 4096, a tile or window at least as big as the frame
  r.integer(e, "contrast", 0, 255, contrast);
  if (br) {
    det.threshold.method = threshold::Method::bradley_roth;
    det.threshold.bradley_roth = {size, static_cast<float>(gradient) / 100.0f, contrast};
  } else {
    det.threshold.method = threshold::Method::tiled;
    det.threshold.tiled = {std::max(2, size), gradient};
  }
  // reacTIVision splits the frame into `threads` strips, and tiled Bernsen restarts its tiles at
  // each strip (spec §2.2, Q3). gpuvis uses the threads for speed only: its output is one strip's.
  if (const char* v = e.attribute("threads")) {
    if (std::string(v) == "max") cfg.threads = 0;
    else r.integer(e, "threads", 1, 1024, cfg.threads);
    if (!br && cfg.threads != 1)
      r.warnings->push_back(r.where(e, "threads") + ": used as CPU threads; the tiled threshold is computed as one "
                                                     "strip, as reacTIVision does with threads=\"1\"");
  }
}

void read_calibration(const Reader& r, const XmlElement& e, ReacTIVisionConfig& cfg) {
  if (const char* inv = e.attribute("invert")) {
    for (const char* c = inv; *c; ++c) {
      if (*c == 'x') cfg.tuio_options.invert_x = true;
      else if (*c == 'y') cfg.tuio_options.invert_y = true;
      else if (*c == 'a') cfg.tuio_options.invert_angle = true;
      else if (*c != ' ') r.bad(e, "invert", "takes the letters x, y and a");
    }
  }
  if (const char* grid = e.attribute("grid")) {
    // Relative to the XML's folder, so a table's settings and its grid travel together.
    std::filesystem::path p(grid);
    if (p.is_relative()) p = std::filesystem::path(r.path).parent_path() / p;
    try {
      cfg.detector.calibration = calibration::CalibrationGrid::read(p.string());
    } catch (const Error& err) {
      r.bad(e, "grid", std::string("cannot be read: ") + err.what());
    }
  }
  if (e.attribute("file"))  // the shipped XMLs' attribute, which reacTIVision 1.6 ignores (Q28)
    r.warnings->push_back(r.where(e, "file") + ": ignored, as reacTIVision 1.6 does (its attribute is grid=)");
}

void read_image(const Reader& r, const XmlElement& e, ReacTIVisionConfig& cfg) {
  r.boolean(e, "equalize", cfg.detector.equalize);
  if (const char* d = e.attribute("display")) {
    const std::string display = d;
    if (display != "none" && display != "src" && display != "dest") r.bad(e, "display", "'" + display + "' is not none, src or dest");
    if (display != "none")
      r.warnings->push_back(r.where(e, "display") + ": gpuvis track has no display window yet; runs as display=\"none\" "
                                                   "(see the frames with gpuvis detect --annotate)");
  }
  bool fullscreen = false;
  if (r.boolean(e, "fullscreen", fullscreen) && fullscreen)
    r.warnings->push_back(r.where(e, "fullscreen") + ": gpuvis track has no display window yet; ignored");
}

}  // namespace

ReacTIVisionConfig load_reactivision_xml(const std::string& path) {
  const XmlElement root = load_xml(path, "reactivision");
  ReacTIVisionConfig cfg;
  Reader r{path, &cfg.warnings};
  auto& det = cfg.detector;
  for (const XmlElement& e : root.children) {
    const std::string& name = e.name;
    const ElementSpec* spec = nullptr;
    for (const auto& s : elements())
      if (name == s.name) spec = &s;
    if (!spec) {
      cfg.warnings.push_back(r.where(e, nullptr) + ": unknown element, ignored");
      continue;
    }
    warn_unknown_attributes(r, e, *spec);
    if (name == "tuio") read_tuio(r, e, cfg);
    else if (name == "fiducial") read_fiducial(r, e, cfg);
    else if (name == "finger") {
      r.integer(e, "size", 0, 4096, det.fingers.size);
      int s = 75;
      if (r.integer(e, "sensitivity", 0, 200, s)) det.fingers.sensitivity = s / 100.0;
      r.integer(e, "contrast", 0, 255, det.fingers.contrast);
    } else if (name == "blob") {
      r.integer(e, "min_size", 0, 1 << 20, det.blobs.min_size);
      r.integer(e, "max_size", 0, 1 << 20, det.blobs.max_size);
      if (det.blobs.max_size > 0 && det.blobs.max_size < det.blobs.min_size) r.bad(e, "max_size", "is smaller than min_size");
      r.boolean(e, "obj_blob", det.blobs.object_blobs);
      r.boolean(e, "cur_blob", det.blobs.finger_blobs);
    } else if (name == "threshold") read_threshold(r, e, cfg);
    else if (name == "calibration") read_calibration(r, e, cfg);
    else if (name == "image") read_image(r, e, cfg);
    else if (name == "camera") {
      if (const char* c = e.attribute("config")) cfg.camera_config = std::string(c) == "default" ? "default" : relative_to(path, c);
    } else if (name == "filter") {
      r.boolean(e, "fiducial", cfg.tracker.smooth_objects);
      r.boolean(e, "finger", cfg.tracker.smooth_cursors);
      r.boolean(e, "blob", cfg.tracker.smooth_blobs);
    }
  }
  threshold::validate(det.threshold);
  return cfg;
}

namespace {

// save_reactivision_xml's attribute edits, in the order they are made.
struct Edits {
  std::vector<XmlEdit> list;
  void set(const char* element, const char* attribute, const std::string& value) { list.push_back({element, attribute, value}); }
  void set(const char* element, const char* attribute, int value) { set(element, attribute, std::to_string(value)); }
  void remove(const char* element, const char* attribute) { list.push_back({element, attribute, std::nullopt}); }
};

// The threshold's settings, as <threshold> attributes.
void write_threshold(Edits& out, const threshold::Params& t) {
  auto sharpen = [&] {
    if (t.sharpen > 0) out.set("threshold", "sharpen", t.sharpen);
    else out.remove("threshold", "sharpen");
  };
  switch (t.method) {
    case threshold::Method::bradley_roth:
      out.set("threshold", "type", "br");
      sharpen();
      out.set("threshold", "gradient", static_cast<int>(std::lround(100.0 * t.bradley_roth.bias)));
      out.set("threshold", "size", t.bradley_roth.size);
      out.set("threshold", "contrast", t.bradley_roth.contrast);
      break;
    case threshold::Method::tiled:
      out.set("threshold", "type", "tb");
      sharpen();
      out.set("threshold", "size", t.tiled.tile);
      out.set("threshold", "gradient", t.tiled.gradient);
      break;
    case threshold::Method::bernsen:
      out.set("threshold", "type", "bernsen");
      out.set("threshold", "size", t.bernsen.half_window);
      out.set("threshold", "contrast", t.bernsen.gate);
      sharpen();
      out.remove("threshold", "gradient");
      break;
  }
}

}  // namespace

void save_reactivision_xml(const std::string& path, const ReacTIVisionConfig& cfg, const std::string& grid) {
  // An existing file keeps everything but these attributes (its errors name the file and line).
  const std::string existing = std::filesystem::exists(path) ? read_limited(path, kMaxConfigBytes, "config file") : std::string();
  const auto& det = cfg.detector;
  Edits e;
  write_threshold(e, det.threshold);
  e.set("finger", "size", det.fingers.size);
  e.set("finger", "sensitivity", static_cast<int>(std::lround(100.0 * det.fingers.sensitivity)));
  e.set("finger", "contrast", det.fingers.contrast);
  e.set("blob", "min_size", det.blobs.min_size);
  e.set("blob", "max_size", det.blobs.max_size);
  e.set("blob", "obj_blob", det.blobs.object_blobs ? "true" : "false");
  e.set("blob", "cur_blob", det.blobs.finger_blobs ? "true" : "false");
  e.set("fiducial", "yamaarashi", det.yamaarashi ? "true" : "false");
  e.set("fiducial", "mirror", det.mirror ? "true" : "false");
  e.list.push_back({"fiducial", "max_fid", std::to_string(det.max_fid), true});
  e.set("image", "equalize", cfg.detector.equalize ? "true" : "false");
  std::string invert = " ";  // reacTIVision writes a space before the letters (spec §9.1)
  if (cfg.tuio_options.invert_x) invert += 'x';
  if (cfg.tuio_options.invert_y) invert += 'y';
  if (cfg.tuio_options.invert_angle) invert += 'a';
  e.set("calibration", "invert", invert);
  if (!grid.empty()) e.set("calibration", "grid", grid);
  write_file_atomically(path, edited_xml(path, existing, "reactivision", e.list));
}

}  // namespace gpuvis::config

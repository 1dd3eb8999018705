// reacTIVision.xml through tinyxml2. Element and attribute names and their meaning follow the
// behaviour spec §9.1; values are validated here with the line they came from.
#include <filesystem>

#include "gpuvis/config/reactivision.hpp"
#include "gpuvis/core/error.hpp"
#include "xml_reader.hpp"

namespace gpuvis::config {

bool xml_available() { return true; }

const tinyxml2::XMLElement* load_xml(tinyxml2::XMLDocument& doc, const std::string& path, const char* root_name) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) fail(ErrorCode::io, "config file '" + path + "' does not exist");
  if (doc.LoadFile(path.c_str()) != tinyxml2::XML_SUCCESS)
    fail(ErrorCode::format, path + ":" + std::to_string(doc.ErrorLineNum()) + ": malformed XML: " + doc.ErrorStr());
  const tinyxml2::XMLElement* root = doc.FirstChildElement(root_name);
  if (!root) fail(ErrorCode::format, path + ": the root element must be <" + root_name + ">");
  return root;
}

ReacTIVisionConfig load_reactivision_xml(const std::string& path) {
  tinyxml2::XMLDocument doc;
  const tinyxml2::XMLElement* root = load_xml(doc, path, "reactivision");
  ReacTIVisionConfig cfg;
  Reader r{path, &cfg.warnings};
  auto& det = cfg.detector;
  for (const auto* e = root->FirstChildElement(); e; e = e->NextSiblingElement()) {
    const std::string name = e->Name();
    if (name == "tuio") {
      const char* type = e->Attribute("type");
      if (!type) {  // <tuio source="..."/> names the TUIO source
        if (const char* src = e->Attribute("source")) cfg.tuio_options.source = src;
        continue;
      }
      const std::string t = type;
      if (t == "flc") continue;  // removed in reacTIVision too
      if (t != "udp" && t != "tcp" && t != "web") r.bad(e, "type", "'" + t + "' is not udp, tcp, web or flc");
      const char* host = e->Attribute("host");
      output::TuioTarget target;
      if (host && std::string(host) == "server") {  // a TCP server, whatever the type (spec §8.1)
        target.transport = output::Transport::tcp_server;
        target.host.clear();
      } else if (t == "web") {  // a WebSocket server on every interface
        target.transport = output::Transport::websocket;
        target.host.clear();
      } else {
        target.transport = t == "tcp" ? output::Transport::tcp : output::Transport::udp;
        if (host) target.host = host;
      }
      if (!r.integer(e, "port", 1, 65535, target.port)) target.port = t == "web" ? 8080 : 3333;
      cfg.tuio.push_back(target);
    } else if (name == "fiducial") {
      if (const char* amoeba = e->Attribute("amoeba")) {
        std::string trees = amoeba;
        if (trees.find(".trees") != std::string::npos && !std::filesystem::path(trees).is_absolute())
          trees = (std::filesystem::path(path).parent_path() / trees).string();
        det.trees = trees;
      }
      bool yama = false;
      if (r.boolean(e, "yamaarashi", yama) && yama) r.unsupported(e, "yamaarashi");
    } else if (name == "finger") {
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
    } else if (name == "threshold") {
      const char* type = e->Attribute("type");
      const std::string t = type ? type : "br";  // reacTIVision's code default (Q31)
      int gradient = 16, size = 16, contrast = 32;
      r.integer(e, "gradient", 0, 64, gradient);
      r.integer(e, "size", 1, 4096, size);
      r.integer(e, "contrast", 0, 255, contrast);
      if (t == "br") {
        det.threshold.method = threshold::Method::bradley_roth;
        det.threshold.bradley_roth = {size, static_cast<float>(gradient) / 100.0f, contrast};
      } else {
        det.threshold.method = threshold::Method::tiled;
        det.threshold.tiled = {std::max(2, size), gradient};
      }
    } else if (name == "calibration") {
      if (const char* inv = e->Attribute("invert")) {
        for (const char* c = inv; *c; ++c) {
          if (*c == 'x') cfg.tuio_options.invert_x = true;
          else if (*c == 'y') cfg.tuio_options.invert_y = true;
          else if (*c == 'a') cfg.tuio_options.invert_angle = true;
          else if (*c != ' ') r.bad(e, "invert", "takes the letters x, y and a");
        }
      }
      if (e->Attribute("grid") || e->Attribute("file")) r.unsupported(e, "grid");
    } else if (name == "image") {
      r.boolean(e, "equalize", cfg.equalize);
    } else if (name == "camera") {
      if (const char* c = e->Attribute("config")) {
        std::string cam = c;
        if (cam != "default" && !std::filesystem::path(cam).is_absolute())
          cam = (std::filesystem::path(path).parent_path() / cam).string();
        cfg.camera_config = cam;
      }
    } else if (name == "filter") {
      r.boolean(e, "fiducial", cfg.tracker.smooth_objects);
      r.boolean(e, "finger", cfg.tracker.smooth_cursors);
      r.boolean(e, "blob", cfg.tracker.smooth_blobs);
    } else {
      cfg.warnings.push_back(r.where(e, nullptr) + ": unknown element, ignored");
    }
  }
  threshold::validate(det.threshold);
  return cfg;
}

}  // namespace gpuvis::config

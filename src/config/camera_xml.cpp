// camera.xml (spec §9.2), from its element tree (config/xml_tree.hpp).
#include <cstdlib>
#include <filesystem>

#include "gpuvis/config/camera.hpp"
#include "config/xml_tree.hpp"

namespace gpuvis::config {
namespace {

// A <settings> value: a whole number, min, max, auto or default (= leave the camera alone).
void read_control(const Reader& r, const XmlElement& e, const char* name, std::vector<source::CameraControl>& out) {
  const char* v = e.attribute(name);
  if (!v) return;
  const std::string s = v;
  source::CameraControl c;
  c.name = name;
  if (s == "default") return;
  if (s == "auto") c.mode = source::CameraControl::Mode::automatic;
  else if (s == "min") c.mode = source::CameraControl::Mode::minimum;
  else if (s == "max") c.mode = source::CameraControl::Mode::maximum;
  else if (!r.integer(e, name, -1000000, 1000000, c.value)) return;
  out.push_back(c);
}

}  // namespace

CameraXml load_camera_xml(const std::string& path) {
  const XmlElement root = load_xml(path, "portvideo");
  CameraXml cfg;
  Reader r{path, &cfg.warnings};
  const XmlElement* camera = root.child("camera");
  if (!camera) fail(ErrorCode::format, path + ": <portvideo> has no <camera> element");
  const XmlElement& cam = *camera;
  if (const char* d = cam.attribute("driver")) {
    cfg.driver = d;
    if (cfg.driver == "dc1394" || cfg.driver == "ps3eye") {
      r.unsupported(cam, "driver");
      cfg.driver = "default";  // the same camera through V4L2 is the closest gpuvis has
    } else if (cfg.driver != "default" && cfg.driver != "file" && cfg.driver != "folder") {
      r.bad(cam, "driver", "'" + cfg.driver + "' is not default, file, folder, dc1394 or ps3eye");
    }
  }
  if (const char* id = cam.attribute("id"); id && std::string(id) != "auto") r.integer(cam, "id", 0, 255, cfg.camera.index);
  if (const char* src = cam.attribute("src")) {
    cfg.src = src;
    if (!std::filesystem::path(cfg.src).is_absolute()) cfg.src = (std::filesystem::path(path).parent_path() / cfg.src).string();
  }
  if ((cfg.driver == "file" || cfg.driver == "folder") && cfg.src.empty())
    r.bad(cam, "src", "the " + cfg.driver + " driver needs a src");
  for (const XmlElement& e : cam.children) {
    const std::string& name = e.name;
    if (name == "capture") {
      auto size = [&](const char* attr, int& out) {
        const char* v = e.attribute(attr);
        if (v && std::string(v) == "max") out = source::kLargestCaptureSize;
        else if (v && std::string(v) == "min") out = 1;
        else r.integer(e, attr, 1, source::kLargestCaptureSize, out);
      };
      size("width", cfg.camera.width);
      size("height", cfg.camera.height);
      if (const char* v = e.attribute("fps")) {
        const std::string s = v;
        if (s == "max") cfg.camera.fps = source::kHighestCaptureRate;
        else if (s == "min") cfg.camera.fps = 1;
        else {
          char* end = nullptr;
          cfg.camera.fps = std::strtod(v, &end);
          if (end == v || *end || cfg.camera.fps <= 0 || cfg.camera.fps > source::kHighestCaptureRate)
            r.bad(e, "fps", "'" + s + "' is not a rate in frames per second, min or max");
        }
      }
      if (const char* f = e.attribute("format")) cfg.camera.format = f;
      bool colour = false;
      if (r.boolean(e, "color", colour) && colour) r.unsupported(e, "color");  // frames are made grey anyway
    } else if (name == "frame") {
      cfg.crop = true;
      auto dim = [&](const char* attr, int& out) {
        const char* v = e.attribute(attr);
        if (v && (std::string(v) == "max" || std::string(v) == "min")) out = 0;  // sizes: to the edge; offsets: 0
        else r.integer(e, attr, 0, source::kLargestCaptureSize, out);
      };
      dim("width", cfg.frame.width);
      dim("height", cfg.frame.height);
      dim("xoff", cfg.frame.x);
      dim("yoff", cfg.frame.y);
      if (e.attribute("mode")) r.unsupported(e, "mode");
    } else if (name == "settings") {
      for (const char* c : {"brightness", "contrast", "sharpness", "gain", "exposure", "shutter", "focus", "white", "powerline",
                            "backlight", "gamma"})
        read_control(r, e, c, cfg.camera.controls);
    } else {
      cfg.warnings.push_back(r.where(e, nullptr) + ": unknown element, ignored");
    }
  }
  return cfg;
}

std::string find_camera_xml() {
  std::vector<std::filesystem::path> places{"camera.xml"};
  if (const char* home = std::getenv("HOME")) places.push_back(std::filesystem::path(home) / ".portvideo/camera.xml");
  for (const char* p : {"/usr/share", "/usr/local/share", "/opt/share", "/opt/local/share"})
    places.push_back(std::filesystem::path(p) / "portvideo/camera.xml");
  std::error_code ec;
  for (const auto& p : places)
    if (std::filesystem::is_regular_file(p, ec)) return p.string();
  return {};
}

std::unique_ptr<source::FrameSource> make_camera_xml_source(const CameraXml& cfg, bool loop) {
  auto s = cfg.driver == "file"     ? source::make_video_source(cfg.src, loop)
           : cfg.driver == "folder" ? source::make_folder_source(cfg.src, loop)
                                    : source::make_camera_source(cfg.camera);
  return cfg.crop ? source::make_cropped_source(std::move(s), cfg.frame) : std::move(s);
}

}  // namespace gpuvis::config

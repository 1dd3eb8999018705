#pragma once
// Attribute reading shared by the XML configuration files (reacTIVision.xml, camera.xml): every
// error names the file, the line, the element and the attribute.
#include <tinyxml2.h>

#include <cstddef>
#include <cstdlib>
#include <string>
#include <vector>

#include "gpuvis/core/error.hpp"

namespace gpuvis::config {

struct Reader {
  std::string path;
  std::vector<std::string>* warnings;

  std::string where(const tinyxml2::XMLElement* e, const char* attr) const {
    return path + ":" + std::to_string(e->GetLineNum()) + ": <" + e->Name() + (attr ? std::string(" ") + attr : "") + ">";
  }
  [[noreturn]] void bad(const tinyxml2::XMLElement* e, const char* attr, const std::string& why) const {
    fail(ErrorCode::format, where(e, attr) + ": " + why);
  }
  void unsupported(const tinyxml2::XMLElement* e, const char* attr) const {
    warnings->push_back(where(e, attr) + ": not supported by gpuvis yet, ignored");
  }
  // Integer attribute in [lo, hi]; also accepts reacTIVision's "min"/"max" keywords.
  bool integer(const tinyxml2::XMLElement* e, const char* attr, int lo, int hi, int& out) const {
    const char* v = e->Attribute(attr);
    if (!v) return false;
    const std::string s = v;
    if (s == "max") return out = hi, true;
    if (s == "min") return out = lo, true;
    char* end = nullptr;
    const long x = std::strtol(v, &end, 10);
    if (end == v || *end != '\0') bad(e, attr, "'" + s + "' is not a whole number");
    if (x < lo || x > hi) bad(e, attr, "'" + s + "' is outside " + std::to_string(lo) + ".." + std::to_string(hi));
    out = static_cast<int>(x);
    return true;
  }
  bool boolean(const tinyxml2::XMLElement* e, const char* attr, bool& out) const {
    const char* v = e->Attribute(attr);
    if (!v) return false;
    out = std::string(v) == "true" || std::string(v) == "1";
    return true;
  }
};

constexpr std::size_t kMaxConfigBytes = std::size_t{16} << 20;  // 16 MiB

// Loads `path` (at most kMaxConfigBytes) and returns its root element, which must be <root_name>.
const tinyxml2::XMLElement* load_xml(tinyxml2::XMLDocument& doc, const std::string& path, const char* root_name);

}  // namespace gpuvis::config

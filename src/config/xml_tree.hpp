#pragma once
// The configuration files' XML as a plain element tree (reacTIVision.xml, camera.xml): the XML
// plugin (libgpuvis_xml.so, tinyxml2) parses and rewrites the text; what the elements mean is read
// here, in gpuvis' own code, with every error naming the file, the line, the element and the
// attribute.
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpuvis::config {

struct XmlElement {
  std::string name;
  int line = 0;
  std::vector<std::pair<std::string, std::string>> attributes;  // in the file's order
  std::vector<XmlElement> children;                              // elements only, in order

  // The attribute's value, or null when the element has none of that name.
  const char* attribute(const std::string& key) const {
    for (const auto& [k, v] : attributes)
      if (k == key) return v.c_str();
    return nullptr;
  }
  // The first child element of that name, or null.
  const XmlElement* child(const std::string& element) const {
    for (const auto& c : children)
      if (c.name == element) return &c;
    return nullptr;
  }
};

// One change to a configuration file: set (or, without a value, remove) `attribute` of the first
// <element> under the root, which is appended when the root has none.
struct XmlEdit {
  std::string element, attribute;
  std::optional<std::string> value;
  bool only_if_absent = false;  // leave an attribute the file already has
};

inline constexpr std::size_t kMaxConfigBytes = std::size_t{16} << 20;  // 16 MiB

// Reads `path` (at most kMaxConfigBytes, refused before it is read) and returns its root element,
// which must be <root_name>. Malformed XML is ErrorCode::format naming the file and line.
XmlElement load_xml(const std::string& path, const char* root_name);

// `text` (a whole file, or empty for a new one) with the edits applied, in their order, under the
// root <root_name>; the rest of the file (comments, other elements and attributes) is kept.
std::string edited_xml(const std::string& path, const std::string& text, const char* root_name, const std::vector<XmlEdit>& edits);

// Attribute reading shared by the configuration files: every error names the file, the line, the
// element and the attribute.
struct Reader {
  std::string path;
  std::vector<std::string>* warnings;

  std::string where(const XmlElement& e, const char* attr) const;
  [[noreturn]] void bad(const XmlElement& e, const char* attr, const std::string& why) const;
  void unsupported(const XmlElement& e, const char* attr) const;
  // Integer attribute in [lo, hi]; also accepts reacTIVision's "min"/"max" keywords.
  bool integer(const XmlElement& e, const char* attr, int lo, int hi, int& out) const;
  bool boolean(const XmlElement& e, const char* attr, bool& out) const;
};

}  // namespace gpuvis::config

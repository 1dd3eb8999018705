// The configuration files' element trees through the XML plugin, and the attribute reader.
#include "config/xml_tree.hpp"

#include <cstdlib>

#include "config/xml_plugin.hpp"
#include "gpuvis/config/reactivision.hpp"
#include "gpuvis/core/error.hpp"
#include "gpuvis/io/read_limited.hpp"

namespace gpuvis::config {
namespace {
const plugin::Api& api() { return *static_cast<const plugin::Api*>(plugins::require(plugin::kPlugin)); }
}  // namespace

bool xml_available() { return plugins::find(plugin::kPlugin) != nullptr; }

XmlElement load_xml(const std::string& path, const char* root_name) {
  const plugin::Api& xml = api();  // first: says what to install
  // reacTIVision's files are a few KiB; the limit refuses a huge file before any of it is read.
  const std::string text = read_limited(path, kMaxConfigBytes, "config file");
  XmlElement root = xml.parse(path, text);
  if (root.name != root_name) fail(ErrorCode::format, path + ": the root element must be <" + root_name + ">");
  return root;
}

std::string edited_xml(const std::string& path, const std::string& text, const char* root_name, const std::vector<XmlEdit>& edits) {
  return api().edit(path, text, root_name, edits);
}

std::string Reader::where(const XmlElement& e, const char* attr) const {
  return path + ":" + std::to_string(e.line) + ": <" + e.name + (attr ? std::string(" ") + attr : "") + ">";
}

void Reader::bad(const XmlElement& e, const char* attr, const std::string& why) const {
  fail(ErrorCode::format, where(e, attr) + ": " + why);
}

void Reader::unsupported(const XmlElement& e, const char* attr) const {
  warnings->push_back(where(e, attr) + ": not supported by gpuvis yet, ignored");
}

bool Reader::integer(const XmlElement& e, const char* attr, int lo, int hi, int& out) const {
  const char* v = e.attribute(attr);
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

bool Reader::boolean(const XmlElement& e, const char* attr, bool& out) const {
  const char* v = e.attribute(attr);
  if (!v) return false;
  out = std::string(v) == "true" || std::string(v) == "1";
  return true;
}

}  // namespace gpuvis::config

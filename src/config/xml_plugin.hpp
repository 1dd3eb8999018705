#pragma once
// The interface between libgpuvis and the XML plugin (libgpuvis_xml.so: tinyxml2, from
// src/adapters/config), loaded on first use (core/plugin_loader.hpp). The plugin only turns text
// into an element tree and applies edits to text; it sees standard types and gpuvis::Error.
#include <string>
#include <vector>

#include "config/xml_tree.hpp"
#include "core/plugin_loader.hpp"

namespace gpuvis::config::plugin {

struct Api {
  int version;
  // The document's root element (whatever its name); malformed XML throws "PATH:LINE: malformed XML: ...".
  XmlElement (*parse)(const std::string& path, const std::string& text);
  // As edited_xml (config/xml_tree.hpp).
  std::string (*edit)(const std::string& path, const std::string& text, const char* root_name, const std::vector<XmlEdit>& edits);
};

inline constexpr plugins::Plugin kPlugin{"libgpuvis_xml.so", "gpuvis_xml_plugin", 1, "reading and writing reacTIVision.xml and camera.xml",
                                         "libtinyxml2-dev"};

}  // namespace gpuvis::config::plugin

// The XML plugin (libgpuvis_xml.so, config/xml_plugin.hpp): tinyxml2 turns a configuration file
// into an element tree, and applies edits to one keeping everything else (comments, other elements
// and attributes). tinyxml2 expands only the five predefined entities, so an entity bomb is refused.
#include <tinyxml2.h>

#include "config/xml_plugin.hpp"
#include "gpuvis/core/error.hpp"

namespace gpuvis::config {
namespace {

XmlElement tree_of(const tinyxml2::XMLElement* e) {
  XmlElement out;
  out.name = e->Name();
  out.line = e->GetLineNum();
  for (const auto* a = e->FirstAttribute(); a; a = a->Next()) out.attributes.emplace_back(a->Name(), a->Value());
  for (const auto* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) out.children.push_back(tree_of(c));
  return out;
}

void parse_into(tinyxml2::XMLDocument& doc, const std::string& path, const std::string& text) {
  if (doc.Parse(text.data(), text.size()) != tinyxml2::XML_SUCCESS)
    fail(ErrorCode::format, path + ":" + std::to_string(doc.ErrorLineNum()) + ": malformed XML: " + doc.ErrorStr());
}

XmlElement parse(const std::string& path, const std::string& text) {
  tinyxml2::XMLDocument doc;
  parse_into(doc, path, text);
  const tinyxml2::XMLElement* root = doc.RootElement();
  if (!root) fail(ErrorCode::format, path + ": no root element");
  return tree_of(root);
}

std::string edit(const std::string& path, const std::string& text, const char* root_name, const std::vector<XmlEdit>& edits) {
  tinyxml2::XMLDocument doc;
  tinyxml2::XMLElement* root = nullptr;
  if (!text.empty()) {
    parse_into(doc, path, text);
    root = doc.FirstChildElement(root_name);
    if (!root) fail(ErrorCode::format, path + ": the root element must be <" + root_name + ">");
  } else {
    doc.InsertEndChild(doc.NewDeclaration());
    root = doc.NewElement(root_name);
    doc.InsertEndChild(root);
  }
  for (const XmlEdit& change : edits) {
    tinyxml2::XMLElement* e = root->FirstChildElement(change.element.c_str());
    if (!e) e = root->InsertEndChild(doc.NewElement(change.element.c_str()))->ToElement();
    if (!change.value) e->DeleteAttribute(change.attribute.c_str());
    else if (!change.only_if_absent || !e->Attribute(change.attribute.c_str())) e->SetAttribute(change.attribute.c_str(), change.value->c_str());
  }
  tinyxml2::XMLPrinter printer;
  doc.Print(&printer);
  return std::string(printer.CStr(), static_cast<std::size_t>(printer.CStrSize() - 1));
}

constexpr plugin::Api kApi{plugin::kPlugin.version, parse, edit};

}  // namespace
}  // namespace gpuvis::config

extern "C" __attribute__((visibility("default"))) const void* gpuvis_xml_plugin() { return &gpuvis::config::kApi; }

#pragma once
// The interface between libgpuvis and the PDF plugin (libgpuvis_pdf.so: librsvg and cairo, from
// src/adapters/pdf), loaded on first use (core/plugin_loader.hpp). The plugin is not linked against
// libgpuvis: it sees standard types and the header-only gpuvis::Error, thrown across the boundary.
#include <string>
#include <vector>

#include "core/plugin_loader.hpp"

namespace gpuvis::pdf::plugin {

struct Api {
  int version;
  // The PDF document of the SVG pages, one page each at the SVG's physical size.
  std::string (*render_svg_pages)(const std::vector<std::string>& svg_pages);
};

inline constexpr plugins::Plugin kPlugin{"libgpuvis_pdf.so", "gpuvis_pdf_plugin", 1, "PDF output", "librsvg2-dev"};

}  // namespace gpuvis::pdf::plugin

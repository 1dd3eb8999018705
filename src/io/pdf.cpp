// PDF output through the PDF plugin, loaded on first use (io/pdf_plugin.hpp).
#include "gpuvis/io/pdf.hpp"

#include "gpuvis/core/error.hpp"
#include "gpuvis/io/text_file.hpp"
#include "io/pdf_plugin.hpp"

namespace gpuvis::pdf {

bool available() { return plugins::find(plugin::kPlugin) != nullptr; }

void write_svg_pages(const std::string& path, const std::vector<std::string>& svg_pages) {
  const auto* api = static_cast<const plugin::Api*>(plugins::require(plugin::kPlugin));  // first: says what to install
  require(!svg_pages.empty(), "PDF: no pages to write");
  write_file_atomically(path, api->render_svg_pages(svg_pages));
}

}  // namespace gpuvis::pdf

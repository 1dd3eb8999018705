// Builds without librsvg: PDF output is unavailable and says how to get it (SVG still works).
#include "gpuvis/core/error.hpp"
#include "gpuvis/io/pdf.hpp"

namespace gpuvis::pdf {

bool available() { return false; }

void write_svg_pages(const std::string&, const std::vector<std::string>&) {
  fail(ErrorCode::unsupported, "this gpuvis was built without PDF output (install librsvg2-dev and rebuild), or write .svg");
}

}  // namespace gpuvis::pdf

#pragma once
// PDF output of SVG pages (printable symbol and calibration sheets), through librsvg and cairo
// (the adapter in src/adapters/pdf, built when librsvg is found). The SVG keeps its physical size:
// a page of width="210mm" is an A4-wide PDF page.
#include <string>
#include <vector>

namespace gpuvis::pdf {

bool available();  // false in builds without librsvg

// Writes one PDF page per SVG document (each with width and height in mm, cm, in, pt or px at
// 96 dpi), through a temporary renamed into place. Errors: ErrorCode::format for an SVG that
// does not parse, ErrorCode::io for the file, ErrorCode::unsupported without librsvg.
void write_svg_pages(const std::string& path, const std::vector<std::string>& svg_pages);

}  // namespace gpuvis::pdf

#pragma once
// PDF output of SVG pages (printable symbol and calibration sheets), through librsvg and cairo
// (the plugin libgpuvis_pdf.so from src/adapters/pdf, built when librsvg is found, loaded on first
// use). The SVG keeps its physical size:
// a page of width="210mm" is an A4-wide PDF page.
#include <string>
#include <vector>

namespace gpuvis::pdf {

bool available();  // false when the PDF plugin was not built (no librsvg) or cannot be loaded

// Writes one PDF page per SVG document (each with width and height in mm, cm, in, pt or px at
// 96 dpi), through a temporary renamed into place. Errors: ErrorCode::format for an SVG that
// does not parse, ErrorCode::io for the file, ErrorCode::unsupported without the plugin (the message says what to install).
void write_svg_pages(const std::string& path, const std::vector<std::string>& svg_pages);

}  // namespace gpuvis::pdf

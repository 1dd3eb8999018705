// gpuvis calibrate: the calibration sheet (one dot per grid point, printed at the table's size)
// and the fit of a camera frame of it into a reacTIVision calibration.grid.
#include <cstdio>
#include <iostream>
#include <sstream>

#include "cli_common.hpp"
#include "gpuvis/io/image_file.hpp"
#include "gpuvis/io/pdf.hpp"
#include "gpuvis/io/text_file.hpp"
#include "gpuvis/calibration/fit.hpp"

namespace gpuvis::cli {
namespace {

struct Args {
  std::string out, frame, camera = "640x480", table_width = "60cm";
  bool overwrite = false;
} a;

std::pair<int, int> parse_size(const std::string& text) {
  int w = 0, h = 0;
  char x = 0, extra = 0;
  if (std::sscanf(text.c_str(), "%d%c%d%c", &w, &x, &h, &extra) != 3 || x != 'x' || w < 6 || h < 6 || w > 16384 || h > 16384)
    fail(ErrorCode::invalid_argument, "--camera takes the camera's frame size as WxH, e.g. 640x480, got '" + text + "'");
  return {w, h};
}

// The sheet as SVG in millimetres (or that SVG as a PDF page): its user units are the camera frame's table pixels, so the
// dots sit exactly where the grid points are; dots on the edges are cut by the sheet's edge, as the
// table's edge cuts them. Table pixel x covers [x - 0.5, x + 0.5) (pixel centres at integers, as
// the detector measures), so the dot of grid point x is at x + 0.5 from the sheet's edge.
int write_sheet() {
  const auto [w, h] = parse_size(a.camera);
  const double width_mm = parse_length_mm(a.table_width, "--table-width");
  const double height_mm = width_mm * h / w;
  check_output_path(a.out, "", a.overwrite);
  const double r = calibration::sheet_dot_radius(w, h);
  const auto dots = calibration::sheet_dots(w, h);
  std::ostringstream svg;
  svg << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width_mm << "mm\" height=\"" << height_mm << "mm\" viewBox=\"0 0 " << w
      << " " << h << "\">\n"
      << "<title>gpuvis calibration sheet for a " << w << "x" << h << " camera, " << width_mm << " x " << height_mm
      << " mm: lay it on the table so that it covers the camera's view of it, then run gpuvis calibrate fit</title>\n"
      << "<rect width=\"" << w << "\" height=\"" << h << "\" fill=\"#fff\"/>\n";
  for (const auto& d : dots)
    svg << "<circle cx=\"" << d.x + 0.5 << "\" cy=\"" << d.y + 0.5 << "\" r=\"" << r << "\" fill=\"#000\"/>\n";
  svg << "</svg>\n";
  const bool as_pdf = a.out.size() > 4 && a.out.substr(a.out.size() - 4) == ".pdf";
  require(as_pdf || (a.out.size() > 4 && a.out.substr(a.out.size() - 4) == ".svg"), "the sheet is written as .pdf or .svg, got '" + a.out + "'");
  if (as_pdf) pdf::write_svg_pages(a.out, {svg.str()});
  else write_file_atomically(a.out, svg.str());
  std::cerr << "gpuvis: wrote " << a.out << ": " << dots.size() << " dots for a " << w << "x" << h
            << " camera, " << width_mm << " x " << height_mm << " mm (print at 100 %)\n";
  return 0;
}

int fit_sheet() {
  check_output_path(a.out, a.frame, a.overwrite);
  const Image<std::uint8_t> frame = read_grey8(a.frame);
  const calibration::CalibrationFit fit = calibration::fit_calibration(frame.view());
  fit.grid.write(a.out);
  std::printf("found %d of the sheet's %d dots whole in view; camera model: rms %.3f px, max %.3f px (radial k1 %.4f, k2 %.4f)\n",
              fit.dots_used, fit.dots_expected, fit.rms_px, fit.max_px, fit.model.k1, fit.model.k2);
  std::printf("wrote %s (use it with: gpuvis track --grid %s, or <calibration grid=\"...\"> in reacTIVision.xml)\n", a.out.c_str(),
              a.out.c_str());
  return 0;
}

}  // namespace

void register_calibrate(CLI::App& app, Command& run) {
  auto* cmd = app.add_subcommand("calibrate", "Calibration grid from a camera frame of a printed sheet (reacTIVision's calibration.grid)");
  cmd->require_subcommand(1);
  auto* sheet = cmd->add_subcommand("sheet", "Write the calibration sheet (PDF or SVG at the table's physical size) to print and lay on the table");
  sheet->add_option("out", a.out, "Output .pdf or .svg file")->required();
  sheet->add_option("--camera", a.camera, "The camera's frame size WxH (the grid's layout follows it)")->default_val("640x480");
  sheet->add_option("--table-width", a.table_width,
                    "Width of the table area the camera sees, e.g. 60cm, 600mm or 24in (the height follows the camera's aspect)")
      ->default_val("60cm");
  sheet->add_flag("--overwrite", a.overwrite, "Replace an existing file");
  sheet->callback([&run] { run = write_sheet; });
  auto* fit = cmd->add_subcommand("fit", "Find the sheet's dots in a camera frame and write the calibration grid");
  fit->add_option("frame", a.frame, "Camera frame of the sheet lying on the table (any image; read as grey)")
      ->required()
      ->check(CLI::ExistingFile);
  fit->add_option("--out", a.out, "The grid file to write")->default_val("calibration.grid");
  fit->add_flag("--overwrite", a.overwrite, "Replace an existing grid file");
  fit->callback([&run] { run = fit_sheet; });
}

}  // namespace gpuvis::cli

// gpuvis symbols: printable sheets of the bundled amoeba symbols, or of drawn yamaarashi symbols,
// at an exact physical size, as SVG pages (millimetre units, so any SVG printer or converter keeps
// the size).
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli_common.hpp"
#include "gpuvis/io/pdf.hpp"
#include "gpuvis/io/read_limited.hpp"
#include "gpuvis/io/text_file.hpp"
#include "gpuvis/synth/yamaarashi_print.hpp"

namespace gpuvis::cli {
namespace {

// "0-35", "1,4,7-9" -> IDs in the order given.
std::vector<int> parse_ids(const std::string& text, int count) {
  std::vector<int> ids;
  std::stringstream parts(text);
  std::string part;
  while (std::getline(parts, part, ',')) {
    int a = 0, b = 0;
    char dash = 0;
    const int n = std::sscanf(part.c_str(), "%d%c%d", &a, &dash, &b);
    if (n == 1) b = a;
    else if (n != 3 || dash != '-') fail(ErrorCode::invalid_argument, "--ids takes numbers and ranges such as 0-35,40, got '" + part + "'");
    if (a < 0 || b < a || b >= count)
      fail(ErrorCode::invalid_argument, "--ids " + part + ": the set has IDs 0 to " + std::to_string(count - 1));
    for (int i = a; i <= b; ++i) ids.push_back(i);
  }
  require(!ids.empty(), "--ids names no symbol");
  return ids;
}

std::string base64(const std::string& bytes) {
  static const char* table = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const unsigned v = static_cast<unsigned char>(bytes[i]) << 16 |
                       (i + 1 < bytes.size() ? static_cast<unsigned char>(bytes[i + 1]) << 8 : 0) |
                       (i + 2 < bytes.size() ? static_cast<unsigned char>(bytes[i + 2]) : 0);
    out += table[v >> 18 & 63];
    out += table[v >> 12 & 63];
    out += i + 1 < bytes.size() ? table[v >> 6 & 63] : '=';
    out += i + 2 < bytes.size() ? table[v & 63] : '=';
  }
  return out;
}

struct Paper {
  const char* name;
  double width, height;  // mm, portrait
};
constexpr Paper kPapers[] = {{"a4", 210, 297}, {"a3", 297, 420}, {"letter", 215.9, 279.4}, {"legal", 215.9, 355.6}};

}  // namespace

void register_symbols(CLI::App& app, Command& run) {
  static std::string set = "default", ids_text = "0-35", size_text = "6cm", paper_name = "a4", out;
  static bool overwrite = false, landscape = false;
  auto* cmd = app.add_subcommand("symbols", "Printable sheets of the amoeba or yamaarashi symbols at an exact size (PDF or SVG)");
  cmd->footer(
      "Lays the bundled prints (or, with --set yamaarashi, drawn yamaarashi symbols: track them with --yamaarashi)\n"
      "out on pages, each symbol --size wide (the print's whole square, its white border included) with its ID under it.\n"
      "Print at 100 % (no 'fit to page'). A .pdf holds every page; with .svg (millimetre units), more symbols than\n"
      "fit one page give OUT-1.svg, OUT-2.svg, ...");
  cmd->add_option("--set", set, "Symbol set: default (IDs 0-215), small (0-23) or yamaarashi (0-65535)")
      ->check(CLI::IsMember({"default", "small", "yamaarashi"}))
      ->default_val("default");
  cmd->add_option("--ids", ids_text, "IDs and ranges, e.g. 0-35 or 1,4,7-9")->default_val("0-35");
  cmd->add_option("--size", size_text, "Printed side of each symbol: mm, cm or in (e.g. 6cm)")->default_val("6cm");
  cmd->add_option("--paper", paper_name, "a4, a3, letter or legal")->check(CLI::IsMember({"a4", "a3", "letter", "legal"}))->default_val("a4");
  cmd->add_flag("--landscape", landscape, "Landscape pages");
  cmd->add_option("--out", out, "Output .pdf or .svg file")->required();
  cmd->add_flag("--overwrite", overwrite, "Replace existing pages");
  cmd->callback([&run] {
    run = [] {
      namespace fs = std::filesystem;
      const bool as_pdf = fs::path(out).extension() == ".pdf";
      require(as_pdf || fs::path(out).extension() == ".svg", "--out must name a .pdf or .svg file, got '" + out + "'");
      if (as_pdf && !pdf::available()) pdf::write_svg_pages(out, {});  // says how to get PDF output
      const double side = parse_length_mm(size_text, "--size");
      const bool yamaarashi = set == "yamaarashi";
      const int count = set == "default" ? 216 : set == "small" ? 24 : synth::kYamaarashiIds;
      const std::vector<int> ids = parse_ids(ids_text, count);
      Paper paper{};
      for (const auto& p : kPapers)
        if (paper_name == p.name) paper = p;
      double pw = paper.width, ph = paper.height;
      if (landscape) std::swap(pw, ph);
      constexpr double kMargin = 10, kGap = 4, kLabel = 6;  // mm
      const int cols = static_cast<int>(std::floor((pw - 2 * kMargin + kGap) / (side + kGap)));
      const int rows = static_cast<int>(std::floor((ph - 2 * kMargin + kGap) / (side + kLabel + kGap)));
      require(cols >= 1 && rows >= 1, "--size " + size_text + " does not fit the " + paper_name + " page with 10 mm margins");
      const int per_page = cols * rows;
      const int pages = static_cast<int>((ids.size() + per_page - 1) / per_page);
      auto page_path = [&](int page) {
        if (pages == 1 || as_pdf) return out;
        const fs::path p(out);
        return (p.parent_path() / (p.stem().string() + "-" + std::to_string(page + 1) + ".svg")).string();
      };
      for (int page = 0; page < pages; ++page) check_output_path(page_path(page), "", overwrite);
      std::vector<std::string> pdf_pages;
      const std::string dir = data_dir() + "/amoeba/symbols";
      for (int page = 0; page < pages; ++page) {
        std::ostringstream svg;
        svg << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << pw << "mm\" height=\"" << ph << "mm\" viewBox=\"0 0 " << pw
            << " " << ph << "\">\n"
            << "<title>gpuvis " << (yamaarashi ? "yamaarashi symbols" : "amoeba symbols, set " + set) << ", " << size_text
            << " each</title>\n"
            << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
        for (int k = 0; k < per_page; ++k) {
          const std::size_t i = static_cast<std::size_t>(page) * per_page + k;
          if (i >= ids.size()) break;
          const double x = kMargin + (k % cols) * (side + kGap), y = kMargin + (k / cols) * (side + kLabel + kGap);
          if (yamaarashi) {
            svg << synth::YamaarashiDesign(ids[i]).svg(x, y, side) << "\n";
          } else {
            char stem[64];
            std::snprintf(stem, sizeof stem, "amoeba_%s_%03d.png", set.c_str(), ids[i]);
            const std::string png = read_limited(dir + "/" + stem, 16u << 20, "symbol print");
            svg << "<image x=\"" << x << "\" y=\"" << y << "\" width=\"" << side << "\" height=\"" << side
                << "\" preserveAspectRatio=\"none\" style=\"image-rendering:pixelated\" href=\"data:image/png;base64,"
                << base64(png) << "\"/>\n";
          }
          svg << "<text x=\"" << x + side / 2 << "\" y=\"" << y + side + 4 << "\" font-family=\"sans-serif\" font-size=\"3.5\" "
              << "text-anchor=\"middle\">" << set << " " << ids[i] << "</text>\n";
        }
        svg << "</svg>\n";
        if (as_pdf) {
          pdf_pages.push_back(svg.str());
          continue;
        }
        write_file_atomically(page_path(page), svg.str());
        std::cerr << "gpuvis: wrote " << page_path(page) << "\n";
      }
      if (as_pdf) {
        pdf::write_svg_pages(out, pdf_pages);
        std::cerr << "gpuvis: wrote " << out << "\n";
      }
      std::cerr << "gpuvis: " << ids.size() << " symbols of " << side << " mm on " << pages << " " << paper_name
                << " page(s), " << cols << " x " << rows << " per page\n";
      return 0;
    };
  });
}

}  // namespace gpuvis::cli

#include "debug_images.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <numbers>

#include "annotate.hpp"
#include "gpuvis/core/error.hpp"
#include "gpuvis/decode/fiducial.hpp"
#include "gpuvis/io/image_file.hpp"
#include "gpuvis/segment/region_tree.hpp"

namespace gpuvis::cli {
namespace {

// A colour per region that neighbours rarely share; white regions light, black regions dark, so
// the nesting of a symbol stays readable.
void region_colour(int region, std::uint8_t colour, std::uint8_t out[3]) {
  std::uint32_t h = static_cast<std::uint32_t>(region) * 2654435761u;
  for (int k = 0; k < 3; ++k, h >>= 8) {
    const int v = static_cast<int>(h & 0x7f);
    out[k] = static_cast<std::uint8_t>(colour ? 128 + v : v / 2);
  }
}

void box(Image<std::uint8_t>& img, int x0, int y0, int x1, int y1, const std::uint8_t c[3]) {
  auto put = [&](int x, int y) {
    if (x < 0 || y < 0 || x >= img.width() || y >= img.height()) return;
    for (int k = 0; k < 3; ++k) img(x, y, k) = c[k];
  };
  for (int x = x0; x <= x1; ++x) put(x, y0), put(x, y1);
  for (int y = y0; y <= y1; ++y) put(x0, y), put(x1, y);
}

}  // namespace

std::vector<std::string> debug_outputs(const std::string& ext) {
  return {"_1_threshold" + ext, "_2_regions" + ext, "_3_candidates" + ext, "_4_detections" + ext, "_5_candidates.txt"};
}

void write_debug_images(const std::string& dir, const std::string& stem, const std::string& ext, HostView<const std::uint8_t> grey,
                        const decode::TreeSet& set, const pipeline::Detections& d) {
  const std::string base = dir + "/" + stem;
  // The backend's own binary frame and region tree (the detector's stage taps).
  require(!d.binary.empty() && d.tree && d.tree->run_begin.size() == static_cast<std::size_t>(d.tree->size()) + 1,
          "debug images need the detector's threshold and regions taps (DetectorParams::taps)");
  const segment::RegionTree& tree = *d.tree;
  write_image(base + "_1_threshold" + ext, d.binary);

  Image<std::uint8_t> regions(grey.width, grey.height, 3);
  for (int r = 0; r < tree.size(); ++r) {
    std::uint8_t c[3];
    region_colour(r, tree.colour[r], c);
    for (int i = tree.run_begin[r]; i < tree.run_begin[r + 1]; ++i) {
      const auto& run = tree.runs[i];
      for (int x = run.x0; x <= run.x1; ++x)
        for (int k = 0; k < 3; ++k) regions(x, run.y, k) = c[k];
    }
  }
  write_image(base + "_2_regions" + ext, regions.view());

  // The backend's tree decoded again on the host, explaining every candidate root and what became
  // of it (both backends decode a tree alike: CPU = CUDA on every test frame).
  decode::Decoder decoder(set);
  decoder.set_explain(true);
  std::vector<decode::Fiducial> fiducials;
  decoder.decode(tree, d.binary, fiducials);
  const auto& reports = decoder.reports();

  // Candidates, numbered as in _5_candidates.txt: decoded (green), fuzzy (orange), refused (red);
  // regions nested like a symbol that never became candidates (purple);
  // regions in the size band of the last symbols that may be a symbol whose inside no longer
  // decodes (blue, root-region tracking).
  Image<std::uint8_t> candidates(grey.width, grey.height, 3);
  for (int y = 0; y < grey.height; ++y)
    for (int x = 0; x < grey.width; ++x)
      for (int k = 0; k < 3; ++k) candidates(x, y, k) = static_cast<std::uint8_t>(grey(x, y) / 2 + 64);
  const std::uint8_t green[3] = {0, 200, 0}, orange[3] = {255, 140, 0}, blue[3] = {40, 90, 255}, red[3] = {230, 0, 0},
                     purple[3] = {190, 0, 220};
  auto root_box = [&](int r, const std::uint8_t c[3]) {
    if (r >= 0 && r < tree.size()) box(candidates, tree.left[r] - 1, tree.top[r] - 1, tree.right[r] + 1, tree.bottom[r] + 1, c);
  };
  for (const auto& c : d.roots) root_box(c.region, blue);
  for (std::size_t i = 0; i < reports.size(); ++i) {
    const auto& r = reports[i];
    const std::uint8_t* c = !r.candidate ? purple : r.id >= 0 ? green : r.fuzzy ? orange : red;
    root_box(r.region, c);
    draw_digits(candidates, tree.left[r.region], tree.top[r.region] - 8, std::to_string(i + 1), c);
  }
  // The second looks: a cyan box (white when a symbol was found there) with the estimated smear as
  // a line through its centre, numbered L1, L2, ... as in _5_candidates.txt.
  const std::uint8_t cyan[3] = {0, 220, 230}, white[3] = {255, 255, 255};
  for (std::size_t i = 0; i < d.second_looks.size(); ++i) {
    const auto& l = d.second_looks[i];
    const std::uint8_t* c = l.id >= 0 ? white : cyan;
    const int half = l.size / 2 + 3;
    const int cx = static_cast<int>(std::lround(l.x)), cy = static_cast<int>(std::lround(l.y));
    box(candidates, cx - half, cy - half, cx + half, cy + half, c);
    for (double t = -l.length / 2; t <= l.length / 2; t += 0.25) {
      const int x = static_cast<int>(std::lround(l.x + t * std::cos(l.angle))), y = static_cast<int>(std::lround(l.y + t * std::sin(l.angle)));
      if (x >= 0 && y >= 0 && x < candidates.width() && y < candidates.height())
        for (int k = 0; k < 3; ++k) candidates(x, y, k) = c[k];
    }
    draw_digits(candidates, cx - half, cy + half + 2, std::to_string(i + 1), c);
  }
  write_image(base + "_3_candidates" + ext, candidates.view());

  write_image(base + "_4_detections" + ext, annotate(grey, d).view());

  std::ofstream text(base + "_5_candidates.txt");
  const auto candidates_count = std::count_if(reports.begin(), reports.end(), [](const auto& r) { return r.candidate; });
  text << "# " << stem << ": " << candidates_count << " candidate roots (regions whose subtree has a symbol's height, "
       << set.min_height << "-" << set.max_height << ", and size), then " << reports.size() - candidates_count
       << " regions nested like a symbol that did not become candidates; numbers as in " << stem << "_3_candidates" << ext << "\n"
       << "# n  box x0,y0-x1,y1  descendants height  leaves (above size gate: black/white)  id  outcome: reason  key\n";
  for (std::size_t i = 0; i < reports.size(); ++i) {
    const auto& r = reports[i];
    const int g = r.region;
    text << (i + 1) << "  " << tree.left[g] << "," << tree.top[g] << "-" << tree.right[g] << "," << tree.bottom[g] << "  "
         << r.descendants << " " << (r.height >= 0 ? std::to_string(r.height) : "-") << "  ";
    if (r.candidate) text << r.leaves << " (" << r.gated_black << "/" << r.gated_white << ")  ";
    else text << "- (-/-)  ";
    text << (r.id >= 0 ? std::to_string(r.id) : "-") << "  "
         << (!r.candidate ? "not a candidate" : r.id >= 0 ? "symbol" : r.fuzzy ? "fuzzy" : "refused") << ": " << r.reason << "  "
         << (r.key.empty() ? "-" : r.key) << "\n";
  }
  // The second looks: candidates that did not decode, looked at again with their motion blur taken out.
  if (!d.second_looks.empty())
    text << "# second looks (" << d.second_looks.size() << ", " << d.times.second_look_us
         << " us): candidate centre, root size, kind, the tracked ID expected there; estimated blur: direction (deg), length (px), "
            "anisotropy; id  outcome  time\n";
  for (std::size_t i = 0; i < d.second_looks.size(); ++i) {
    const auto& l = d.second_looks[i];
    char line[256];
    std::snprintf(line, sizeof line, "L%zu  %.1f,%.1f  %d  %s %s  blur %.0f deg %.1f px %.2f  %s  %s  %.0f us\n", i + 1, l.x, l.y, l.size, l.kind,
                  l.expected >= 0 ? ("expects " + std::to_string(l.expected)).c_str() : "-", l.angle * 180 / std::numbers::pi, l.length, l.anisotropy,
                  l.id >= 0 ? std::to_string(l.id).c_str() : "-", l.outcome, l.us);
    text << line;
  }
  if (!text) fail(ErrorCode::io, "cannot write '" + base + "_5_candidates.txt'");
}

}  // namespace gpuvis::cli

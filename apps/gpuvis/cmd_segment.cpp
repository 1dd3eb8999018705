// gpuvis segment IN OUTDIR: mean shift segmentation into labels, the filtered image, a region
// table (JSON) and, when asked, the boundaries drawn over the filtered image.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli_common.hpp"
#include "gpuvis/core/parallel.hpp"
#include "gpuvis/filters/mean_shift_segment.hpp"
#include "gpuvis/io/image_file.hpp"

namespace gpuvis::cli {

void register_segment(CLI::App& app, Command& run) {
  static std::string in, out_dir, kernel = "epanechnikov", colour = "luv", backend = "auto";
  static filters::MeanShiftSegmentParams sp;
  static bool overwrite = false, boundaries = false;
  static int threads = 0;
  auto* cmd = app.add_subcommand("segment", "Mean shift segmentation: labels, filtered image, region table");
  cmd->footer(
      "Filters with mean shift (as 'filter meanshift'), joins 8-neighbours whose modes differ by less than connect x h_r,\n"
      "fuses adjacent regions whose mean modes differ by less than fuse x h_r (EDISON) and merges regions smaller than\n"
      "--min-size into their most similar neighbour (docs/meanshift.md). Writes into OUTDIR:\n"
      "  labels.png (16-bit, or labels.pgm without PNG support): region labels 0..N-1 in raster order of first pixel\n"
      "  filtered.png|ppm|pgm, regions.json ({label, size, mean, centroid, bbox} per region),\n"
      "  boundaries.png|ppm|pgm with --boundaries.");
  cmd->add_option("input", in, "8-bit grey or RGB image");
  cmd->add_option("outdir", out_dir, "Output folder (created)");
  cmd->add_option("--spatial", sp.filter.spatial, "Spatial bandwidth h_s in pixels")->default_val(8);
  cmd->add_option("--range", sp.filter.range, "Range bandwidth h_r (grey levels, or L*u*v* units for colour)")->default_val(16);
  cmd->add_option("--connect", sp.connect, "Neighbours whose modes differ by less than this x h_r join one region")->default_val(0.25);
  cmd->add_option("--fuse", sp.fuse, "Adjacent regions whose mean modes differ by less than this x h_r are fused")->default_val(0.5);
  cmd->add_option("--min-size", sp.min_size, "Regions with fewer pixels merge into their most similar neighbour (0: none)")
      ->default_val(20);
  cmd->add_option("--kernel", kernel, "epanechnikov or gaussian")->check(CLI::IsMember({"epanechnikov", "gaussian"}))->default_val("epanechnikov");
  cmd->add_option("--color", colour, "luv or rgb")->check(CLI::IsMember({"luv", "rgb"}))->default_val("luv");
  cmd->add_option("--eps", sp.filter.eps, "Convergence threshold (normalised units)")->default_val(0.01);
  cmd->add_option("--max-iter", sp.filter.max_iter, "Most steps per pixel")->default_val(100);
  cmd->add_flag("--boundaries", boundaries, "Also write the region boundaries drawn over the filtered image");
  add_backend_option(*cmd, backend);
  add_threads_option(*cmd, threads);
  cmd->add_flag("--overwrite", overwrite, "Replace outputs in an existing folder");
  cmd->callback([&run] {
    run = [] {
      require(!in.empty() && !out_dir.empty(), "segment needs INPUT and OUTDIR");
      sp.filter.kernel = kernel == "gaussian" ? filters::MeanShiftKernel::gaussian : filters::MeanShiftKernel::epanechnikov;
      sp.filter.colour = colour == "rgb" ? filters::MeanShiftColour::rgb : filters::MeanShiftColour::luv;
      filters::validate(sp);
      if (threads) set_num_threads(threads);
      namespace fs = std::filesystem;
      const bool png = codec::available();
      AnyImage any = read_image(in);
      auto* u8 = std::get_if<Image<std::uint8_t>>(&any);
      require(u8 != nullptr, "segment takes 8-bit images so far; '" + in + "' has 16-bit or float samples");
      const Image<std::uint8_t>& img = *u8;
      const std::string image_ext = png ? ".png" : img.channels() == 1 ? ".pgm" : ".ppm";
      const fs::path dir(out_dir);
      const std::string labels_path = (dir / (png ? "labels.png" : "labels.pgm")).string();
      const std::string filtered_path = (dir / ("filtered" + image_ext)).string();
      const std::string table_path = (dir / "regions.json").string();
      const std::string boundaries_path = (dir / ("boundaries" + image_ext)).string();
      std::error_code ec;
      fs::create_directories(dir, ec);
      if (!fs::is_directory(dir)) fail(ErrorCode::io, "cannot create the output folder '" + out_dir + "'");
      for (const auto& p : {labels_path, filtered_path, table_path, boundaries_path})
        if (p != boundaries_path || boundaries) check_output_path(p, in, overwrite);
      sp.filter.backend = choose_backend(backend);
      const auto seg = filters::mean_shift_segment(img.view(), sp);
      require(seg.regions.size() <= 65536, "segment: " + std::to_string(seg.regions.size()) +
                                               " regions do not fit a 16-bit label image; raise --min-size or --range");
      Image<std::uint16_t> labels(img.width(), img.height());
      for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x) labels(x, y) = static_cast<std::uint16_t>(seg.labels(x, y));
      write_image(labels_path, labels.view());
      write_image(filtered_path, seg.filtered.view());
      nlohmann::json table = nlohmann::json::array();
      for (const auto& r : seg.regions) {
        nlohmann::json mean = nlohmann::json::array();
        for (int k = 0; k < img.channels(); ++k) mean.push_back(r.mean[k]);
        table.push_back({{"label", r.label}, {"size", r.size}, {"mean", mean}, {"centroid", {r.centroid_x, r.centroid_y}},
                         {"bbox", {r.x0, r.y0, r.x1, r.y1}}});
      }
      std::ofstream(table_path) << table.dump(1) << "\n";
      if (boundaries) {
        Image<std::uint8_t> overlay = seg.filtered.clone();
        const std::uint8_t red[3] = {255, 0, 0};
        filters::draw_boundaries(overlay.view(), seg.labels.view(), red);
        write_image(boundaries_path, overlay.view());
      }
      std::cerr << "gpuvis: " << seg.regions.size() << " regions in " << img.width() << "x" << img.height() << " on "
                << to_string(sp.filter.backend) << "; wrote " << out_dir << "\n";
      return 0;
    };
  });
}

}  // namespace gpuvis::cli

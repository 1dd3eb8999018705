// gpuvis segment meanshift IN OUT: mean shift segmentation of an image or a volume into region
// labels, with the filtered data, a region table (JSON) and the boundaries drawn over the
// filtered data when asked.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli_common.hpp"
#include "gpuvis/io/text_file.hpp"
#include "gpuvis/core/parallel.hpp"
#include "gpuvis/filters/mean_shift_segment.hpp"
#include "gpuvis/io/image_file.hpp"
#include "gpuvis/io/volume_file.hpp"

namespace gpuvis::cli {
namespace {

struct Outputs {
  std::string labels, filtered, regions, boundaries;
};

template <class T>
nlohmann::json region_table(const filters::MeanShiftSegmentation<T>& seg, int channels, VolumeShape shape) {
  const int axes = shape.frames > 1 ? 4 : shape.depth > 1 ? 3 : 2;
  nlohmann::json table = nlohmann::json::array();
  for (const auto& r : seg.regions) {
    nlohmann::json mean = nlohmann::json::array(), centroid = nlohmann::json::array(), bbox = nlohmann::json::array();
    for (int k = 0; k < channels; ++k) mean.push_back(r.mean[k]);
    for (int a = 0; a < axes; ++a) centroid.push_back(r.centroid[a]);
    for (int a = 0; a < axes; ++a) bbox.push_back(r.lo[a]);
    for (int a = 0; a < axes; ++a) bbox.push_back(r.hi[a]);
    table.push_back({{"label", r.label}, {"size", r.size}, {"mean", mean}, {"centroid", centroid}, {"bbox", bbox}});
  }
  return table;
}

template <class T>
Image<T> boundaries_over(const filters::MeanShiftSegmentation<T>& seg, int slice_height) {
  Image<T> overlay = seg.filtered.clone();
  const T full = std::is_floating_point_v<T> ? T(1) : std::numeric_limits<T>::max();
  const T red[3] = {full, T(0), T(0)};
  filters::draw_boundaries<T>(overlay.view(), seg.labels.view(), red, slice_height);
  return overlay;
}

void segment_image(const std::string& in, const Outputs& out, const filters::MeanShiftSegmentParams& sp) {
  AnyImage any = read_image(in);
  std::visit(
      [&](const auto& img) {
        using T = std::decay_t<decltype(img(0, 0))>;
        if (std::is_same_v<T, float>)
          for (const auto* p : {&out.filtered, &out.boundaries})
            require(p->empty() || std::filesystem::path(*p).extension() == ".pfm", in + " holds floats; write " + *p + " as .pfm");
        filters::MeanShiftSegmentParams p = sp;
        Progress progress("segment");
        p.filter.progress = [&](double f) { progress(f); };
        const auto seg = filters::mean_shift_segment<T>(img.view(), p);
        require(seg.regions.size() <= 65536, "segment: " + std::to_string(seg.regions.size()) +
                                                 " regions do not fit a 16-bit label image; raise --min-region or --range");
        Image<std::uint16_t> labels(img.width(), img.height());
        for (int y = 0; y < img.height(); ++y)
          for (int x = 0; x < img.width(); ++x) labels(x, y) = static_cast<std::uint16_t>(seg.labels(x, y));
        write_image(out.labels, labels.view());
        if (!out.filtered.empty()) write_image(out.filtered, seg.filtered.view());
        if (!out.regions.empty()) write_file_atomically(out.regions, region_table(seg, img.channels(), {}).dump(1) + "\n");
        if (!out.boundaries.empty()) write_image(out.boundaries, boundaries_over(seg, 0).view());
        std::cerr << "gpuvis: " << seg.regions.size() << " regions in " << img.width() << "x" << img.height() << " on "
                  << to_string(sp.filter.backend) << "; wrote " << out.labels << "\n";
      },
      any);
}

void segment_volume(const std::string& in, const Outputs& out, const filters::MeanShiftSegmentParams& sp, bool overwrite) {
  Volume volume = read_volume(in);
  const bool floats = std::holds_alternative<Image<float>>(volume.stacked);
  const std::string label_ext = is_volume_file(out.labels) ? "" : codec::available() ? ".png" : ".pgm";
  std::vector<std::string> planned = volume_outputs(out.labels, volume, label_ext);
  for (const auto* p : {&out.filtered, &out.boundaries})
    if (!p->empty())
      for (const auto& f : volume_outputs(*p, volume, floats ? ".pfm" : "")) planned.push_back(f);
  if (!out.regions.empty()) planned.push_back(out.regions);
  check_volume_outputs(planned, in, overwrite);
  std::visit(
      [&](const auto& stacked) {
        using T = std::decay_t<decltype(stacked(0, 0))>;
        filters::MeanShiftSegmentParams p = sp;
        Progress progress("segment");
        p.filter.progress = [&](double f) { progress(f); };
        const auto seg = filters::mean_shift_segment<T>(stacked.view(), p, volume.shape);
        write_label_volume(out.labels, volume, seg.labels.view(), label_ext);
        const std::string ext = floats && !is_volume_file(out.filtered) ? ".pfm" : "";
        if (!out.filtered.empty()) write_volume(out.filtered, volume, AnyImage(seg.filtered.clone()), ext);
        if (!out.regions.empty()) write_file_atomically(out.regions, region_table(seg, stacked.channels(), volume.shape).dump(1) + "\n");
        if (!out.boundaries.empty()) {
          const int slice_h = stacked.height() / (volume.shape.depth * volume.shape.frames);
          write_volume(out.boundaries, volume, AnyImage(boundaries_over(seg, slice_h)),
                       floats && !is_volume_file(out.boundaries) ? ".pfm" : "");
        }
        std::cerr << "gpuvis: " << seg.regions.size() << " regions in the volume on " << to_string(sp.filter.backend) << "; wrote "
                  << out.labels << "\n";
      },
      volume.stacked);
}

}  // namespace

void register_segment(CLI::App& app, Command& run) {
  static std::string in, kernel = "epanechnikov", colour = "luv", backend = "auto";
  static Outputs out;
  static filters::MeanShiftSegmentParams sp;
  static bool overwrite = false, volume = false;
  static int threads = 0;
  auto* seg = app.add_subcommand("segment", "Segmentation into regions: meanshift");
  seg->require_subcommand(1);
  auto* cmd = seg->add_subcommand("meanshift", "Mean shift segmentation of an image or volume: labels, region table, boundaries");
  cmd->footer(
      "Filters with mean shift (as 'filter meanshift'), joins neighbours (8 in 2D, 26 in 3D, 80 in 4D) whose modes differ\n"
      "by less than connect x h_r, fuses adjacent regions whose mean modes differ by less than fuse x h_r (EDISON) and\n"
      "merges regions smaller than --min-region into their most similar neighbour, then fuses adjacent regions again\n"
      "whose colours (their pixels' 5x5 local means of the input) differ by less than fuse x h_r (docs/meanshift.md).\n"
      "OUT gets the labels 0..N-1, numbered in order of first pixel: a 16-bit .png or .pgm for an image; for a volume\n"
      "(a .nii/.nii.gz file, or a folder of slices with --volume) a .nii/.nii.gz file (int32) or a folder of 16-bit slices.\n"
      "--regions writes {label, size, mean, centroid, bbox} per region as JSON.");
  cmd->add_option("input", in, "Image, folder of slices (--volume) or .nii/.nii.gz volume");
  cmd->add_option("output", out.labels, "Label image (.png/.pgm, 16-bit), or for volumes a .nii/.nii.gz file or a folder");
  cmd->add_option("--spatial", sp.filter.spatial, "Spatial bandwidth h_s in pixels")->default_val(8);
  cmd->add_option("--range", sp.filter.range, "Range bandwidth h_r (sample units, or L*u*v* units for colour)")->default_val(16);
  cmd->add_option("--axial", sp.filter.axial, "Volumes: bandwidth h_z across slices (0 = --spatial)")->default_val(0);
  cmd->add_option("--time", sp.filter.time, "Sequences: bandwidth h_t across frames (0 = --spatial)")->default_val(0);
  cmd->add_option("--connect", sp.connect, "Neighbours whose modes differ by less than this x h_r join one region")->default_val(0.25);
  cmd->add_option("--fuse", sp.fuse, "Adjacent regions whose mean modes, and later mean local colours, differ by less than this x h_r are fused")
      ->default_val(0.5);
  cmd->add_option("--min-region,--min-size", sp.min_size, "Regions with fewer pixels merge into their most similar neighbour (0: none)")
      ->default_val(20);
  cmd->add_option("--smooth", sp.smooth,
                  "Images: smooth with a Gaussian of this sigma (pixels) first (0: none); 0.7 for noisy colour images (docs/meanshift.md)")
      ->default_val(0);
  cmd->add_option("--kernel", kernel, "epanechnikov or gaussian")->check(CLI::IsMember({"epanechnikov", "gaussian"}))->default_val("epanechnikov");
  cmd->add_option("--color,--colour", colour, "luv or rgb")->check(CLI::IsMember({"luv", "rgb"}))->default_val("luv");
  cmd->add_option("--eps", sp.filter.eps, "Convergence threshold (normalised units)")->default_val(0.01);
  cmd->add_option("--max-iter", sp.filter.max_iter, "Most steps per pixel")->default_val(100);
  cmd->add_flag("--volume", volume, "IN is a folder of slices (or of frame folders): segment them as one volume");
  cmd->add_option("--regions", out.regions, "Write the region table (JSON) here");
  cmd->add_option("--filtered", out.filtered, "Write the mean shift filtered image or volume here");
  cmd->add_option("--boundaries", out.boundaries, "Write the region boundaries drawn over the filtered data here");
  add_backend_option(*cmd, backend);
  add_threads_option(*cmd, threads);
  cmd->add_flag("--overwrite", overwrite, "Replace existing outputs");
  cmd->callback([&run] {
    run = [] {
      require(!in.empty() && !out.labels.empty(), "segment meanshift needs INPUT and OUTPUT");
      sp.filter.kernel = kernel == "gaussian" ? filters::MeanShiftKernel::gaussian : filters::MeanShiftKernel::epanechnikov;
      sp.filter.colour = colour == "rgb" ? filters::MeanShiftColour::rgb : filters::MeanShiftColour::luv;
      filters::validate(sp);
      if (threads) set_num_threads(threads);
      std::error_code ec;
      require(!volume || std::filesystem::is_directory(in, ec), "--volume needs a folder of slices as input, got '" + in + "'");
      require(sp.smooth == 0 || !(volume || is_volume_file(in)), "--smooth applies to images, not volumes");
      sp.filter.backend = choose_backend(backend);
      if (volume || is_volume_file(in)) {
        segment_volume(in, out, sp, overwrite);
        return 0;
      }
      require(!std::filesystem::is_directory(in, ec), "'" + in + "' is a folder: add --volume to segment its slices as one volume");
      const std::string ext = std::filesystem::path(out.labels).extension().string();
      require(ext == ".png" || ext == ".pgm", "the label image must be .png or .pgm (16-bit), got '" + out.labels + "'");
      for (const auto* p : {&out.labels, &out.filtered, &out.regions, &out.boundaries})
        if (!p->empty()) {
          check_output_path(*p, in, overwrite);
          if (p != &out.regions) check_writable(*p);
        }
      segment_image(in, out, sp);
      return 0;
    };
  });
}

}  // namespace gpuvis::cli

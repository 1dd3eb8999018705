// gpuvis filter convolve IN OUT: image filters keeping the input's type and channel count.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <future>
#include <iostream>
#include <sstream>

#include "cli_common.hpp"
#include "gpuvis/core/parallel.hpp"
#include "gpuvis/filters/bilateral.hpp"
#include "gpuvis/filters/convolve.hpp"
#include "gpuvis/filters/mean_shift.hpp"
#include "gpuvis/io/image_file.hpp"
#include "gpuvis/io/volume_file.hpp"

namespace gpuvis::cli {
namespace {

// (input, output) pairs: one file, or every image of a folder into an output folder.
std::vector<std::pair<std::string, std::string>> jobs_for(const std::string& in, const std::string& out) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(in, ec)) return {{in, out}};
  fs::create_directories(out, ec);
  if (!fs::is_directory(out, ec)) fail(ErrorCode::io, "input is a folder, so output '" + out + "' must be a folder (cannot create it)");
  std::vector<std::pair<std::string, std::string>> jobs;
  for (const auto& e : fs::directory_iterator(in)) {
    if (e.is_regular_file() && is_image_path(e.path().string()))
      jobs.push_back({e.path().string(), (fs::path(out) / e.path().filename()).string()});
  }
  std::sort(jobs.begin(), jobs.end());
  if (jobs.empty()) fail(ErrorCode::io, "folder '" + in + "' holds no images");
  return jobs;
}

// Every output is checked before any work starts: nothing is replaced without --overwrite.
// --backend auto of convolve and bilateral over a folder: which backend runs is measured.
void timed_auto(CLI::Option* backend) {
  backend->description(backend->get_description() +
                       ". Over a folder, auto times the GPU and the CPU on the first images of each size and runs the later ones on "
                       "the faster (docs/filters.md)");
}

void check_jobs(const std::vector<std::pair<std::string, std::string>>& jobs, bool overwrite) {
  for (const auto& [src, dst] : jobs) {
    check_output_path(dst, src, overwrite);
    check_writable(dst);
  }
}

// Runs `apply(image, result, progress)` for every job, keeping each input's type and channel
// count and reporting progress. `apply` is a generic callable taking (HostView<const T>,
// HostView<T>, std::function<void(double)>). Over a folder the codecs overlap the filter: the
// next file is read and decoded, and the last result encoded and written, on their own threads
// while this one filters, so a batch is bound by the slowest of the three, not their sum.
template <class Apply>
void run_jobs(const std::vector<std::pair<std::string, std::string>>& jobs, const char* what, Apply&& apply) {
  Progress progress(what);
  std::future<AnyImage> next = std::async(std::launch::async, [&jobs] { return read_image(jobs[0].first); });
  std::future<void> writing;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const auto& [src, dst] = jobs[i];
    AnyImage image = next.get();
    if (i + 1 < jobs.size()) next = std::async(std::launch::async, [&jobs, i] { return read_image(jobs[i + 1].first); });
    std::visit(
        [&](auto& img) {
          using T = std::decay_t<decltype(img(0, 0))>;
          if (std::is_same_v<T, float> && std::filesystem::path(dst).extension() != ".pfm")
            fail(ErrorCode::invalid_argument, src + " holds floats; write the result as .pfm");
          Image<T> result(img.width(), img.height(), img.channels());
          std::function<void(double)> inner;
          if (jobs.size() == 1) inner = [&](double f) { progress(f); };
          apply(HostView<const T>(img.view()), result.view(), inner);
          if (writing.valid()) writing.get();  // the previous file is written (its error surfaces here)
          writing = std::async(std::launch::async, [&dst, r = std::move(result)] { write_image(dst, r.view()); });
        },
        image);
    if (jobs.size() > 1) progress(static_cast<double>(i + 1) / static_cast<double>(jobs.size()));
  }
  writing.get();
}

// "R1,R2,..." per-channel range bandwidths (at most 4) into p.channel_range.
void parse_channel_ranges(const std::string& text, filters::MeanShiftParams& p) {
  if (text.empty()) return;
  std::stringstream in(text);
  std::string item;
  int c = 0;
  while (std::getline(in, item, ',')) {
    require(c < 4, "--ranges takes at most 4 values (one per channel), got '" + text + "'");
    try {
      std::size_t used = 0;
      p.channel_range[c] = std::stof(item, &used);
      require(used == item.size() && p.channel_range[c] > 0, "");
    } catch (...) {
      fail(ErrorCode::invalid_argument, "--ranges takes positive numbers separated by commas, got '" + text + "'");
    }
    ++c;
  }
}

// A volume (folder of slices, folder of frame folders, or volume file) through mean shift.
void mean_shift_volume(const std::string& in, const std::string& out, const filters::MeanShiftParams& params, bool overwrite) {
  const auto t0 = std::chrono::steady_clock::now();
  Volume volume = read_volume(in);
  const std::string extension = std::holds_alternative<Image<float>>(volume.stacked) && !is_volume_file(out) ? ".pfm" : "";
  check_volume_outputs(volume_outputs(out, volume, extension), in, overwrite);
  std::visit(
      [&](const auto& stacked) {
        using T = std::decay_t<decltype(stacked(0, 0))>;
        const int h = stacked.height() / (volume.shape.depth * volume.shape.frames);
        notice("mean shift of a " + std::to_string(stacked.width()) + "x" + std::to_string(h) + "x" + std::to_string(volume.shape.depth) +
               (volume.shape.frames > 1 ? "x" + std::to_string(volume.shape.frames) : std::string()) + " volume on " +
               std::string(to_string(params.backend)));
        Image<T> result(stacked.width(), stacked.height(), stacked.channels());
        filters::MeanShiftParams p = params;
        Progress progress("meanshift");
        p.progress = [&](double f) { progress(f); };
        filters::mean_shift_filter_volume<T>(stacked.view(), result.view(), volume.shape, p);
        write_volume(out, volume, AnyImage(std::move(result)), extension);
      },
      volume.stacked);
  notice("wrote " + out + " in " + std::to_string(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()).substr(0, 5) + " s");
}

// gpuvis filter convolve
void register_convolve(CLI::App* filter, Command& run) {
  static std::string in, out, kernel_spec, border = "reflect101", backend = "auto";
  static bool flip = false, overwrite = false, no_separable = false, float_sums = false;
  static double max_gpu_mib = 0;
  static int threads = 0;
  auto* conv = filter->add_subcommand("convolve", "Correlate (or with --flip convolve) an image with a kernel");
  conv->footer(
      "Kernels: inline \"1,2,1;2,4,2;1,2,1/16\" (rows ';', values ','), @FILE, gaussian:sigma=S[,size=N],\n"
      "box:N or box:WxH, sobel-x, sobel-y, laplacian, sharpen. Odd sizes up to 31x31, or 1x127 when separable\n"
      "(rank 1; detected automatically). u8/u16 results are rounded and saturated; the input's type and\n"
      "channels are kept (write floats as .pfm). IN and OUT may be folders. u8 images under a symmetric\n"
      "smoothing kernel of up to 33 taps a side (gaussian, box) are summed in 16-bit fixed point on the CPU,\n"
      "CUDA and OpenCL (the same bytes, within 1 grey level of float sums; docs/filters.md).");
  conv->add_option("input", in, "Input image or folder");
  conv->add_option("output", out, "Output image or folder");
  conv->add_option("--kernel", kernel_spec, "Kernel (see below)");
  conv->add_option("--border", border, "constant[:V], replicate, reflect, reflect101 (default), wrap")->default_val("reflect101");
  conv->add_flag("--flip", flip, "True convolution: rotate the kernel by 180 degrees");
  conv->add_flag("--no-separable", no_separable, "Always use the 2D path");
  conv->add_flag("--float-sums", float_sums, "u8 images: sum in float, not in 16-bit fixed point (see below)");
  conv->add_option("--max-gpu-memory", max_gpu_mib, "CUDA and OpenCL: process in strips using at most this many MiB of device memory")->check(CLI::Range(0.0, 1e9));
  timed_auto(add_backend_option(*conv, backend));
  add_threads_option(*conv, threads);
  conv->add_flag("--overwrite", overwrite, "Replace existing outputs");
  conv->callback([&run] {
    run = [] {
      require(!in.empty() && !out.empty(), "filter convolve needs INPUT and OUTPUT");
      require(!kernel_spec.empty(), "filter convolve needs --kernel (e.g. --kernel gaussian:sigma=2)");
      filters::ConvolveParams options;
      options.border = filters::parse_border(border);
      options.flip = flip;
      options.allow_separable = !no_separable;
      options.fixed_point = !float_sums;
      options.max_gpu_memory = static_cast<std::size_t>(max_gpu_mib * 1024 * 1024);
      const filters::Kernel kernel = filters::parse_kernel(kernel_spec);
      if (threads) set_num_threads(threads);
      const auto jobs = jobs_for(in, out);
      check_jobs(jobs, overwrite);
      const Backend b = choose_backend(backend, true);
      run_jobs(jobs, "convolve", [&](auto src, auto dst, const std::function<void(double)>& progress) {
        using T = std::remove_const_t<typename decltype(src)::value_type>;
        filters::ConvolveParams o = options;
        o.progress = progress;
        o.backend = b;
        filters::convolve<T>(src, dst, kernel, o);
      });
      return 0;
    };
  });
}

// gpuvis filter bilateral
void register_bilateral(CLI::App* filter, Command& run) {
  static filters::BilateralParams bp;
  static std::string b_in, b_out, b_border = "reflect101", b_backend = "auto", distance = "l2";
  static bool per_channel = false, b_overwrite = false;
  static int b_threads = 0;
  auto* bil = filter->add_subcommand("bilateral", "Edge-preserving smoothing (Tomasi-Manduchi bilateral filter)");
  bil->footer(
      "Weights: exp(-r^2 / 2 sigma_space^2) * exp(-d^2 / 2 sigma_range^2) over the circle of --radius;\n"
      "d is the colour distance (--distance l2, or l1 as OpenCV), or per channel with --per-channel.\n"
      "--adaptive sets sigma_range per pixel to 2 x the standard deviation of its window.\n"
      "The input's type and channels are kept; IN and OUT may be folders.");
  bil->add_option("input", b_in, "Input image or folder");
  bil->add_option("output", b_out, "Output image or folder");
  bil->add_option("--radius", bp.radius, "Window radius in pixels (1..64)")->default_val(3);
  bil->add_option("--sigma-space", bp.sigma_space, "Spatial sigma in pixels (> 0)")->default_val(3);
  bil->add_option("--sigma-range", bp.sigma_range, "Range sigma in grey levels (> 0)")->default_val(30);
  bil->add_flag("--adaptive", bp.adaptive, "Range sigma = 2 x local standard deviation");
  bil->add_flag("--per-channel", per_channel, "Filter each channel on its own range distance");
  bil->add_option("--distance", distance, "Colour distance: l2 or l1")->check(CLI::IsMember({"l2", "l1"}))->default_val("l2");
  bil->add_option("--border", b_border, "constant[:V], replicate, reflect, reflect101 (default), wrap")->default_val("reflect101");
  timed_auto(add_backend_option(*bil, b_backend));
  add_threads_option(*bil, b_threads);
  bil->add_flag("--overwrite", b_overwrite, "Replace existing outputs");
  bil->callback([&run] {
    run = [] {
      require(!b_in.empty() && !b_out.empty(), "filter bilateral needs INPUT and OUTPUT");
      bp.border = filters::parse_border(b_border);
      bp.mode = per_channel ? filters::RangeMode::per_channel : filters::RangeMode::colour;
      bp.distance = distance == "l1" ? filters::ColourDistance::l1 : filters::ColourDistance::l2;
      filters::validate(bp);
      if (b_threads) set_num_threads(b_threads);
      const auto jobs = jobs_for(b_in, b_out);
      check_jobs(jobs, b_overwrite);
      bp.backend = choose_backend(b_backend);
      run_jobs(jobs, "bilateral", [&](auto src, auto dst, const std::function<void(double)>&) {
        using T = std::remove_const_t<typename decltype(src)::value_type>;
        filters::bilateral<T>(src, dst, bp);
      });
      return 0;
    };
  });
}

// gpuvis filter meanshift
void register_meanshift(CLI::App* filter, Command& run) {
  static std::string m_in, m_out, m_kernel = "epanechnikov", m_colour = "luv", m_backend = "auto", m_ranges;
  static filters::MeanShiftParams mp;
  static bool m_overwrite = false, m_volume = false;
  static int m_threads = 0;
  auto* ms = filter->add_subcommand("meanshift", "Mean shift filtering in the joint space-range domain (edge-preserving smoothing)");
  ms->footer(
      "Every pixel climbs to the mode of (x/hs, y/hs, value/hr) around it and takes its value; see docs/meanshift.md.\n"
      "Images of 1-4 channels with 8-bit, 16-bit or float samples (colour in CIE L*u*v* by default, --color rgb for the\n"
      "raw values). IN and OUT may be folders of images, each filtered on its own.\n"
      "Volumes: IN is a .nii/.nii.gz file, or a folder of slices with --volume (sorted by name, all of one size), or a\n"
      "folder of such folders with --volume (a sequence: one folder per frame). Voxels climb in\n"
      "(x/hs, y/hs, z/hz, t/ht, value/hr), hz = --axial (slices), ht = --time (frames); both default to hs.\n"
      "OUT is then a .nii/.nii.gz file or a folder that gets the slices under their input names.");
  ms->add_option("input", m_in, "Input image, folder of images, folder of slices (--volume) or .nii/.nii.gz volume");
  ms->add_option("output", m_out, "Output image, folder or .nii/.nii.gz volume");
  ms->add_option("--spatial", mp.spatial, "Spatial bandwidth h_s in pixels")->default_val(8);
  ms->add_option("--range", mp.range, "Range bandwidth h_r (sample units, or L*u*v* units for colour)")->default_val(16);
  ms->add_option("--ranges", m_ranges, "Per-channel range bandwidths H1,H2,... (L*,u*,v* in luv); replace --range");
  ms->add_option("--kernel", m_kernel, "epanechnikov (flat mean in the unit ball) or gaussian (truncated)")
      ->check(CLI::IsMember({"epanechnikov", "gaussian"}))
      ->default_val("epanechnikov");
  ms->add_option("--color,--colour", m_colour, "luv or rgb: the space colour images are filtered in")->check(CLI::IsMember({"luv", "rgb"}))->default_val("luv");
  ms->add_flag("--volume", m_volume, "IN is a folder of slices (or of frame folders): filter them as one volume");
  ms->add_option("--axial", mp.axial, "Volumes: bandwidth h_z across slices, in slices (0 = --spatial)")->default_val(0);
  ms->add_option("--time", mp.time, "Sequences: bandwidth h_t across frames, in frames (0 = --spatial)")->default_val(0);
  ms->add_option("--eps", mp.eps, "Convergence threshold (normalised units)")->default_val(0.01);
  ms->add_option("--max-iter", mp.max_iter, "Most steps per pixel")->default_val(100);
  add_backend_option(*ms, m_backend);
  add_threads_option(*ms, m_threads);
  ms->add_flag("--overwrite", m_overwrite, "Replace existing outputs");
  ms->callback([&run] {
    run = [] {
      require(!m_in.empty() && !m_out.empty(), "filter meanshift needs INPUT and OUTPUT");
      mp.kernel = m_kernel == "gaussian" ? filters::MeanShiftKernel::gaussian : filters::MeanShiftKernel::epanechnikov;
      mp.colour = m_colour == "rgb" ? filters::MeanShiftColour::rgb : filters::MeanShiftColour::luv;
      parse_channel_ranges(m_ranges, mp);
      filters::validate(mp);
      if (m_threads) set_num_threads(m_threads);
      std::error_code ec;
      const bool folder = std::filesystem::is_directory(m_in, ec);
      require(!m_volume || folder, "--volume needs a folder of slices as input, got '" + m_in + "'");
      if (m_volume || is_volume_file(m_in)) {
        mp.backend = choose_backend(m_backend);
        mean_shift_volume(m_in, m_out, mp, m_overwrite);
        return 0;
      }
      require(!is_volume_file(m_out), "OUTPUT '" + m_out + "' is a volume file; the input is an image (or a folder: add --volume)");
      const auto jobs = jobs_for(m_in, m_out);
      check_jobs(jobs, m_overwrite);
      mp.backend = choose_backend(m_backend);
      run_jobs(jobs, "meanshift", [&](auto src, auto dst, const std::function<void(double)>& progress) {
        using T = std::remove_const_t<typename decltype(src)::value_type>;
        filters::MeanShiftParams p = mp;
        p.progress = progress;
        filters::mean_shift_filter<T>(src, dst, p);
      });
      return 0;
    };
  });
}

}  // namespace

void register_filter(CLI::App& app, Command& run) {
  auto* filter = app.add_subcommand("filter", "Image filters: convolve (2D / separable), bilateral, meanshift");
  filter->require_subcommand(1);
  register_convolve(filter, run);
  register_bilateral(filter, run);
  register_meanshift(filter, run);
}

}  // namespace gpuvis::cli

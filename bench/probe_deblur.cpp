// probe_deblur: how far deblurring alone takes a smeared print, against the truth. For each print
// of the camera table's single-frame smears (640x480, 8 prints 48-80 px wide, seeds as
// bench_detect's), the patch the second look would take around it is deblurred once, with the
// estimated smear, with that estimate's direction refined (refine_direction), with the true
// direction and the length the autocorrelation gives along it, and with the true smear (synth's
// truth), then thresholded, segmented and decoded
// as the second look does (its patch, bounds and stages; one try, no vote); prints are counted by size. Separates the estimate's errors from the
// deblurring's limits (docs/benchmarks/detect.md); also the directions' errors against the truth.
//
//   probe_deblur [SMEAR_PX=7] [FRAMES=30] [ITERATIONS=60]   (the detector's smoothness)
// PROBE_SEQUENCE=SEED takes the frames of bench_detect's tracked sequence at SMEAR_PX a frame
// instead (probe_sequence's, exposure 1). PROBE_NOISE=SIGMA sets the frames' sensor noise; PATCH_DIR=DIR writes each try's patch, restored
// patch and binary patch there (N_ID_SIZE_{in,sharp,binary}.pgm, four tries a print, in the order
// printed: estimated, true smear, refined, true direction) and lists the prints. PROBE_CENTRES=1
// prints, for each try that read the print's ID, "centre TRY ERROR_PX ANGLE_DEG" (TRY 0-3 in that order).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numbers>
#include <string>
#include <vector>

#include "gpuvis/decode/fiducial.hpp"
#include "gpuvis/io/image_file.hpp"
#include "gpuvis/pipeline/detector.hpp"
#include "gpuvis/segment/region_tree.hpp"
#include "segment/cpu/segment.hpp"
#include "gpuvis/synth/scene.hpp"
#include "gpuvis/threshold/threshold.hpp"
#include "camera_frames.hpp"
#include "pipeline/second_look/second_look.hpp"

using namespace gpuvis;
namespace sl = gpuvis::pipeline::second_look;

namespace {

struct Stages {
  decode::TreeSet set = decode::TreeSet::builtin("default");
  std::unique_ptr<threshold::Thresholder> thresholder;
  decode::Decoder decoder{set};
  segment::RegionTree tree;
  std::vector<decode::Fiducial> fiducials;
};

// 1: the print's ID decoded where it is; -1: another ID there; 0: nothing.
int decode_restored(Stages& st, const Image<float>& patch, const Image<float>& restored, double angle, int iterations, double x,
                    double y, int size, int id);

int deblur_and_decode(Stages& st, const Image<float>& patch, double angle, double length, int iterations, double x, double y,
                      int size, int id) {
  const auto restored = sl::deconvolve(patch.view(), sl::line_kernel(angle, length), iterations, pipeline::SecondLookParams{}.smoothness,
                                      sl::print_bounds(patch.view()));
  return decode_restored(st, patch, restored, angle, iterations, x, y, size, id);
}

// The same with the print's true rigid motion (translation and turn, RigidMotion) taken out.
int deblur_rigid_and_decode(Stages& st, const Image<float>& patch, const sl::RigidMotion& m, int iterations, double x, double y, int size,
                            int id) {
  const auto blur = sl::rigid_blur(m, patch.width(), patch.height());
  Image<float> unused;
  const auto restored = sl::deconvolve(patch.view(), blur, sl::transposed(blur), iterations, pipeline::SecondLookParams{}.smoothness,
                                      sl::print_bounds(patch.view()), 0, unused);
  return decode_restored(st, patch, restored, std::atan2(m.dy, m.dx), iterations, x, y, size, id);
}

int decode_restored(Stages& st, const Image<float>& patch, const Image<float>& restored, double angle, int, double x, double y,
                    int size, int id) {
  Image<std::uint8_t> sharp(patch.width(), patch.height()), binary(patch.width(), patch.height());
  for (int r = 0; r < patch.height(); ++r)
    for (int c = 0; c < patch.width(); ++c) sharp(c, r) = static_cast<std::uint8_t>(std::clamp(std::lround(restored(c, r)), 0L, 255L));
  st.thresholder->apply(sharp.view(), binary.view());
  if (const char* dir = std::getenv("PATCH_DIR")) {
    static int n = 0;
    const std::string base = std::string(dir) + "/" + std::to_string(n++) + "_" + std::to_string(id) + "_" + std::to_string(size);
    Image<std::uint8_t> in(patch.width(), patch.height());
    for (int r = 0; r < patch.height(); ++r)
      for (int c = 0; c < patch.width(); ++c) in(c, r) = static_cast<std::uint8_t>(std::clamp(std::lround(patch(c, r)), 0L, 255L));
    write_image(base + "_in.pgm", in.view());
    write_image(base + "_sharp.pgm", sharp.view());
    write_image(base + "_binary.pgm", binary.view());
  }
  segment::segment_cpu(binary.view(), st.set.cap(), st.tree);
  static int calls = 0;
  const int call = calls++;
  const int tries = std::getenv("PROBE_SEQUENCE") ? 6 : 4;  // tries a print, in main's order (then: the true rigid motion, the estimated one)
  const char* keys = std::getenv("PROBE_KEYS");  // each try's candidate keys near the print: "key ID FRAME TRY KEY ..."
  st.decoder.set_explain(keys != nullptr);
  st.decoder.decode(st.tree, binary.view(), st.fiducials);
  for (const auto& f : st.fiducials)
    if (!f.fuzzy() && std::hypot(f.x - x, f.y - y) <= 0.35 * size) {
      if (std::getenv("PROBE_CENTRES") && f.id == id)  // "centre TRY ERROR_PX ANGLE_DEG"
        std::printf("centre %d %.2f %.1f\n", call % tries, std::hypot(f.x - x, f.y - y), angle * 180 / std::numbers::pi);
      return f.id == id ? 1 : -1;
    }
  if (keys) {
    std::printf("key %d %d %d", id, call / tries, call % tries);
    for (const auto& r : st.decoder.reports()) {
      if (!r.candidate || r.key.empty() || r.region < 0) continue;
      const double cx = st.tree.centroid_x(r.region), cy = st.tree.centroid_y(r.region);
      if (std::hypot(cx - x, cy - y) <= 0.35 * size) std::printf(" %s", r.key.c_str());
    }
    std::printf("\n");
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const double smear = argc > 1 ? std::atof(argv[1]) : 7;
  const int frames = argc > 2 ? std::atoi(argv[2]) : 30;
  const int iterations = argc > 3 ? std::atoi(argv[3]) : pipeline::SecondLookParams{}.iterations;
  if (!(smear > 0 && smear <= 30) || frames < 1 || iterations < 1) {
    std::fprintf(stderr, "probe_deblur: usage: probe_deblur [SMEAR_PX in (0, 30]] [FRAMES >= 1] [ITERATIONS >= 1]\n");
    return 2;
  }
  synth::Generator gen(std::string(GPUVIS_SOURCE_DIR) + "/data/amoeba/symbols");
  Stages st;
  auto tp = pipeline::DetectorParams::default_threshold();
  tp.backend = Backend::cpu;
  st.thresholder = threshold::make_thresholder(tp);
  int total = 0, estimated = 0, truth = 0, wrong = 0, refined = 0, true_direction = 0, rigid_truth = 0, rigid_estimated = 0, by_size[4][2] = {};
  std::vector<double> errors[2];  // the direction's error (degrees): estimated, refined
  std::vector<double> length_ratios, turn_errors;
  int mix[3] = {};  // the length along the true direction over the true length
  for (int i = 0; i < frames; ++i) {
    synth::SceneParams q = bench::camera_frame(i);
    q.motion_px = smear;
    if (const char* seed = std::getenv("PROBE_SEQUENCE")) {  // bench_detect's tracked sequence instead (probe_sequence's frames)
      q = synth::SceneParams{};
      q.symbols = 6, q.min_size = 53, q.max_size = 89, q.speed = smear, q.motion_blur = 1, q.spin = 2 * std::numbers::pi / 180;
      q.seed = static_cast<std::uint32_t>(std::stoul(seed)), q.frame = i;
      if (const char* spin = std::getenv("PROBE_SPIN")) q.spin = std::atof(spin) * std::numbers::pi / 180;
    }
    if (const char* n = std::getenv("PROBE_NOISE")) q.noise = std::atof(n);
    const auto scene = gen.make(q);
    for (const auto& p : scene.symbols) {
      const int size = static_cast<int>(p.size / 1.11);  // the symbol's width, as the second look's candidate
      const double patch_scale = std::getenv("PROBE_PATCH_SCALE") ? std::atof(std::getenv("PROBE_PATCH_SCALE")) : 1.0;
      const sl::Patch patch = sl::patch_around(scene.image.view(), p.x, p.y, static_cast<int>(patch_scale * size));
      if (patch.grey.width() == 0) continue;
      const auto m = sl::estimate_motion(patch.grey.view(), std::clamp(size / 3, 4, 24));
      const double true_angle = std::fmod(std::atan2(p.smear_y, p.smear_x) + 2 * std::numbers::pi, std::numbers::pi);
      const double x = p.x - patch.x0, y = p.y - patch.y0;
      const int a = deblur_and_decode(st, patch.grey, m.angle, m.length, iterations, x, y, size, p.id);
      const int b = deblur_and_decode(st, patch.grey, true_angle, std::hypot(p.smear_x, p.smear_y), iterations, x, y, size, p.id);
      // The detector's refined direction, and the true direction with the length the
      // autocorrelation gives along it (what a known direction of travel leaves to estimate).
      const auto bounds = sl::print_bounds(patch.grey.view());
      const double smoothness = pipeline::SecondLookParams{}.smoothness;
      const auto cpu = sl::make_cpu_deconvolver();
      const auto r = sl::refine_direction(*cpu, patch.grey.view(), m, std::clamp(size / 3, 4, 24), bounds, smoothness);
      const auto t = sl::refine_direction(*cpu, patch.grey.view(), {true_angle, 0, 1}, std::clamp(size / 3, 4, 24), bounds, smoothness, 20, 0);
      const int c = deblur_and_decode(st, patch.grey, r.angle, r.length, iterations, x, y, size, p.id);
      const int d = deblur_and_decode(st, patch.grey, t.angle, t.length, iterations, x, y, size, p.id);
      refined += c == 1, true_direction += d == 1;
      if (std::getenv("PROBE_SEQUENCE")) {  // the true rigid motion: the smear and the spin over the exposure about the print's centre
        const sl::RigidMotion rigid{p.smear_x, p.smear_y, q.spin * q.motion_blur, x, y};
        const int e = deblur_rigid_and_decode(st, patch.grey, rigid, iterations, x, y, size, p.id);
        rigid_truth += e == 1, wrong += e == -1;
        // The refined estimate with its turn estimated (estimate_turn).
        const double turn = (std::getenv("PROBE_TURN_SCALE") ? std::atof(std::getenv("PROBE_TURN_SCALE")) : 1.0) * sl::estimate_turn(patch.grey.view(), r.angle, std::clamp(size / 3, 4, 24));
        const sl::RigidMotion guess{r.length * std::cos(r.angle), r.length * std::sin(r.angle), turn, x, y};
        const int g = deblur_rigid_and_decode(st, patch.grey, guess, iterations, x, y, size, p.id);
        rigid_estimated += g == 1, wrong += g == -1;
        // (d, turn) and (-d, -turn) are one blur: the estimate's turn is for the smear along r.angle's way.
        const double way = std::cos(r.angle) * p.smear_x + std::sin(r.angle) * p.smear_y >= 0 ? 1 : -1;
        turn_errors.push_back(std::fabs(way * turn - rigid.turn) * 180 / std::numbers::pi);
        if (std::getenv("PROBE_RIGID_MIX")) {  // the true translation with the estimated turn, and the estimated one with the true turn
          const int h1 = deblur_rigid_and_decode(st, patch.grey, {p.smear_x, p.smear_y, way * turn, x, y}, iterations, x, y, size, p.id);
          const int h2 = deblur_rigid_and_decode(st, patch.grey, {guess.dx, guess.dy, way * rigid.turn, x, y}, iterations, x, y, size, p.id);
          const double tway = std::cos(t.angle) * p.smear_x + std::sin(t.angle) * p.smear_y >= 0 ? 1 : -1;
          const int h3 = deblur_rigid_and_decode(st, patch.grey, {t.length * std::cos(t.angle), t.length * std::sin(t.angle), tway * rigid.turn, x, y},
                                                 iterations, x, y, size, p.id);
          mix[0] += h1 == 1, mix[1] += h2 == 1, mix[2] += h3 == 1;
        }
        if (std::getenv("PROBE_TURNS")) std::printf("turn true %.2f estimated %.2f deg, size %d: %s\n", rigid.turn * 180 / std::numbers::pi, turn * 180 / std::numbers::pi, size, g == 1 ? "decoded" : "not");
      }
      if (std::getenv("PATCH_DIR")) std::printf("print %d (patches %d-%d): id %d size %d, true smear %s\n", total, 4 * total, 4 * total + 3, p.id, size, b == 1 ? "decoded" : "not decoded");
      auto off = [&](double angle) {  // degrees between two directions of travel (modulo pi)
        const double e = std::fabs(std::remainder(angle - true_angle, std::numbers::pi));
        return e * 180 / std::numbers::pi;
      };
      errors[0].push_back(off(m.angle)), errors[1].push_back(off(r.angle));
      length_ratios.push_back(t.length / std::hypot(p.smear_x, p.smear_y));
      estimated += a == 1, truth += b == 1, wrong += (a == -1) + (b == -1) + (c == -1) + (d == -1);
      const int bin = std::clamp((size - 48) / 8, 0, 3);
      ++by_size[bin][0];
      by_size[bin][1] += b == 1;
      ++total;
    }
  }
  std::printf("smear %.1f px, %d iterations: %d prints; decoded in one try with the estimated smear %d, its direction refined %d, "
              "with the true direction and the length along it %d, with the true smear %d, with the true rigid motion %d, the refined smear with its turn estimated %d; other IDs %d\n",
              smear, iterations, total, estimated, refined, true_direction, truth, rigid_truth, rigid_estimated, wrong);
  for (auto& e : errors) std::sort(e.begin(), e.end());
  auto quantile = [](const std::vector<double>& e, double q) { return e.empty() ? 0.0 : e[static_cast<std::size_t>(q * static_cast<double>(e.size() - 1))]; };
  if (std::getenv("PROBE_RIGID_MIX")) std::printf("  the true translation with the estimated turn %d, the estimated translation with the true turn %d, the true direction with the length along it and the true turn %d\n", mix[0], mix[1], mix[2]);
  if (!turn_errors.empty()) {
    std::sort(turn_errors.begin(), turn_errors.end());
    std::printf("  turn error (degrees, median / 80th / 95th percentile): %.1f / %.1f / %.1f\n", quantile(turn_errors, 0.5),
                quantile(turn_errors, 0.8), quantile(turn_errors, 0.95));
  }
  std::printf("  direction error (degrees, median / 80th / 95th percentile): estimated %.1f / %.1f / %.1f, refined %.1f / %.1f / %.1f\n",
              quantile(errors[0], 0.5), quantile(errors[0], 0.8), quantile(errors[0], 0.95), quantile(errors[1], 0.5),
              quantile(errors[1], 0.8), quantile(errors[1], 0.95));
  std::sort(length_ratios.begin(), length_ratios.end());
  std::printf("  length along the true direction over the true length (5th / median / 95th percentile): %.2f / %.2f / %.2f\n",
              quantile(length_ratios, 0.05), quantile(length_ratios, 0.5), quantile(length_ratios, 0.95));
  for (int b = 0; b < 4; ++b)
    std::printf("  symbols %d-%d px wide, the true smear: %d/%d\n", 48 + 8 * b, b == 3 ? 80 : 55 + 8 * b, by_size[b][1], by_size[b][0]);
}

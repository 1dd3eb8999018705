// Detection benchmarks on generated table scenes (real printed symbols):
//  1. threshold choice: recall, false IDs, centre error and time of each method under several
//     conditions (normal, dim, blurred, noisy, uneven light) -> the default of detect/track;
//  2. per-stage time (threshold, segment, decode) at 640x480 on one CPU thread;
//  3. the same on noisy frames with ~20 000 and ~29 000 regions, against the clean one.
//  0. the camera's effects (vignetting, JPEG, motion blur, a webcam's mix, dim prints, Gaussian
//     blur): recall and false IDs with the second look off and on, and CUDA against the CPU; the
//     fingers in the same kinds of frame; and tracked sequences of sliding prints turning 2 and 6 degrees a frame (--sequence-md): frames
//     reported, sessions, wrong IDs.
// Writes timing JSON lines (--out) and, with --md FILE, the accuracy table as Markdown; with
// --camera-md FILE the camera tables (symbols, then fingers) and --sequence-md FILE the sequences' (--camera-only: those
// two alone; --seed-base N: the camera table on another set of frames, 5000 by default).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <numbers>
#include <random>
#include <sstream>

#include "gpuvis/core/parallel.hpp"
#include "gpuvis/cuda/runtime.hpp"
#include "gpuvis/pipeline/detector.hpp"
#include "gpuvis/synth/scene.hpp"
#include "gpuvis/track/tracker.hpp"
#include "camera_frames.hpp"
#include "harness.hpp"

using namespace gpuvis;

namespace {

struct Method {
  std::string name;
  threshold::Params params;
};

std::vector<Method> methods() {
  std::vector<Method> m;
  for (int h : {6, 12, 16, 20}) {
    threshold::Params p;
    p.bernsen = {h, 32};
    m.push_back({"bernsen h=" + std::to_string(h), p});
  }
  threshold::Params p16;
  p16.bernsen = {16, 16};
  m.push_back({"bernsen h=16 gate=16", p16});
  threshold::Params t;
  t.method = threshold::Method::tiled;
  m.push_back({"tiled (reacTIVision TB)", t});
  threshold::Params b;
  b.method = threshold::Method::bradley_roth;
  m.push_back({"bradley-roth (reacTIVision default)", b});
  auto sharp = pipeline::DetectorParams::default_threshold();
  sharp.sharpen = 2;
  m.push_back({"bernsen h=" + std::to_string(sharp.bernsen.half_window) + ", sharpen 2", sharp});
  return m;
}

struct Condition {
  std::string name;
  synth::SceneParams q;
  double blur_to = 0;  // > 0: the frames' blur runs from q.blur to this, evenly
  bool held_out = false;  // one of the held-out set's kinds of frames: fingers measured too
  bool sequence = false;  // frames of one moving scene (prints leave the frame): fingers only
};

std::vector<Condition> conditions() {
  synth::SceneParams base;
  base.symbols = 8;
  base.fingers = 3;
  base.min_size = 60;
  base.max_size = 120;
  std::vector<Condition> c;
  c.push_back({"normal (blur 0.8, noise 3)", base});
  auto dim = base;
  dim.brightness = 70;
  c.push_back({"dim (paper at 70)", dim});
  auto blurred = base;
  blurred.blur = 2.0;
  c.push_back({"blurred (sigma 2)", blurred});
  auto noisy = base;
  noisy.noise = 10;
  c.push_back({"noisy (sigma 10)", noisy});
  auto uneven = base;
  uneven.illumination = 0.8;
  c.push_back({"uneven light (80% fall-off)", uneven});
  auto small = base;
  small.min_size = 40;
  small.max_size = 60;
  small.symbols = 14;
  c.push_back({"small symbols (40-60 px)", small});
  // The three kinds of frames on which reacTIVision 1.6 found more than gpuvis once: small
  // symbols, blurred ones, dim low-contrast prints under a strong gradient; 14 px fingers.
  auto held = base;
  held.finger_size = 14;
  // Sizes are the symbols' (root regions') widths; synth's sizes are the
  // printed squares', which are 1.07-1.21 (median 1.11) times wider.
  auto tiny = held;
  tiny.min_size = 34 * 1.11;
  tiny.max_size = 46 * 1.11;
  tiny.symbols = 16;
  c.push_back({"small symbols (34-46 px wide)", tiny, 0, true});
  auto soft = held;
  soft.min_size = 48 * 1.11;
  soft.max_size = 80 * 1.11;
  soft.symbols = 10;
  soft.blur = 1.1;
  c.push_back({"blurred (sigma 1.1-1.5, 48-80 px wide)", soft, 1.5, true});
  auto faint = held;
  faint.brightness = 125;  // white print 94-125 under the gradient
  faint.illumination = 0.25;
  faint.ink = 0.45;        // black print 47-62
  faint.table = 0.33;      // table 34-46
  c.push_back({"dim (white 95-125, black 45-65, table 30-50)", faint, 0, true});
  // Prints sliding, turning and leaving the frame around fingers that stay down: the leaves of a
  // print half out of the frame do not decode and must not become fingers.
  auto moving = held;
  moving.symbols = 8;
  moving.speed = 6;
  moving.spin = 0.03;
  c.push_back({"moving prints leaving the frame (a sequence)", moving, 0, true, true});
  return c;
}

// Fingers (size 14, default sensitivity) with the default detector: found = a finger within half a
// finger of a true one; a ghost is any other finger, "on a symbol" when it lies inside a print.
std::string finger_row(const std::string& name, const std::vector<synth::Scene>& scenes) {
  pipeline::DetectorParams cfg;
  cfg.fingers.size = 14;
  pipeline::Detector det(cfg);
  int total = 0, found = 0, ghosts = 0, on_symbol = 0;
  for (const auto& s : scenes) {
    const auto& d = det.detect(s.image.view());
    std::vector<bool> used(s.fingers.size(), false);
    for (const auto& f : d.fingers) {
      bool ok = false;
      for (std::size_t k = 0; k < s.fingers.size() && !ok; ++k)
        if (!used[k] && std::hypot(s.fingers[k].x - f.x, s.fingers[k].y - f.y) < s.fingers[k].size / 2) used[k] = ok = true;
      if (ok) continue;
      ++ghosts;
      for (const auto& sym : s.symbols)
        if (std::hypot(sym.x - f.x, sym.y - f.y) < sym.size * 0.75) {
          ++on_symbol;
          break;
        }
    }
    total += static_cast<int>(s.fingers.size());
    found += static_cast<int>(std::count(used.begin(), used.end(), true));
  }
  char row[256];
  std::snprintf(row, sizeof row, "| %s | %d/%d (%.1f%%) | %d | %d |\n", name.c_str(), found, total, 100.0 * found / total,
                ghosts, on_symbol);
  std::fputs(row, stderr);
  return row;
}

// One frame's detections against its truth: a valid ID within a quarter print of a true symbol of
// that ID is found (its centre error, and angle error in degrees when asked, recorded); any other
// valid ID is false.
void score_frame(const synth::Scene& s, const std::vector<decode::Fiducial>& fiducials, int& total, int& found, int& false_ids,
                 std::vector<double>& centre, std::vector<double>* angle) {
  std::vector<bool> used(s.symbols.size(), false);
  for (const auto& f : fiducials) {
    if (f.fuzzy()) continue;
    bool ok = false;
    for (std::size_t k = 0; k < s.symbols.size() && !ok; ++k)
      if (!used[k] && s.symbols[k].id == f.id && std::hypot(s.symbols[k].x - f.x, s.symbols[k].y - f.y) < s.symbols[k].size / 4) {
        used[k] = ok = true;
        centre.push_back(std::hypot(s.symbols[k].x - f.x, s.symbols[k].y - f.y));
        if (angle) {
          const double da = std::fmod(std::abs(s.symbols[k].angle - f.angle), 2 * std::numbers::pi);
          angle->push_back(std::min(da, 2 * std::numbers::pi - da) * 180 / std::numbers::pi);
        }
      }
    false_ids += !ok;
  }
  total += static_cast<int>(s.symbols.size());
  found += static_cast<int>(std::count(used.begin(), used.end(), true));
}

// The detectors the camera and sequence tables compare: the CPU without and with the second look,
// and CUDA when a device is present.
struct DetectorRun {
  std::string name;
  Backend backend;
  bool second_look;
};
std::vector<DetectorRun> detector_runs() {
  std::vector<DetectorRun> runs{{"CPU, no second look", Backend::cpu, false}, {"CPU", Backend::cpu, true}};
  if (gpuvis::cuda::device_count() > 0) runs.push_back({"CUDA", Backend::cuda, true});
  return runs;
}

// The frames of one kind of the camera tables: frame i of `seed_base`'s set with the kind's effect
// at i / (frames - 1) of its range, and `fingers` fingertips 14 px wide.
std::vector<synth::Scene> camera_scenes(synth::Generator& gen, const bench::CameraCondition& cond, int frames, std::uint32_t seed_base,
                                        int fingers) {
  std::vector<synth::Scene> scenes;
  for (int i = 0; i < frames; ++i) {
    synth::SceneParams q = bench::camera_frame(i, seed_base);
    if (fingers > 0) {
      q.fingers = fingers;
      q.finger_size = 14;
    }
    cond.apply(q, frames > 1 ? static_cast<double>(i) / (frames - 1) : 0.0);
    scenes.push_back(gen.make(q));
  }
  return scenes;
}

// Recall, false IDs, centre error and time of the default detector with the second look off and
// on (CPU, one thread), and on CUDA when a device is present (its detections compared with the
// CPU's frame by frame).
std::string camera_table(synth::Generator& gen, int frames, const std::string& filter, std::uint32_t seed_base) {
  std::ostringstream table;
  table << "| frames | detector | found | false IDs | median centre error (px) | median ms/frame |\n|---|---|---:|---:|---:|---:|\n";
  for (const auto& cond : bench::camera_conditions()) {
    if (cond.name.find(filter) == std::string::npos) continue;
    const std::vector<synth::Scene> scenes = camera_scenes(gen, cond, frames, seed_base, 0);
    std::vector<std::vector<decode::Fiducial>> cpu_results;
    for (const DetectorRun& run : detector_runs()) {
      pipeline::DetectorParams cfg;
      cfg.backend = run.backend;
      cfg.second_look.enabled = run.second_look;
      pipeline::Detector det(cfg);
      int total = 0, found = 0, false_ids = 0, differing = 0;
      std::vector<double> centre, ms;
      for (std::size_t i = 0; i < scenes.size(); ++i) {
        const auto& s = scenes[i];
        const auto t0 = std::chrono::steady_clock::now();
        const auto& d = det.detect(s.image.view());
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        if (run.backend == Backend::cpu && run.second_look) cpu_results.push_back(d.fiducials);
        if (run.backend == Backend::cuda) {
          const auto& c = cpu_results[i];
          bool same = c.size() == d.fiducials.size();
          for (std::size_t k = 0; same && k < c.size(); ++k)
            same = c[k].id == d.fiducials[k].id && c[k].x == d.fiducials[k].x && c[k].y == d.fiducials[k].y;
          differing += !same;
        }
        score_frame(s, d.fiducials, total, found, false_ids, centre, nullptr);
      }
      std::sort(centre.begin(), centre.end());
      std::sort(ms.begin(), ms.end());
      std::string name = run.name;
      if (run.backend == Backend::cuda) name += differing ? " (" + std::to_string(differing) + " frames differ from the CPU)" : " (= CPU on every frame)";
      char row[512];
      std::snprintf(row, sizeof row, "| %s | %s | %d/%d (%.1f%%) | %d | %.3f | %.2f |\n", cond.name.c_str(), name.c_str(), found, total,
                    100.0 * found / total, false_ids, centre.empty() ? std::nan("") : centre[centre.size() / 2], ms[ms.size() / 2]);
      table << row;
      std::fputs(row, stderr);
    }
  }
  return table.str();
}

// Fingers in the camera's frames: the same kinds of frame (other scenes: 3 fingertips 14 px wide
// among the 8 prints, the effect on the whole frame, a print's smear on the prints only: fingers
// stay down), found and ghosts with the default detector and finger size 14 (CPU; the CUDA
// detector's fingers equal the CPU's, PipelineCuda.FingersAndBlobsOfEveryShapeEqualTheCpu).
std::string camera_finger_table(synth::Generator& gen, int frames, const std::string& filter, std::uint32_t seed_base) {
  std::ostringstream table;
  table << "| frames | fingers found | ghost fingers | of which on a symbol |\n|---|---:|---:|---:|\n";
  for (const auto& cond : bench::camera_conditions()) {
    if (cond.name.find(filter) == std::string::npos) continue;
    const std::vector<synth::Scene> scenes = camera_scenes(gen, cond, frames, seed_base + 1, 3);
    table << finger_row(cond.name, scenes);
  }
  return table.str();
}

// Tracked sequences: prints sliding at `speed` px per frame and turning `spin_degrees` per frame,
// the shutter open for `exposure` of the frame interval; the detector, the tracker and the
// tracker's expectations fed back (as gpuvis track does). Per print: the frames it is reported in
// (an object of its ID within a third of its size), its sessions, the centre error; wrong IDs are
// objects updated over a print of another ID.
struct Motion {
  double speed, exposure, ramp;
};
std::string sequence_table(synth::Generator& gen, int frames, double spin_degrees, const std::vector<Motion>& motions) {
  std::ostringstream table;
  table << "| speed (px/frame) | ramp (frames) | exposure | smear (px) | detector | reported | worst print | sessions per print (most) | "
           "wrong IDs | median / p95 centre error (px) | ms/frame: median / p90 / most |\n|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|\n";
  for (const auto [speed, exposure, ramp] : motions) {
    std::vector<synth::Scene> scenes;
    synth::SceneParams q;
    q.symbols = 6;
    q.min_size = 53;
    q.max_size = 89;
    q.speed = speed;
    q.spin = spin_degrees * std::numbers::pi / 180;
    q.motion_blur = exposure;
    q.ramp = ramp;
    q.seed = 77;
    for (int t = 0; t < frames; ++t) {
      q.frame = t;
      scenes.push_back(gen.make(q));
    }
    for (const DetectorRun& run : detector_runs()) {
      pipeline::DetectorParams cfg;
      cfg.backend = run.backend;
      cfg.second_look.enabled = run.second_look;
      pipeline::Detector det(cfg);
      track::Tracker tracker;
      std::vector<decode::ExpectedSymbol> expected;
      std::map<int, int> present, reported;
      std::map<int, std::set<int>> sessions;
      std::vector<double> err, ms;
      int wrong = 0;
      for (std::size_t t = 0; t < scenes.size(); ++t) {
        const auto& s = scenes[t];
        const auto t0 = std::chrono::steady_clock::now();
        tracker.expected_symbols(expected);
        det.expect(expected);
        const auto& d = det.detect(s.image.view());
        const auto& f = tracker.update(d, static_cast<double>(t) / 60);
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        for (const auto& sym : s.symbols) {
          ++present[sym.id];
          for (const auto& o : f.objects) {
            const double e = std::hypot(double{o.m.x} * q.width - sym.x, double{o.m.y} * q.height - sym.y);
            if (o.symbol_id == sym.id && e < sym.size / 3) {
              ++reported[sym.id];
              sessions[sym.id].insert(o.session_id);
              err.push_back(e);
              break;
            }
          }
        }
        for (const auto& o : f.objects)
          if (o.updated)
            for (const auto& sym : s.symbols)
              wrong += sym.id != o.symbol_id &&
                       std::hypot(double{o.m.x} * q.width - sym.x, double{o.m.y} * q.height - sym.y) < sym.size / 3;
      }
      int total = 0, found = 0;
      double worst = 1;
      std::size_t most_sessions = 0;
      for (const auto& [id, n] : present) {
        total += n;
        found += reported[id];
        worst = std::min(worst, static_cast<double>(reported[id]) / n);
        most_sessions = std::max(most_sessions, sessions[id].size());
      }
      std::sort(err.begin(), err.end());
      std::sort(ms.begin(), ms.end());
      const auto at = [&](double f) {
        return err.empty() ? std::nan("") : err[static_cast<std::size_t>(f * static_cast<double>(err.size() - 1))];
      };
      char row[512];
      std::snprintf(row, sizeof row,
                    "| %g | %g | %g | %g | %s | %d/%d (%.1f%%) | %.2f | %zu | %d | %.2f / %.2f | %.2f / %.2f / %.2f |\n", speed, ramp,
                    exposure, speed * exposure, run.name.c_str(), found, total, 100.0 * found / std::max(total, 1),
                    worst, most_sessions, wrong, at(0.5), at(0.95), ms[ms.size() / 2], ms[ms.size() * 9 / 10], ms.back());
      table << row;
      std::fputs(row, stderr);
    }
  }
  return table.str();
}

}  // namespace

int main(int argc, char** argv) {
  std::string md, camera_md, sequence_md;
  bool camera_only = false;
  std::uint32_t seed_base = 5000;
  std::vector<char*> rest{argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--md" && i + 1 < argc) md = argv[++i];
    else if (std::string(argv[i]) == "--camera-md" && i + 1 < argc) camera_md = argv[++i];
    else if (std::string(argv[i]) == "--camera-only") camera_only = true;
    else if (std::string(argv[i]) == "--seed-base" && i + 1 < argc) seed_base = static_cast<std::uint32_t>(std::stoul(argv[++i]));
    else if (std::string(argv[i]) == "--sequence-md" && i + 1 < argc) sequence_md = argv[++i];
    else rest.push_back(argv[i]);
  }
  const auto args = bench::Args::parse(static_cast<int>(rest.size()), rest.data());
  const std::string symbols = std::string(GPUVIS_SOURCE_DIR) + "/data/amoeba/symbols";
  bench::Report report(args.out);
  set_num_threads(1);  // the accuracy tables are of one CPU thread
  const int frames = args.quick ? 8 : 30;

  synth::Generator camera_gen(symbols);
  const std::string camera = camera_table(camera_gen, frames, args.filter, seed_base);
  const std::string camera_fingers = camera_finger_table(camera_gen, frames, args.filter, seed_base);
  if (!camera_md.empty()) std::ofstream(camera_md) << camera << "\n" << camera_fingers;
  // --filter picks camera conditions by name; "sequence" picks the tracked sequences alone.
  const bool sequences_wanted = args.filter.empty() || args.filter == "sequence";
  // Turning 2 degrees a frame: prints moving from the first frame, then prints put down and brought
  // up to speed over 20 frames (a hand slides a token it has just put down). Then turning 6 degrees
  // a frame (a token spun once a second at 60 Hz), from the first frame and after a ramp of 30.
  std::vector<Motion> turning, spinning;
  for (double speed : {4.0, 6.0, 8.0, 12.0})
    for (double exposure : {0.5, 1.0}) turning.push_back({speed, exposure, 0});
  for (double speed : {8.0, 12.0, 16.0})
    for (double exposure : {0.5, 1.0}) turning.push_back({speed, exposure, 20});
  for (double speed : {4.0, 8.0, 12.0})
    for (double exposure : {0.5, 1.0}) spinning.push_back({speed, exposure, 0});
  spinning.push_back({12.0, 1.0, 30});
  const int sequence_frames = args.quick ? 40 : 120;
  const std::string sequences = sequences_wanted ? "Turning 2 degrees a frame:\n\n" + sequence_table(camera_gen, sequence_frames, 2, turning) +
                                                       "\nSpinning 6 degrees a frame:\n\n" +
                                                       sequence_table(camera_gen, sequence_frames, 6, spinning)
                                                 : "";
  if (!sequence_md.empty()) std::ofstream(sequence_md) << sequences;
  if (camera_only) return 0;

  // 1. Threshold choice.
  std::ostringstream table;
  table << "| condition | threshold | found | false IDs | median centre error (px) | median angle error (°) | median ms/frame |\n"
        << "|---|---|---:|---:|---:|---:|---:|\n";
  std::ostringstream fingers_table;
  fingers_table << "| condition | fingers found | ghost fingers | of which on a symbol |\n|---|---:|---:|---:|\n";
  synth::Generator gen(symbols);
  for (const auto& cond : conditions()) {
    std::vector<synth::Scene> scenes;
    for (int i = 0; i < frames; ++i) {
      auto q = cond.q;
      q.seed = 1000 + static_cast<std::uint32_t>(cond.sequence ? 0 : i) * 7919u;
      if (cond.sequence) q.frame = i;
      if (cond.blur_to > 0) q.blur = cond.q.blur + (cond.blur_to - cond.q.blur) * i / std::max(1, frames - 1);
      scenes.push_back(gen.make(q));
    }
    if (cond.held_out) fingers_table << finger_row(cond.name, scenes);
    if (cond.sequence) continue;  // half-visible prints are not in the truth: no symbol rows
    for (const auto& m : methods()) {
      pipeline::DetectorParams cfg;
      cfg.threshold = m.params;
      pipeline::Detector det(cfg);
      int total = 0, found = 0, false_ids = 0;
      std::vector<double> centre, angle, ms;
      for (const auto& s : scenes) {
        const auto t0 = std::chrono::steady_clock::now();
        const auto& d = det.detect(s.image.view());
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        score_frame(s, d.fiducials, total, found, false_ids, centre, &angle);
      }
      auto med = [](std::vector<double> v) {
        if (v.empty()) return std::nan("");
        std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
        return v[v.size() / 2];
      };
      char row[512];
      std::snprintf(row, sizeof row, "| %s | %s | %d/%d (%.1f%%) | %d | %.3f | %.3f | %.2f |\n", cond.name.c_str(), m.name.c_str(),
                    found, total, 100.0 * found / total, false_ids, med(centre), med(angle), med(ms));
      table << row;
      std::fputs(row, stderr);
    }
  }
  if (!md.empty()) std::ofstream(md) << table.str() << "\n" << fingers_table.str();

  // 2. Per-stage times at 640x480, 8 symbols + 3 fingers, one thread, default detector.
  synth::SceneParams q;
  q.symbols = 8;
  q.fingers = 3;
  q.seed = 5;
  const auto clean = gen.make(q);
  pipeline::Detector det(pipeline::DetectorParams{});
  auto stage = [&](const synth::Scene& s, const std::string& label) {
    std::vector<double> th, sg, dc;
    bench::Options o;
    o.min_runs = args.quick ? 20 : 100;
    int regions = 0;
    const auto total = bench::measure(
        [&] {
          const auto& d = det.detect(s.image.view());
          th.push_back(d.times.threshold_us);
          sg.push_back(d.times.segment_us);
          dc.push_back(d.times.decode_us);
          regions = d.regions;
          return d.times.threshold_us + d.times.segment_us + d.times.decode_us;
        },
        o);
    const std::map<std::string, std::string> params{{"frame", label}, {"regions", std::to_string(regions)}};
    report.add({"detect", "threshold", "cpu-1thread", "host", s.image.width(), s.image.height(), params, bench::summarize(th)});
    report.add({"detect", "segment", "cpu-1thread", "host", s.image.width(), s.image.height(), params, bench::summarize(sg)});
    report.add({"detect", "decode", "cpu-1thread", "host", s.image.width(), s.image.height(), params, bench::summarize(dc)});
    report.add({"detect", "total", "cpu-1thread", "host", s.image.width(), s.image.height(), params, total});
  };
  stage(clean, "8 symbols + 3 fingers");
  // 3. The same scene with Gaussian sensor noise: sigma 4.6 gives about 20 000 regions (a
  //    noisy table), sigma 24 about 29 000 (where the count saturates: the worst case at this size).
  for (const double sigma : {4.6, 24.0}) {
    auto noisy = gen.make(q);
    std::mt19937 rng(3);
    std::normal_distribution<double> n(0, sigma);
    for (int y = 0; y < noisy.image.height(); ++y)
      for (int x = 0; x < noisy.image.width(); ++x)
        noisy.image(x, y) = static_cast<std::uint8_t>(std::clamp(std::lround(noisy.image(x, y) + n(rng)), 0L, 255L));
    char label[64];
    std::snprintf(label, sizeof label, "same + noise sigma %g", sigma);
    stage(noisy, label);
  }
  return 0;
}

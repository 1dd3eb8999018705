// probe_sequence: how the tracker followed each print of one of bench_detect's tracked sequences.
// It runs the sequence as bench_detect does (detector, tracker, the tracker's expectations fed back)
// and prints, per print, one character per frame:
//   F its symbol decoded   f a damaged candidate or a misread at its place (fuzzy)
//   r its root region      a found by its appearance (the second look)
//   p kept though not seen this frame
//   . not reported         (blank) not in the frame
// then, per print, its sessions and the frames where a new one began.
//
// With --looks, also each frame's second-look time, its looks counted by kind and outcome, and each
// look for a print by its appearance: frame, ID, score, added smear. With PROBE_LOOKS set too,
// every look: kind, size, place, the nearest print and the nearest symbol reported (in its root
// sizes), its time and outcome.
//
// With --why ID, every second look within half the print's size of print ID, beside its true smear:
// frame, kind, estimated and true smear, outcome.
//
// With --misses, for the frames where a print was not reported: how far the nearest second look was
// from it (in print sizes) and what became of it, counted.
//
// With DUMP_DIR set, each frame is also written as DUMP_DIR/frame_T.pgm (for `gpuvis detect --debug`).
// With PROBE_ERRORS set, each print reported or detected more than 1 px off its true centre, per frame.
//
//   probe_sequence SPEED EXPOSURE [RAMP=0] [FRAMES=120] [SEED=77] [--no-second-look] [--no-appearance] [--no-travel] [--looks]
//                  [--why ID] [--misses] [--spin DEG (per frame, default 2)] [--cuda (the CUDA backend)]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <numbers>
#include <string>

#include "gpuvis/io/image_file.hpp"
#include "gpuvis/pipeline/detector.hpp"
#include "gpuvis/synth/scene.hpp"
#include "gpuvis/track/tracker.hpp"

using namespace gpuvis;

namespace {

char state_of(const track::Object& o) {
  if (!o.updated) return '.';
  if (o.missed > 0) return 'p';
  switch (o.tracking) {
    case track::Tracking::found: return 'F';
    case track::Tracking::fuzzy: return 'f';
    case track::Tracking::root: return 'r';
    case track::Tracking::followed: return 'a';
  }
  return '?';
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: probe_sequence SPEED EXPOSURE [RAMP=0] [FRAMES=120] [SEED=77] [--no-second-look] [--no-appearance] [--no-travel] [--looks] [--why ID] [--misses] [--spin DEG] [--cuda]\n");
    return 2;
  }
  bool second_look = true, looks = false, appearance = true, travel = true;
  int why = -1;
  double spin_degrees = 2;  // per frame, as bench_detect's sequences
  bool misses = false, cuda = false;
  std::map<std::string, int> miss_kinds;  // with --misses: "offset band | kind | outcome" -> frames
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--no-second-look") second_look = false;
    else if (std::string(argv[i]) == "--looks") looks = true;
    else if (std::string(argv[i]) == "--no-appearance") appearance = false;
    else if (std::string(argv[i]) == "--no-travel") travel = false;
    else if (std::string(argv[i]) == "--misses") misses = true;
    else if (std::string(argv[i]) == "--cuda") cuda = true;
    else if (std::string(argv[i]) == "--why" && i + 1 < argc) why = std::atoi(argv[++i]);
    else if (std::string(argv[i]) == "--spin" && i + 1 < argc) spin_degrees = std::atof(argv[++i]);
    else args.emplace_back(argv[i]);
  }
  synth::SceneParams q;  // bench_detect's sequence_table
  q.symbols = 6;
  q.min_size = 53;
  q.max_size = 89;
  q.speed = std::atof(args.at(0).c_str());
  q.motion_blur = std::atof(args.at(1).c_str());
  q.ramp = args.size() > 2 ? std::atof(args[2].c_str()) : 0;
  const int frames = args.size() > 3 ? std::atoi(args[3].c_str()) : 120;
  q.seed = args.size() > 4 ? static_cast<std::uint32_t>(std::stoul(args[4])) : 77;
  q.spin = spin_degrees * std::numbers::pi / 180;

  const char* pgm = std::getenv("GPUVIS_SYMBOL_PGM_DIR");  // PGM copies of the prints, for builds without libpng
  synth::Generator gen(pgm ? std::string(pgm) : std::string(GPUVIS_SOURCE_DIR) + "/data/amoeba/symbols");
  pipeline::DetectorParams cfg;
  cfg.second_look.enabled = second_look;
  cfg.second_look.follow_appearance = appearance;
  cfg.second_look.follow_travel = travel;
  if (cuda) cfg.backend = Backend::cuda;
  pipeline::Detector det(cfg);
  track::Tracker tracker;
  std::vector<decode::ExpectedSymbol> expected;
  std::map<int, std::string> line;              // per print ID: one character per frame
  std::map<int, std::map<int, int>> first_seen;  // per print ID: session -> first frame
  std::map<int, double> size;
  for (int t = 0; t < frames; ++t) {
    q.frame = t;
    const synth::Scene s = gen.make(q);
    tracker.expected_symbols(expected);
    if (const char* dump = std::getenv("DUMP_DIR")) write_image(std::string(dump) + "/frame_" + std::to_string(t) + ".pgm", s.image.view());
    det.expect(expected);
    const auto& d = det.detect(s.image.view());
    if (std::getenv("PROBE_ERRORS"))
      for (const auto& f : d.fiducials)
        for (const auto& sym : s.symbols)
          if (const double off = std::hypot(f.x - sym.x, f.y - sym.y); f.id == sym.id && off > 1 && off < sym.size / 3.0)
            std::printf("frame %3d print %3d detected %.2f px off%s%s\n", t, sym.id, off, f.repaired ? " (repaired)" : "",
                        f.followed ? " (followed)" : "");
    if (looks) {
      std::map<std::string, int> outcomes;  // how the frame's looks ended
      for (const auto& l : d.second_looks) ++outcomes[std::string(l.kind) + ": " + l.outcome];
      std::printf("frame %3d: second look %.0f us, %zu looks\n", t, d.times.second_look_us, d.second_looks.size());
      for (const auto& [outcome, n] : outcomes) std::printf("  %3d %s\n", n, outcome.c_str());
      if (std::getenv("PROBE_LOOKS"))  // every look: where, of what size, the nearest print, its time and outcome
        for (const auto& l : d.second_looks) {
          const synth::PlacedSymbol* nearest = nullptr;
          for (const auto& sym : s.symbols)
            if (!nearest || std::hypot(sym.x - l.x, sym.y - l.y) < std::hypot(nearest->x - l.x, nearest->y - l.y)) nearest = &sym;
          double found_at = 1e9;  // the distance to the nearest symbol reported, in its root sizes
          for (const auto& f : d.fiducials)
            if (!f.fuzzy() && f.root_size > 0) found_at = std::min(found_at, std::hypot(f.x - l.x, f.y - l.y) / f.root_size);
          std::printf("    %-10s size %3d at (%5.1f, %5.1f) print %3d %+.0f,%+.0f size %.0f found %.2f smear %.1f travel %d  %7.0f us  %s\n", l.kind,
                      l.size, l.x, l.y, nearest ? nearest->id : -1, nearest ? l.x - nearest->x : 0.0, nearest ? l.y - nearest->y : 0.0,
                      nearest ? nearest->size : 0.0, found_at, l.length, l.travel >= 0, l.us, l.outcome);
        }
    }
    if (looks)
      for (const auto& l : d.second_looks)
        if (std::string(l.kind) == "appearance")
          std::printf("frame %3d id %3d at (%.1f, %.1f) score %.3f smear %.1f%s\n", t, l.expected, l.x, l.y, l.score, l.length,
                      l.id >= 0 ? " followed" : "");
    for (const auto& sym : s.symbols) {
      if (sym.id != why) continue;
      const double smear = std::hypot(sym.smear_x, sym.smear_y);
      const double dir = std::fmod(std::atan2(sym.smear_y, sym.smear_x) * 180 / std::numbers::pi + 360, 180.0);
      std::printf("frame %3d print %d: smear %.1f px at %.1f deg\n", t, why, smear, dir);
      for (const auto& l : d.second_looks)
        if (std::hypot(l.x - sym.x, l.y - sym.y) < sym.size / 2)
          std::printf("  %-10s size %3d at (%.1f, %.1f) est %.1f px at %.1f deg (aniso %.2f) id %d: %s\n", l.kind, l.size, l.x - sym.x,
                      l.y - sym.y, l.length, l.angle * 180 / std::numbers::pi, l.anisotropy, l.id, l.outcome);
    }
    if (std::getenv("PROBE_FIDUCIALS"))  // every symbol the detector reported: ID, centre, root size, how
      for (const auto& g : d.fiducials)
        if (!g.fuzzy())
          std::printf("frame %3d symbol %3d at (%.1f, %.1f) root %d%s\n", t, g.id, g.x, g.y, g.root_size, g.followed ? " followed" : "");
    const auto& f = tracker.update(d, static_cast<double>(t) / 60);
    // Objects updated over a print of another ID (bench_detect's wrong IDs), and how.
    for (const auto& o : f.objects)
      for (const auto& sym : s.symbols)
        if (o.updated && sym.id != o.symbol_id && std::hypot(double{o.m.x} * q.width - sym.x, double{o.m.y} * q.height - sym.y) < sym.size / 3)
          std::printf("frame %3d: object of ID %d (%c) over print %d\n", t, o.symbol_id, state_of(o), sym.id);
    for (const auto& sym : s.symbols) {
      std::string& l = line[sym.id];
      l.resize(static_cast<std::size_t>(t), ' ');
      size[sym.id] = sym.size;
      if (looks)
        std::printf("frame %3d print %3d at (%.1f, %.1f) smear %.1f px at %.1f deg\n", t, sym.id, sym.x, sym.y, std::hypot(sym.smear_x, sym.smear_y),
                    std::fmod(std::atan2(sym.smear_y, sym.smear_x) * 180 / std::numbers::pi + 360, 180.0));
      char c = '.';
      for (const auto& o : f.objects) {
        const double e = std::hypot(double{o.m.x} * q.width - sym.x, double{o.m.y} * q.height - sym.y);
        if (o.symbol_id != sym.id || e >= sym.size / 3) continue;
        c = o.updated ? state_of(o) : 'p';
        if (std::getenv("PROBE_ERRORS") && e > 1)
          std::printf("frame %3d print %3d reported %.2f px off (%c)\n", t, sym.id, e, c);
        first_seen[sym.id].emplace(o.session_id, t);
        break;
      }
      l.push_back(c);
      if (misses && c == '.') {
        const decode::SecondLook* nearest = nullptr;
        for (const auto& look : d.second_looks)
          if (!nearest || std::hypot(look.x - sym.x, look.y - sym.y) < std::hypot(nearest->x - sym.x, nearest->y - sym.y)) nearest = &look;
        const double off = nearest ? std::hypot(nearest->x - sym.x, nearest->y - sym.y) / sym.size : 99;
        const char* band = off < 0.15 ? "off <0.15" : off < 0.3 ? "off <0.3" : off < 0.5 ? "off <0.5" : "no look within 0.5";
        std::string what = band;
        if (off < 0.5) {
          const double err = std::fabs(std::remainder(nearest->angle - std::atan2(sym.smear_y, sym.smear_x), std::numbers::pi)) * 180 / std::numbers::pi;
          what += std::string(" | ") + nearest->kind + " size " + (nearest->size > 1.3 * sym.size ? "> 1.3x" : "<= 1.3x") + " | direction off " +
                  (err < 3 ? "<3" : err < 6 ? "3-6" : err < 10 ? "6-10" : ">10") + " deg | ";
          if (nearest->travel < 0) {
            what += "no travel | ";
          } else {
            const double terr = std::fabs(std::remainder(nearest->travel - std::atan2(sym.smear_y, sym.smear_x), std::numbers::pi)) * 180 / std::numbers::pi;
            what += std::string("travel off ") + (terr < 3 ? "<3" : terr < 6 ? "3-6" : terr < 10 ? "6-10" : ">10") + " deg | ";
          }
          what += nearest->outcome;
          std::fprintf(stderr, "miss frame %3d print %3d size %2.0f: %s look size %3d off %.2f dir err %.1f travel %s length %.1f\n", t, sym.id,
                       sym.size, nearest->kind, nearest->size, off, err,
                       nearest->travel < 0 ? "none" : std::to_string(std::fabs(std::remainder(nearest->travel - std::atan2(sym.smear_y, sym.smear_x), std::numbers::pi)) * 180 / std::numbers::pi).c_str(),
                       nearest->length);
        }
        miss_kinds[what]++;
      }
    }
  }
  for (const auto& [id, l] : line) {
    std::printf("id %3d size %2.0f |%s|", id, size[id], l.c_str());
    for (const auto& [session, t] : first_seen[id]) std::printf(" s%d@%d", session, t);
    std::printf("\n");
  }
  for (const auto& [kind, n] : miss_kinds) std::printf("missed %3d: %s\n", n, kind.c_str());
  return 0;
}

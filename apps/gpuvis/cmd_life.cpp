// gpuvis life: Conway's Game of Life and other B/S rules on the CPU or the GPU, with an animated
// GIF, the final board as RLE and PNG, and the population of every generation.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "cli_common.hpp"
#include "gpuvis/core/parallel.hpp"
#include "gpuvis/io/gif.hpp"
#include "gpuvis/io/image_file.hpp"
#include "gpuvis/life/life.hpp"
#include "gpuvis/life/pattern.hpp"

namespace gpuvis::cli {
namespace {

struct Rect {
  int x = 0, y = 0, w = 0, h = 0;
};

std::pair<int, int> parse_size(const std::string& text) {
  int w = 0, h = 0;
  char x = 0, extra = 0;
  std::istringstream ss(text);
  if (!(ss >> w >> x >> h) || (x != 'x' && x != 'X') || (ss >> extra))
    fail(ErrorCode::invalid_argument, "--size '" + text + "' is not WIDTHxHEIGHT (e.g. 4096x4096)");
  if (w < 1 || h < 1 || w > life::max_side || h > life::max_side)
    fail(ErrorCode::invalid_argument, "--size " + text + ": each side must lie in 1.." + std::to_string(life::max_side));
  return {w, h};
}

Rect parse_crop(const std::string& text, int board_w, int board_h) {
  Rect r;
  char c1 = 0, c2 = 0, c3 = 0, extra = 0;
  std::istringstream ss(text);
  if (!(ss >> r.x >> c1 >> r.y >> c2 >> r.w >> c3 >> r.h) || c1 != ',' || c2 != ',' || c3 != ',' || (ss >> extra))
    fail(ErrorCode::invalid_argument, "--crop '" + text + "' is not X,Y,WIDTH,HEIGHT");
  if (r.x < 0 || r.y < 0 || r.w < 1 || r.h < 1 || r.x + static_cast<long long>(r.w) > board_w ||
      r.y + static_cast<long long>(r.h) > board_h)
    fail(ErrorCode::invalid_argument, "--crop " + text + " does not lie inside the " + std::to_string(board_w) + "x" +
                                          std::to_string(board_h) + " board");
  return r;
}

// The cells of `r` as an image, each cell `scale` x `scale` pixels of the value `pixel` gives its
// state (0 dead, 1 live, 2..C-1 dying under a Generations rule).
template <class StateAt>
Image<std::uint8_t> render_cells(const Rect& r, int scale, StateAt state_at, const std::vector<std::uint8_t>& pixel) {
  Image<std::uint8_t> img(r.w * scale, r.h * scale);
  parallel_for(0, r.h, 16, [&](std::ptrdiff_t y0, std::ptrdiff_t y1) {
    for (std::ptrdiff_t cy = y0; cy < y1; ++cy) {
      std::uint8_t* first = img.row(static_cast<int>(cy) * scale);
      for (int cx = 0; cx < r.w; ++cx) {
        const std::uint8_t v = pixel[state_at(r.x + cx, r.y + static_cast<int>(cy))];
        std::fill(first + cx * scale, first + (cx + 1) * scale, v);
      }
      for (int k = 1; k < scale; ++k) std::copy(first, first + img.width(), img.row(static_cast<int>(cy) * scale + k));
    }
  });
  return img;
}

// What the simulation's board looks like now: its live cells, or every cell's state under a
// Generations rule (read only then: a two-state board is drawn from its bits).
struct Snapshot {
  life::Board board;
  std::vector<std::uint8_t> states;  // row by row, board_width a row (Generations rules)
  bool generations = false;
  int board_width = 0;

  void read(life::Simulation& sim) {
    if (generations) sim.read_states(states);
    else sim.read(board);
  }
  Image<std::uint8_t> render(const Rect& r, int scale, const std::vector<std::uint8_t>& pixel) const {
    if (!generations) return render_cells(r, scale, [&](int x, int y) { return board.get(x, y) ? 1 : 0; }, pixel);
    const std::size_t w = static_cast<std::size_t>(board_width);
    return render_cells(r, scale, [&](int x, int y) { return states[static_cast<std::size_t>(y) * w + static_cast<std::size_t>(x)]; }, pixel);
  }
};

// Pixel value of each state: the GIF's palette index (the state itself), or the PNG's grey: dead
// black, live white, dying cells darker with every state they pass.
const std::vector<std::uint8_t>& palette_indices() {
  static const std::vector<std::uint8_t> v = [] {
    std::vector<std::uint8_t> ids(256);
    for (int i = 0; i < 256; ++i) ids[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(i);
    return ids;
  }();
  return v;
}
std::vector<std::uint8_t> grey_levels(int states) {
  std::vector<std::uint8_t> v(256, 0);
  v[1] = 255;
  for (int k = 2; k < states; ++k) v[static_cast<std::size_t>(k)] = static_cast<std::uint8_t>(200 * (states - k) / (states - 1));
  return v;
}
// The GIF's colours: dead, live, then the dying states fading from amber towards the background.
std::vector<std::array<std::uint8_t, 3>> gif_colours(int states) {
  std::vector<std::array<std::uint8_t, 3>> c{{16, 16, 24}, {250, 250, 240}};
  for (int k = 2; k < states; ++k) {
    const double f = static_cast<double>(states - k) / (states - 1);
    c.push_back({static_cast<std::uint8_t>(16 + f * 224), static_cast<std::uint8_t>(16 + f * 120), static_cast<std::uint8_t>(24 + f * 16)});
  }
  return c;
}

// Writes through a temporary file renamed into place, so an interrupted run leaves no partial file.
template <class WriteFn>
void write_atomically(const std::string& path, WriteFn&& write) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  const std::string tmp = (p.parent_path() / ("." + p.stem().string() + ".partial" + p.extension().string())).string();
  try {
    write(tmp);
  } catch (const Error& e) {
    std::remove(tmp.c_str());
    std::string message = e.what();  // name the user's file, not the temporary one
    for (auto at = message.find(tmp); at != std::string::npos; at = message.find(tmp)) message.replace(at, tmp.size(), path);
    throw Error(e.code(), message);
  } catch (...) {
    std::remove(tmp.c_str());
    throw;
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    fail(ErrorCode::io, "cannot write '" + path + "': " + ec.message());
  }
}

struct LifeArgs {
  std::string pattern, size, rule_text, border = "torus", gif, png, rle, population, crop, backend_name = "auto";
  double density = -1;
  std::uint64_t seed = 1;
  std::int64_t generations = 100;
  int every = 1, scale = 1, delay = 5, threads = 0;
  bool overwrite = false;
};
LifeArgs a;

// Everything the user gave that can be checked before reading the pattern.
void check_inputs_and_outputs() {
  if (a.pattern.empty() == (a.density < 0))
    fail(ErrorCode::invalid_argument, a.pattern.empty() ? "give a pattern file or --random DENSITY"
                                                        : "give either a pattern file or --random, not both");
  for (const std::string* out : {&a.gif, &a.png, &a.rle, &a.population}) {
    if (out->empty()) continue;
    check_output_path(*out, a.pattern, a.overwrite);
  }
  if (!a.png.empty()) check_writable(a.png);
  if (!a.gif.empty() && !gif::available())
    fail(ErrorCode::unsupported, "this gpuvis was built without GIF support (install libgif-dev and rebuild)");
}

// The board's size: --size, else an image's own, else room around the pattern.
std::pair<int, int> board_size(const std::optional<life::Pattern>& pat) {
  int w = 0, h = 0;
  if (!a.size.empty()) std::tie(w, h) = parse_size(a.size);
  else if (!pat) fail(ErrorCode::invalid_argument, "--random needs --size WIDTHxHEIGHT");
  else if (is_image_path(a.pattern)) std::tie(w, h) = std::pair{pat->cells.width(), pat->cells.height()};
  else w = std::max(256, 3 * pat->cells.width()), h = std::max(256, 3 * pat->cells.height());
  if (pat && (pat->cells.width() > w || pat->cells.height() > h))
    fail(ErrorCode::invalid_argument, "the pattern (" + std::to_string(pat->cells.width()) + "x" + std::to_string(pat->cells.height()) +
                                          ") does not fit on a " + std::to_string(w) + "x" + std::to_string(h) +
                                          " board; give a larger --size");
  return {w, h};
}

// The part of the board drawn into the GIF and PNG, checked against what those formats hold.
Rect drawn_view(int w, int h) {
  const Rect view = a.crop.empty() ? Rect{0, 0, w, h} : parse_crop(a.crop, w, h);
  const long long frame_w = static_cast<long long>(view.w) * a.scale, frame_h = static_cast<long long>(view.h) * a.scale;
  if (!a.gif.empty() && (frame_w > gif::max_side || frame_h > gif::max_side))
    fail(ErrorCode::invalid_argument, "GIF frames would be " + std::to_string(frame_w) + "x" + std::to_string(frame_h) +
                                          " pixels, more than a GIF allows (65535 a side); pick a region with --crop");
  if (!a.png.empty() && frame_w * frame_h > (1LL << 31) - 1)
    fail(ErrorCode::invalid_argument, "the PNG would be " + std::to_string(frame_w) + "x" + std::to_string(frame_h) +
                                          " pixels (over 2^31); pick a region with --crop");
  return view;
}

// --population's CSV, written beside the target and renamed into place when complete (removed if
// the run fails).
class PopulationFile {
 public:
  PopulationFile(const std::string& path, std::uint64_t start_population) : path_(path) {
    if (path.empty()) return;
    const std::filesystem::path p(path);
    tmp_ = (p.parent_path() / ("." + p.filename().string() + ".partial")).string();
    file_.open(tmp_, std::ios::trunc);
    if (!file_) fail(ErrorCode::io, "cannot write '" + path + "'");
    file_ << "generation,population\n0," << start_population << "\n";
  }
  ~PopulationFile() {
    if (!tmp_.empty()) std::remove(tmp_.c_str());
  }
  bool open() const { return file_.is_open(); }
  void add(std::int64_t generation, std::uint64_t population) { file_ << generation << "," << population << "\n"; }
  void finish() {
    if (!file_.is_open()) return;
    file_.close();
    if (!file_) fail(ErrorCode::io, "writing '" + path_ + "' failed (disk full?)");
    std::error_code ec;
    std::filesystem::rename(tmp_, path_, ec);
    if (ec) fail(ErrorCode::io, "cannot write '" + path_ + "': " + ec.message());
    tmp_.clear();
  }

 private:
  std::string path_, tmp_;
  std::ofstream file_;
};

// Runs the simulation to --generations in chunks (up to the next GIF frame, and short enough to
// show progress). Returns the simulation's own time in seconds: frames and files are not counted.
double run_generations(life::Simulation& sim, std::optional<gif::AnimationWriter>& animation, PopulationFile& population,
                       const Rect& view, Snapshot& snapshot) {
  Progress progress("life");
  double seconds = 0;
  const std::int64_t generations = a.generations;
  const std::int64_t chunk = a.gif.empty() ? std::max<std::int64_t>(1, std::min<std::int64_t>(generations, 1000)) : a.every;
  while (sim.generation() < generations) {
    const std::int64_t n = std::min(chunk, generations - sim.generation());
    const auto t0 = std::chrono::steady_clock::now();
    if (population.open()) sim.advance_counting(n, [&](std::int64_t g, std::uint64_t p) { population.add(g, p); });
    else sim.advance(n);
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (animation && (sim.generation() % a.every == 0 || sim.generation() == generations)) {
      snapshot.read(sim);
      animation->add_frame(snapshot.render(view, a.scale, palette_indices()));
    }
    progress(static_cast<double>(sim.generation()) / static_cast<double>(std::max<std::int64_t>(1, generations)));
  }
  return seconds;
}

int run_life() {
  if (a.threads) set_num_threads(a.threads);
  check_inputs_and_outputs();  // everything the user gave is checked before any work starts
  std::optional<life::Pattern> pat;
  if (!a.pattern.empty()) pat = life::read_pattern(a.pattern);
  life::Params options;
  options.rule = !a.rule_text.empty() ? life::parse_rule(a.rule_text) : (pat && pat->rule ? *pat->rule : life::conway);
  options.topology = a.border == "dead" ? life::Topology::dead : life::Topology::torus;
  if (!a.rle.empty() && options.rule.states > 2)
    fail(ErrorCode::invalid_argument, "--rle writes two-state boards; the dying cells of " + life::to_string(options.rule) +
                                          " would be lost (use --png or --gif)");
  const auto [w, h] = board_size(pat);
  const Rect view = drawn_view(w, h);
  options.backend = choose_backend(a.backend_name);

  // Copies held at once: the initial board, the simulation's two on the CPU (and a Generations
  // rule's age planes), and the snapshot the outputs are drawn from (8 boards' worth as states).
  const bool outputs = !a.gif.empty() || !a.png.empty() || !a.rle.empty();
  const int snapshot_copies = !outputs ? 0 : options.rule.states > 2 ? 8 : 1;
  life::require_host_memory(w, h, 1 + (options.backend == Backend::cpu ? 2 + life::age_planes(options.rule) : 0) + snapshot_copies);
  life::Board board(w, h);
  if (pat) life::place(board, pat->cells, (w - pat->cells.width()) / 2, (h - pat->cells.height()) / 2, options.topology);
  else life::fill_random(board, a.density, a.seed);

  const std::uint64_t start_population = board.population();
  auto sim = life::make_simulation(board, options);
  Snapshot snapshot;
  snapshot.generations = options.rule.states > 2;
  snapshot.board_width = w;
  std::optional<gif::AnimationWriter> animation;
  if (!a.gif.empty()) {
    animation.emplace(a.gif, view.w * a.scale, view.h * a.scale, gif_colours(options.rule.states), a.delay);
    animation->add_frame(render_cells(view, a.scale, [&](int x, int y) { return board.get(x, y) ? 1 : 0; }, palette_indices()));
  }
  board = life::Board();  // the simulation holds its own copy
  PopulationFile population(a.population, start_population);
  const double seconds = run_generations(*sim, animation, population, view, snapshot);
  if (outputs) snapshot.read(*sim);
  const std::uint64_t end_population = sim->population();
  if (animation) animation->finish();
  population.finish();
  if (!a.rle.empty()) life::write_rle(a.rle, snapshot.board, options.rule, "generation " + std::to_string(a.generations) + ", gpuvis life");
  if (!a.png.empty()) {
    const Image<std::uint8_t> img = snapshot.render(view, a.scale, grey_levels(options.rule.states));
    write_atomically(a.png, [&](const std::string& tmp) { write_image(tmp, img.view()); });
  }
  const double updates = static_cast<double>(w) * h * static_cast<double>(a.generations);
  std::printf("%s %s %dx%d: %lld generations in %.3f s on %s (%.3g cell updates/s); population %llu -> %llu\n",
              life::to_string(options.rule).c_str(), a.border.c_str(), w, h, static_cast<long long>(a.generations), seconds,
              std::string(to_string(sim->backend())).c_str(), seconds > 0 ? updates / seconds : 0.0,
              static_cast<unsigned long long>(start_population), static_cast<unsigned long long>(end_population));
  return 0;
}

}  // namespace

void register_life(CLI::App& app, Command& run) {
  auto* cmd = app.add_subcommand("life", "Conway's Game of Life, other B/S rules and Generations rules, on the CPU or the GPU");
  cmd->footer(
      "Examples (from the repository's folder; data/life holds the Gosper gun, the R-pentomino and a glider):\n"
      "  gpuvis life data/life/gosper-gun.rle --size 512x256 --generations 300 --gif gun.gif --scale 2\n"
      "  gpuvis life --random 0.3 --seed 7 --size 4096x4096 --generations 1000 --png final.png --crop 0,0,1024,1024\n"
      "  gpuvis life data/life/r-pentomino.rle --size 1024x1024 --border dead --generations 1200 --population pop.csv\n"
      "  gpuvis life --random 0.2 --size 256x256 --rule B2/S/C3 --generations 200 --gif brain.gif --scale 2\n"
      "Rules: B3/S23 (Conway), B36/S23 (HighLife), B2/S (Seeds), B3678/S34678 (Day & Night), the S/B form 23/3,\n"
      "Generations rules with C states, B2/S/C3 (Brian's Brain) or S/B/C as 345/2/4 (Star Wars): a live cell that\n"
      "does not survive fades through states 2..C-1 (drawn darker each state) before it is dead; or the names\n"
      "conway, highlife, seeds, daynight, brianbrain, starwars. Patterns: .rle (LifeWiki, Golly), .cells, or an image\n"
      "(a cell is alive where the pixel is bright, grey >= 128); the pattern is placed in the board's centre.");
  cmd->add_option("pattern", a.pattern, "Pattern file: .rle, .cells or an image (omit with --random)");
  cmd->add_option("--random", a.density, "Start from a random soup with this density (0..1) instead of a pattern")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--seed", a.seed, "Seed of the random soup")->default_val(1);
  cmd->add_option("--size", a.size,
                  "Board WIDTHxHEIGHT (default: an image's own size; for .rle/.cells the larger of 256 and three times "
                  "the pattern, each side)");
  cmd->add_option("--rule", a.rule_text, "Rule, e.g. B3/S23, 23/3 or B2/S/C3 (default: the RLE header's rule, else B3/S23)");
  cmd->add_option("--border", a.border, "torus (wrap around) or dead (cells outside stay dead)")
      ->check(CLI::IsMember({"torus", "dead"}))
      ->default_val("torus");
  cmd->add_option("--generations", a.generations, "Generations to run")->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 40))->default_val(100);
  cmd->add_option("--gif", a.gif, "Write an animated GIF (looping)");
  cmd->add_option("--every", a.every, "A GIF frame every K generations (the first and last board always)")
      ->check(CLI::Range(1, 1 << 30))
      ->default_val(1);
  cmd->add_option("--delay", a.delay, "GIF frame time in hundredths of a second")->check(CLI::Range(0, 65535))->default_val(5);
  cmd->add_option("--scale", a.scale, "Pixels per cell side in the GIF and PNG")->check(CLI::Range(1, 64))->default_val(1);
  cmd->add_option("--crop", a.crop, "Only this part of the board in the GIF and PNG: X,Y,WIDTH,HEIGHT");
  cmd->add_option("--png", a.png, "Write the final board as an image (live cells white)");
  cmd->add_option("--rle", a.rle, "Write the final board as an RLE pattern");
  cmd->add_option("--population", a.population, "Write 'generation,population' lines for every generation (CSV)");
  add_backend_option(*cmd, a.backend_name);
  add_threads_option(*cmd, a.threads);
  cmd->add_flag("--overwrite", a.overwrite, "Replace existing outputs");
  cmd->callback([&run] { run = run_life; });
}

}  // namespace gpuvis::cli

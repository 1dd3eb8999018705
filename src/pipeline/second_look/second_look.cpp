#include "pipeline/second_look/second_look.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <numbers>
#include <optional>
#include <span>

#include "cuda/built.hpp"
#include "gpuvis/core/parallel.hpp"
#include "pipeline/second_look/dim_print.hpp"
#include "segment/cpu/segment.hpp"

namespace gpuvis::pipeline::second_look {

namespace {
// The most grey levels a dim print's patch spans (the paper down to the table, darker than the
// ink). The patches of the camera table's frames, around the 240 prints of each kind: dim prints
// (contrast 30-80, the table a third of the paper at 130) spanned 57-86 levels (2nd to 98th
// percentile), prints in black ink under the default light 152-207.
constexpr float kDimSpread = 120;
// The fewest grey levels a patch must span to hold a print, and the fewest as a multiple of the
// noise there. Flat table or paper spans its noise alone (about 4 sigma: 15 levels at sigma 3.5);
// deblurring such a place cost up to 5 milliseconds for nothing, so only the dim look tries it,
// where its wider patch spans what a dim print does. The dim prints' patches spanned 57 levels
// and more.
constexpr float kLeastSpread = 40;
constexpr float kLeastSpreadPerSigma = 5;
// Estimated smears shorter than this many pixels are taken for none. The shortest length the
// autocorrelation reports (2 px) is what a patch holding a straight edge gives, a print's side
// beside a piece of table, say: such a candidate looked smeared and made the detector deblur it
// and check every symbol of the frame (20 ms on a still, noisy 640x480 frame). Prints smeared
// over 3 px are all found without a second look (the camera table's 3 px row).
constexpr double kShortestSmear = 2.5;
// The most noise (sigma, grey levels, as noise_sigma measures it) the middle of a candidate may
// have to be looked at: beyond it neither deblurring nor painting restores a symbol, and a noisy
// table's regions would cost every frame the time of both. Prints smeared over 5 and 7 px (noise
// 3) lost none of their looks to it on the camera table's frames.
constexpr double kMostNoise = 16;
// The Bernsen contrast gate of the dim look: below it a window counts as flat. Dim prints of
// contrast 30-40 with the table painted out span about that many levels between paper and ink, so
// the detector's gate (32) takes their windows for flat paper; noise of sigma 3 spans about 18
// levels in a window.
constexpr int kDimGate = 20;

// The least share of a dim look's patch whose levels lie in the middle third of its span (the
// grey ink, between the dark table and the paper). A patch of table and paper alone has there only
// the blurred edge between them: 1.2 % on the noisy 640x480 frame of bench_pipeline, where such a
// patch cost a threshold, a segmentation and a decoding for nothing; every dim print the dim look
// decoded on the camera table's frames (seed bases 5000, 9000, 13000) had 4.1 % or more.
constexpr double kLeastInkShare = 0.025;

// The smoothness of the deblurring that confirms a second vote, as a share of the detector's: a
// restoration that trusts the patch more. Twice the smoothness let a false ID through at 7 px.
constexpr double kConfirmSmoothness = 0.5;

// Where a restored patch that Bernsen's threshold did not decode is split again: this share of the
// way from the print's ink to its paper (print_bounds). With the true smear (bench/probe_deblur 7),
// of the 15 prints of 240 that did not decode, 0.5 restored none, 0.52 four, 0.55-0.58 ten, 0.6
// nine, 0.65 three; 0.45 one and a wrong ID. In the detector, prints smeared over 7 px on five frame
// sets (seed bases 5000-21000): 210/215/210/204/201 found before, 220/220/220/212/209 with it
// (whole patches only, below), no false ID (0.53 let one through at 21000).
constexpr double kRestoredPaperShare = 0.57;
// Where that decodes nothing either, a level still nearer the paper. Since 2026-12-04, development
// machine: the sequences at 12 px a frame from the first frame, seeds 77-81 (`probe_sequence 12 1 0
// 120 SEED`), 730 → 761 of 780 frames (0.5: 730, 0.62: 746, 0.65: 740, 0.75: 754, 0.8: 753), one session per print, no wrong
// ID; prints smeared over 7 px on the five frame sets 236/230/234/232/233 → 237/231/233/232/231, the
// webcam mix 240/239/240/237/240 → 240/240/240/237/240, 5 px the same, no false ID (the level for
// long smears only, kWideSmearShare: 756 frames, 7 px unchanged).
constexpr double kRestoredPaperShareAfter = 0.7;
// And where the deblurring took out a smear of kLongSmear px or more, once more at
// kRestoredPaperShareLast. Since 2026-12-04, development machine: the sequences at 12 px a frame
// from the first frame, seeds 77-81, 761 → 774 of 780 frames (print 119 at seed 79, 55 px, from its
// first frame on, never before), seeds 82-86 (not used to choose any rule) 599 → 609 of 638, one
// session per print, no wrong ID; the camera table's single frames (smears up to 7 px) the same on
// the five frame sets. For every smear, it found 774 and 609 frames too, but let a false ID through
// at 7 px (seed base 21000); for smears over 0.15 of the candidate's size, 762 and 609. With the
// third vote that fresh long smears need (deblur_and_vote): seeds 77-81 753 → 754, seeds 82-86
// and 91 759 → 772 (print 196 at seed 87 from its sixth frame instead of its fourteenth).
constexpr double kRestoredPaperShareLast = 0.8;
constexpr double kLongSmear = 10;

// The smallest symbol, as a share of the candidate's size (its smallest at the place), that a
// deblurred look takes for the candidate's. A print smeared over a fifth of its size or more
// loses the thin paper around it, and its candidate is the print merged with the table it slid
// over: in bench_detect's sequences at 12 px a frame, prints of 55-62 px inside candidates of
// 97-121. At 0.6 (until 2026-12-02), prints smeared over 7 px on five frame sets (seed bases
// 5000-21000) 220/220/220/212/209 of 240, at 0.45 222/224/222/215/215, the webcam mix and 5 px
// the same or one more, no false ID; those sequences' four other seeds 469 → 480 of 616 frames.
constexpr double kLeastFit = 0.45;

// Such a merged candidate, deblurred, can show the print's own root inside it, off its centre: a
// region of kLeastFit to kInnerRootShare of the candidate's size, at least kInnerOffCentre of its
// size from its centre. Where the candidate's look decodes nothing, up to kInnerLooks of those
// roots are looked at in turn as candidates of their own (a patch around each, its own estimate of
// the smear, the same votes). In bench_detect's sequence at 12 px a frame from the first frame, on
// seeds 78-81 (`probe_sequence 12 1 0 120 SEED`), 480 → 499 of 616 frames, three prints found in
// their first or second frame instead of their fourth or never; prints smeared over 7 px on five
// frame sets 222/224/222/215/215 → 223/224/222/215/216 of 240; 5 px, the webcam mix and dim
// prints unchanged; no false ID.
// A root at the candidate's centre is looked at too when it is at most kInnerHaloShare of the
// candidate's size: the print inside the white halo the threshold leaves around a smeared dark
// print (a candidate 1.5-2 times the print), whose own patch, 1.4 times the halo, holds so much
// table that its deblurring decodes nothing. Since 2026-12-04: prints smeared over 7 px on the
// five frame sets 223/224/222/215/216 → 229/226/228/224/226 of 240, the webcam mix
// 239/238/238/237/239 → 240/239/238/237/239, no false ID; the sequences at 12 px a frame from the
// first frame, seeds 77-81, 663 → 700 of 780 frames (docs/benchmarks/detect.md).
constexpr double kInnerRootShare = 0.85, kInnerOffCentre = 0.12, kInnerHaloShare = 0.7;
constexpr std::size_t kInnerLooks = 2;
constexpr double kSmallestShare = 0.7;  // a place's smallest candidate, looked at on its own (look)

// A candidate whose estimated smear is at least kGrowSmearShare of its size may be a piece of a
// print whose outline the smear broke (its patch, 1.4 times the piece, cuts off the rest of the
// print). Where its look decodes nothing, a patch for a candidate kGrownShare times its size, about
// the same centre, is looked at too (look). Print 179 at seed 80 (64 px, smeared over 8.6-14 px)
// left pieces of 39-59 px 10-16 px off its centre for 21 frames before its halo decoded. Since
// 2026-12-04, development machine: the sequences at 12 px a frame from the first frame, seeds 77-81
// (`probe_sequence 12 1 0 120 SEED`), 701 → 722 of 780 frames (grown 1.3, 1.5 or 1.8 times: 722,
// 721, 722; a smear share of 0, 0.12 or 0.16: the same); prints smeared over 7 px on the five frame
// sets (seed bases 5000-21000) 233/228/230/229/229 → 235/230/234/232/232 of 240 (at seed base 5000:
// 236 with any smear, 234 at 0.16), the webcam mix 240/239/238/237/240 → 240/239/240/237/240, no
// false ID, every other row of the camera table as before. Its cost: bench_detect's sequence rows'
// 90th percentile of the time per frame 1-80 % more (12 px a frame from the first frame: 49 → 87
// ms, one thread).
constexpr double kGrowSmearShare = 0.12, kGrownShare = 1.3;
constexpr double kWideSmearShare = 0.15;  // where the trials fan out wider (deblur_and_vote)

// A candidate's direction of travel: the way from the one candidate of the last frame that decoded
// nothing, of about its size (within kTravelSize either way), kLeastTravel px to kTravelReach of
// its size away, and at most kTravelClosest of the way to any other such candidate (a print beside
// another is left to the tensor). Taken for the smear's direction when it lies within
// kTravelAgreement of the structure tensor's (deblur_and_vote). The way between a smeared print's
// two candidates' centroids is its motion from one frame's mid-exposure to the next: with the
// true direction of the smear and the length the autocorrelation gives along it, 208 of the 240
// prints smeared over 12 px decode in one try (212 with the true smear), against 145 with the
// tensor's estimate and 121 with it refined (refine_direction), whose errors are 3.8 and 4.2
// degrees (median), 7.9 and 12.5 (95th percentile) (bench/probe_deblur 12). The look deblurs along
// the travel first and, where that decodes nothing, along the tensor's direction refined as before
// (the travel of a piece of a print, or of a neighbour's candidate, can mislead). In bench_detect's
// sequence at 12 px a frame from the first frame, seeds 77-81 (`probe_sequence 12 1 0 120 SEED`):
// 655 → 663 of 780 frames (print 5 at seed 79 from its fourth frame instead of its twelfth); every
// other sequence row and the camera table's rows the same, no false ID.
constexpr double kTravelSize = 1.4, kLeastTravel = 3, kTravelReach = 0.6, kTravelClosest = 0.67;
constexpr double kTravelAgreement = 25 * std::numbers::pi / 180;

// A print the tracker sees turning is deblurred as slid and turned at once (RigidMotion,
// trial_blur) where its turn over the exposure moves the print's rim by kLeastTurnSmear px or more
// (half its size times the turn); below that, and where it moves less than kLeastTrackedSpeed px a
// frame (the share of the frame the shutter was open is then unknown; a print turning in place is
// smeared along its rim alone, and decodes: 100 % of frames at 6 degrees a frame), by a line.
// A print slid at 8 px a frame and turned by 6 degrees turns about a point 76 px from its centre,
// so its smear varies from 4.8 to 11.2 px across a print 60 px wide; no line restores that: with
// the true smear as a line 11 of 105 prints decoded in one try, as slid and turned 101 (bench/
// probe_deblur 8 20 with PROBE_SEQUENCE=77 PROBE_SPIN=6; at 12 px a frame 1 and 91 of 91).
constexpr double kLeastTurnSmear = 1.5, kLeastTrackedSpeed = 1;

// The angle between two directions of travel (each in [0, pi)), in [0, pi/2].
double direction_gap(double a, double b) { return std::fabs(std::remainder(a - b, std::numbers::pi)); }

// The longest smear a look estimates around a candidate of `size` pixels: a third of it, 4-24 px.
int longest_smear(int size) { return std::clamp(size / 3, 4, 24); }

// Frames after which a print's appearance is taken again whatever its smear: light and perspective
// change as it moves across the table.
constexpr long kRenewAppearance = 60;
// How often a print followed by its appearance is read again (SecondLooker::reread_followed), frames.
// 2026-12-06, development machine, the sequences spinning 6 degrees a frame at 12 px a frame from
// the first frame with the shutter open half the frame (seeds 77-79): wrong-ID frames 10 without,
// 3 every frame, 4 every other frame and 5 every third (19.8 s for the three seeds every frame,
// 15.4 every third); every other sequence measured the same either way (docs/benchmarks/detect.md).
constexpr long kRereadEvery = 2;

// The noise (sigma, grey levels) in the frame's 32 x 32 pixels around (x, y): the median of the
// absolute response to Immerkaer's mask (1 -2 1 / -2 4 -2 / 1 -2 1, which is 0 on any plane and
// small along edges), which for white noise of sigma has standard deviation 6 sigma, at every
// other pixel. About a microsecond: it runs for every candidate before anything else.
double noise_sigma(HostView<const std::uint8_t> frame, double x, double y) {
  const int x0 = std::max(1, static_cast<int>(x) - 16), x1 = std::min(frame.width - 1, static_cast<int>(x) + 16);
  const int y0 = std::max(1, static_cast<int>(y) - 16), y1 = std::min(frame.height - 1, static_cast<int>(y) + 16);
  std::array<int, 64> histogram{};  // |response| / 4, capped
  int n = 0;
  for (int r = y0; r < y1; r += 2)  // every other pixel either way: 256 responses are enough for a median
    for (int c = x0; c < x1; c += 2, ++n) {
      auto at = [&](int dx, int dy) { return static_cast<int>(frame(c + dx, r + dy)); };
      const int response = at(-1, -1) + at(1, -1) + at(-1, 1) + at(1, 1) - 2 * (at(0, -1) + at(-1, 0) + at(1, 0) + at(0, 1)) + 4 * at(0, 0);
      ++histogram[static_cast<std::size_t>(std::min(std::abs(response) / 4, 63))];
    }
  int median = 0;
  for (int seen = 0; median < 63 && (seen += histogram[static_cast<std::size_t>(median)]) * 2 < n;) ++median;
  return (4 * median + 2) / (0.6745 * 6);
}

}  // namespace

bool SecondLooker::frame_shows_jpeg(HostView<const std::uint8_t> frame) const {
  int known = jpeg_blocks_.load();
  if (known >= 0) return known == 1;
  std::lock_guard lock(jpeg_mutex_);
  known = jpeg_blocks_.load();
  if (known < 0) {
    known = block_edge_ratio(frame) > kJpegBlockRatio ? 1 : 0;
    jpeg_blocks_.store(known);
  }
  return known == 1;
}

struct SecondLooker::Candidate {
  enum class Kind { fuzzy, root, place, verify };
  double x, y;
  int size;
  Kind kind;
  int index;          // into the fiducials (fuzzy, verify) or the root candidates (root); -1 for a place
  int expected = -1;  // the ID of a tracked symbol expected here
  int claimed = -1;   // verify: the ID the first pass read here
  double noise = 0;   // sigma of the frame's noise around the place (grey levels)
  // The smallest size among the candidates looked at as this one (the print's pieces and the
  // paper around it share a place, and the look is made around the largest): a symbol down to
  // kLeastFit of it fits.
  int least_size = 0;
  // The direction (radians, [0, pi)) and distance (px) from the unresolved candidate of the last
  // frame this one is taken to have moved from (travel_of); travel < 0: none.
  double travel = -1, travel_px = 0;
  // The tracked motion of the symbol expected here: pixels per frame, and its spin, radians per
  // frame (ExpectedSymbol).
  double vx = 0, vy = 0, spin = 0;
};

namespace {
// Half the side of the patch around a candidate of `size` (Patch): 0.7 of the size and 4 px.
int patch_half(int size) { return static_cast<int>(std::lround(0.7 * size)) + 4; }
}  // namespace

PatchRegion patch_region(HostView<const std::uint8_t> frame, double x, double y, int size) {
  const int half = patch_half(size);
  const int x0 = std::max(0, static_cast<int>(x) - half), y0 = std::max(0, static_cast<int>(y) - half);
  const int x1 = std::min(frame.width, static_cast<int>(x) + half + 1), y1 = std::min(frame.height, static_cast<int>(y) + half + 1);
  if (x1 - x0 < 16 || y1 - y0 < 16) return {};
  return {frame.crop(x0, y0, x1 - x0, y1 - y0), x0, y0};
}

Patch patch_around(HostView<const std::uint8_t> frame, double x, double y, int size) {
  const PatchRegion region = patch_region(frame, x, y, size);
  Patch p;
  if (region.pixels.empty()) return p;
  p.grey = Image<float>(region.pixels.width, region.pixels.height);
  p.x0 = region.x0, p.y0 = region.y0;
  const int whole = 2 * patch_half(size) + 1;
  p.clipped = region.pixels.width < whole || region.pixels.height < whole;
  for (int r = 0; r < region.pixels.height; ++r)
    for (int c = 0; c < region.pixels.width; ++c) p.grey(c, r) = region.pixels(c, r);
  return p;
}

namespace {
// The sum of |a[x] - b[x]| over x in [0, n) step `stride` (1 or 2): whole rows at a time, so that
// the compiler vectorises the loop (block_edge_ratio reads a frame in about 60 microseconds
// instead of 350 with a test per pixel).
long abs_steps(const std::uint8_t* a, const std::uint8_t* b, int n, int stride) {
  int sum = 0;  // at most 255 per pixel of one row
  if (stride == 1)
    for (int x = 0; x < n; ++x) sum += std::abs(a[x] - b[x]);
  else
    for (int x = 0; x < n; x += 2) sum += std::abs(a[x] - b[x]);
  return sum;
}
}  // namespace

double block_edge_ratio(HostView<const std::uint8_t> frame) {
  // Horizontal steps on every other row (all columns; those from column 8k-1 to 8k cross a block
  // edge) and vertical steps on every other column, between rows 8k-1 and 8k at the edges and
  // between the row pairs (y, y + 1), y even, elsewhere.
  long at_edges = 0, elsewhere = 0, edges = 0, others = 0;
  const int w = frame.width;
  for (int y = 0; y + 1 < frame.height; y += 2) {
    const std::uint8_t* row = frame.row(y);
    const std::uint8_t* below = frame.row(y + 1);
    const long all = abs_steps(row + 1, row, w - 1, 1);
    long across = 0;
    for (int x = 7; x + 1 < w; x += 8) across += std::abs(row[x + 1] - row[x]);
    const long crossing = (w - 1) / 8;  // the steps x = 7, 15, ... below w - 1
    at_edges += across, edges += crossing;
    elsewhere += all - across, others += (w - 1) - crossing;
    const long columns = (w + 1) / 2;
    if ((y & 7) == 6) {  // rows y+1 = 8k-1 and y+2 = 8k straddle a block edge
      if (y + 2 >= frame.height) break;
      at_edges += abs_steps(frame.row(y + 2), below, w, 2), edges += columns;
    } else {
      elsewhere += abs_steps(below, row, w, 2), others += columns;
    }
  }
  if (edges == 0 || others == 0 || elsewhere <= 0) return 1.0;
  return (static_cast<double>(at_edges) / static_cast<double>(edges)) / (static_cast<double>(elsewhere) / static_cast<double>(others));
}

namespace {
// The share of the region's pixels whose levels lie in the middle third of `spread`.
double middle_share(HostView<const std::uint8_t> region, GreySpread spread) {
  const float third = (spread.bright - spread.dark) / 3;
  const int lo = static_cast<int>(spread.dark + third), hi = static_cast<int>(std::ceil(spread.bright - third));
  long inside = 0;
  for (int y = 0; y < region.height; ++y)
    for (const std::uint8_t v : std::span(region.row(y), static_cast<std::size_t>(region.width))) inside += (v > lo) & (v < hi);
  return static_cast<double>(inside) / (static_cast<double>(region.width) * region.height);
}

// Whether a patch spans fewer grey levels than a print in black ink does.
bool is_dim(GreySpread spread) { return spread.bright - spread.dark < kDimSpread; }

// Whether a patch spans enough grey levels, for the noise there, to hold a print.
bool spans_a_print(GreySpread spread, double noise) {
  return spread.bright - spread.dark >= std::max(kLeastSpread, kLeastSpreadPerSigma * static_cast<float>(noise));
}

}  // namespace

SecondLooker::SecondLooker(const DetectorParams& config, const decode::TreeSet& set)
    : config_(config.second_look),
      threshold_(config.threshold),
      set_(set),
      runs_(set.yamaarashi),
      cuda_(config.backend == Backend::cuda && config.second_look.on_device) {
  threshold_.backend = Backend::cpu;
  dim_threshold_ = threshold_;
  dim_threshold_.bernsen.gate = std::min(dim_threshold_.bernsen.gate, kDimGate);
}

SecondLooker::~SecondLooker() = default;

bool SecondLooker::smeared(const decode::SecondLook& look) const {
  return look.anisotropy >= config_.min_anisotropy && look.length >= kShortestSmear;
}

std::unique_ptr<SecondLooker::Scratch> SecondLooker::take_scratch() {
  {
    std::lock_guard lock(pool_mutex_);
    if (!pool_.empty()) {
      auto s = std::move(pool_.back());
      pool_.pop_back();
      return s;
    }
  }
  std::unique_ptr<Deconvolver> deconvolver;
  if constexpr (cuda::kBuilt)
    if (cuda_) deconvolver = make_cuda_deconvolver();
  if (!deconvolver) deconvolver = make_cpu_deconvolver();
  return std::make_unique<Scratch>(Scratch{std::move(deconvolver), threshold::make_thresholder(threshold_), threshold::make_thresholder(dim_threshold_),
                                           decode::Decoder(set_), {}, {}, {}, {}});
}

void SecondLooker::give_back(std::unique_ptr<Scratch> scratch) {
  std::lock_guard lock(pool_mutex_);
  pool_.push_back(std::move(scratch));
}

bool SecondLooker::look(Scratch& s, HostView<const std::uint8_t> grey, const Candidate& c, decode::SecondLook& report,
                        decode::Fiducial& found, Restoration& picture) const {
  report.x = c.x;
  report.y = c.y;
  report.size = c.size;
  static constexpr const char* kinds[] = {"fuzzy", "root", "place", "verify"};
  report.kind = kinds[static_cast<int>(c.kind)];
  report.expected = c.expected;
  report.travel = c.travel;
  const Patch patch = patch_around(grey, c.x, c.y, c.size);
  if (patch.grey.width() == 0) {
    report.outcome = "too close to the frame's edge";
    return false;
  }
  const GreySpread spread = grey_spread(patch.grey.view());
  // The dim look (not for a symbol of the first pass being checked: it decoded as it is).
  auto dim_look = [&] {
    if (c.kind == Candidate::Kind::verify || !decode_without_table(s, grey, c, found)) return false;
    report.id = found.id;
    report.outcome = "decoded with the table around the print painted out (a dim print)";
    return true;
  };
  if (!spans_a_print(spread, c.noise)) {
    // Flat, but perhaps a piece of a dim print's paper: the dim look's wider patch decides.
    if (dim_look()) return true;
    report.outcome = "flat: the patch spans too few grey levels to hold a print";
    return false;
  }
  const MotionEstimate m = estimate_motion(patch.grey.view(), longest_smear(c.size), config_.min_anisotropy);
  report.angle = m.angle;
  report.length = m.length;
  report.anisotropy = m.anisotropy;
  if (!smeared(report)) {
    // Not smeared: a dim print whose outline the table's darkness took away, perhaps, where the
    // patch spans fewer grey levels than a print in black ink does.
    if (is_dim(spread) && dim_look()) return true;
    report.outcome = m.anisotropy < config_.min_anisotropy ? "not motion-blurred (gradients even in every direction)"
                                                           : "not motion-blurred (an edge, no smear along it)";
    return false;
  }
  std::vector<Candidate> inner;  // roots the first deblurring showed inside the candidate
  // Along the candidate's travel first, where it has one; then along the tensor's direction refined.
  std::vector<Candidate>* roots_inside = c.kind == Candidate::Kind::verify ? nullptr : &inner;
  if (const auto along = travel_smear(c, patch, m); along && deblur_and_vote(s, grey, c, patch, *along, true, report, found, picture, roots_inside))
    return true;
  if (deblur_and_vote(s, grey, c, patch, m, false, report, found, picture, roots_inside)) return true;
  if (look_inside(s, grey, inner, report, found, picture,
                  "decoded after taking out the motion blur, around a root the first deblurring showed inside the candidate"))
    return true;
  // A place's candidates share a centre, and the look is made around the largest (the print with
  // its paper, or the halo the threshold leaves around a smeared dark print). Where that decodes
  // nothing, the smallest, at most kSmallestShare of it, gets a patch of its own size: less table
  // in it to deblur. 2026-12-04, development machine: prints smeared over 7 px on the five frame
  // sets (bench_detect --camera-only --filter "blur 7" --seed-base 5000-21000) 229/226/228/224/226 →
  // 233/228/230/229/229 of 240, the webcam mix 240/239/238/237/239 → 240/239/238/237/240, no false
  // ID, every other kind of frame as before; the sequences at 12 px a frame from the first frame,
  // seeds 77-81, 700 → 701 of 780 frames.
  if (c.kind != Candidate::Kind::verify && c.least_size <= kSmallestShare * c.size) {
    Candidate smallest = c;
    smallest.size = c.least_size;
    if (look_inside(s, grey, {smallest}, report, found, picture,
                    "decoded after taking out the motion blur, in a patch of the size of the place's smallest candidate"))
      return true;
  }
  // A piece of a print: a smear over an eighth of the candidate's size or more breaks a print's
  // outline, and the root candidates are its pieces, off the print's centre, whose patches cut the
  // print off. Where nothing else decoded, a patch kGrownShare times the candidate's is looked at.
  if (c.kind != Candidate::Kind::verify && m.length >= kGrowSmearShare * c.size) {
    Candidate grown = c;
    grown.size = static_cast<int>(std::lround(kGrownShare * c.size));
    if (look_inside(s, grey, {grown}, report, found, picture, "decoded after taking out the motion blur, in a patch grown around a piece"))
      return true;
  }
  // A still dim print's patch has gradients too weak for their direction to mean much: its
  // anisotropy can pass the motion test by chance.
  if (is_dim(spread) && dim_look()) return true;
  report.outcome = "did not decode after taking out the motion blur";
  return false;
}

namespace {
// The turn over the exposure (radians, RigidMotion's sign) of a print the tracker sees turning by
// `spin` radians a frame while it moves (vx, vy) px a frame, smeared over `length` px along
// `angle`: the share of the frame the shutter was open is the smear over the tracked speed (at
// most 1), and the sign is for a slide along `angle`'s way ((d, turn) and (-d, -turn) are one blur).
double turn_over_exposure(double vx, double vy, double spin, double angle, double length) {
  const double speed = std::hypot(vx, vy);
  if (speed < kLeastTrackedSpeed) return 0;
  const double way = std::cos(angle) * vx + std::sin(angle) * vy >= 0 ? 1 : -1;
  return way * spin * std::min(1.0, length / speed);
}
}  // namespace

Blur SecondLooker::trial_blur(const Candidate& c, const Patch& patch, double angle, double length) {
  const double turn = turn_over_exposure(c.vx, c.vy, c.spin, angle, length);
  if (std::fabs(turn) * 0.5 * c.size < kLeastTurnSmear) return line_kernel(angle, length);
  return Blur::rigid({length * std::cos(angle), length * std::sin(angle), turn, c.x - patch.x0, c.y - patch.y0}, patch.grey.width(),
                     patch.grey.height());
}

bool SecondLooker::deblur_and_vote(Scratch& s, HostView<const std::uint8_t> grey, const Candidate& c, const Patch& patch, MotionEstimate m,
                                   bool along_travel,
                                   decode::SecondLook& report, decode::Fiducial& found, Restoration& picture,
                                   std::vector<Candidate>* inner) const {
  // The estimate is not exact. Its direction is first made more exact by the deconvolution
  // (refine_direction: the most two-level restoration within 12 degrees either side, each
  // direction with its own length), then the patch is deblurred at that estimate, at 1.15 and 0.9
  // times its length and 3 degrees either side, and a symbol counts only when two of these decode
  // it with the same ID (one alone sometimes restores the tree of another symbol of the set). That
  // holds where the tracker expects a symbol too: a tracked ID can itself be a misread. On the
  // camera table's 240 prints smeared over 7 px, five frame sets (seed bases 5000-21000): 201-215
  // found with the refinement and these trials, 187-198 without it (the trials then at 1, 1.2 and
  // 1.45 times the tensor's estimated length and 5 degrees either side, for Richardson-Lucy's short
  // estimates); no false ID either way.
  // Votes per ID: the first to reach two wins if the deblurring that gave the second, made again
  // with half the smoothness, reads it too (confirmed); else a third vote decides. Since the
  // deconvolution restores more (2026-12-01, motion_blur.hpp), two agreeing deblurrings alone let
  // through 2 false IDs in the 240 prints smeared over 7 px (a leaf closed, or one moved into
  // another region, the same in both); with the confirmation none on five frame sets (seed bases
  // 5000-21000), where asking every symbol for three votes found 13 fewer at 7 px.
  // The first pass's read of a symbol being checked is a vote already, so one deblurred patch that
  // agrees, confirmed, keeps it, and another ID needs two and the confirmation. (Unconfirmed, a
  // first-pass misread that one deblurring repeated was kept: one false ID at 7 px, seed base 21000.)
  // In a frame with JPEG's blocks each deblurring's estimate after half its iterations votes too:
  // the blocks grow with every iteration (the camera table's webcam mix: 226/234/231 of 240 →
  // 229/234/233 on three frame sets, no false ID; frames without JPEG are looked at as before). It
  // votes only for an ID its own final estimate did not read: one deblurring read twice is no
  // second opinion (a false ID in the webcam mix came from one trial's two estimates).
  struct Vote {
    int id, count;
    decode::Fiducial first;
  };
  std::vector<Vote> votes;
  if (c.kind == Candidate::Kind::verify) votes.push_back({c.claimed, 1, {}});
  constexpr double kTurn = 3 * std::numbers::pi / 180;
  constexpr struct {
    double turn, scale;
  } kTrials[] = {{0, 1.0},          {0, 1.15},        {-kTurn, 1.0},     {kTurn, 1.0},     {0, 0.9},
                 {-2 * kTurn, 1.0}, {2 * kTurn, 1.0}, {-kTurn, 1.15},    {kTurn, 1.15},    {-3 * kTurn, 1.0},
                 {3 * kTurn, 1.0},  {-4 * kTurn, 1.0}, {4 * kTurn, 1.0}, {-5 * kTurn, 1.0}, {5 * kTurn, 1.0}};
  // Where one of those five read a symbol and none agreed, 6 degrees either side too, then 3
  // degrees either side at 1.15 times the length; a look that read nothing stops after the five.
  // (The refined direction is off by 3 degrees typically against the generator's truth,
  // bench/probe_deblur's frames, its length within 0.87-1.09.)
  // A smear over kWideSmearShare of the candidate's size or more (12 px over a print of 60-80)
  // leaves the tensor's direction further off (3.8 degrees median, 7.9 at the 95th percentile at
  // 12 px, bench/probe_deblur 12): there the trials go on past the five whatever they read, and
  // then fan out to 9, 12 and 15 degrees either side. Since 2026-12-04, development machine: the
  // sequences at 12 px a frame from the first frame, seeds 77-81, 722 → 730 of 780 frames; prints
  // smeared over 7 px on the five frame sets 235/230/234/232/232 → 236/230/234/232/233 of 240, the
  // webcam mix the same, no false ID. Its cost: the 90th percentile of the time per frame of
  // bench_detect's sequences at 12 px a frame from the first frame 86 → 152 ms, at 16 px after a
  // ramp 102 → 196 ms (one thread). Fanning out only in a place's own look, not around the roots
  // inside it or in grown patches, found 727 frames; wherever the smear is 10 px or longer, 723 (a
  // print at seed 81, decoded in a halo's patch, was followed less well after it bounced).
  constexpr std::size_t kFirstTrials = 5, kNarrowTrials = 9;
  const GreyBounds bounds = print_bounds(patch.grey.view());
  if (!along_travel) m = refine_direction(*s.deconvolver, patch.grey.view(), m, longest_smear(c.size), bounds, config_.smoothness);
  report.angle = m.angle;
  report.length = m.length;
  const bool early_votes = frame_shows_jpeg(grey);
  // Whether the trials fan out wider, by the refined length.
  const bool wide = m.length >= kWideSmearShare * c.size;
  const std::size_t trials = wide ? std::size(kTrials) : kNarrowTrials;
  const auto trial_length = [&](std::size_t t) { return std::max(2.0, m.length * kTrials[t].scale); };
  std::vector<Blur> kernels;
  for (std::size_t t = 0; t < trials; ++t) kernels.push_back(trial_blur(c, patch, m.angle + kTrials[t].turn, trial_length(t)));
  // Made in groups of five where the deconvolver batches.
  Restorations restorations(*s.deconvolver, patch.grey.view(), std::move(kernels),
                            {config_.iterations, config_.smoothness, bounds, early_votes ? config_.iterations / 2 : 0}, kFirstTrials);
  for (std::size_t t = 0; t < trials; ++t) {
    const auto& trial = kTrials[t];
    if (t == kFirstTrials && !wide && votes.size() == (c.kind == Candidate::Kind::verify ? 1u : 0u)) break;
    const double length = trial_length(t);
    const Blur& kernel = restorations.kernel(t);
    const Image<float>& restored = restorations.restored(t);
    const Image<float>& early = restorations.early(t);
    int voted_for = -1;  // the ID this trial's final estimate read: its early estimate's read of it is no second vote
    for (int pass = 0; pass < (early_votes ? 2 : 1); ++pass) {
      decode::Fiducial f;
      const bool decoded = decode_restored(s, pass == 0 ? restored : early, patch, c, bounds, length >= kLongSmear, f);
      if (t == 0 && pass == 0 && inner) inner_roots(s, patch, c, *inner);
      if (!decoded) continue;
      if (f.id == voted_for) continue;
      voted_for = f.id;
      auto v = std::find_if(votes.begin(), votes.end(), [&](const Vote& e) { return e.id == f.id; });
      if (v == votes.end()) {
        votes.push_back({f.id, 1, f});
        continue;
      }
      if (v->count++ == 1 && v->first.id < 0) v->first = f;  // the first pass's vote has no deblurred symbol
      // A print no tracker expects here, smeared long enough for the wide fan, needs a third vote
      // even when the second is confirmed: at seed 91 of the sequences at 12 px a frame, print 34
      // was read as 92 (one leaf's depth apart) by two trials and the confirmation, and the tracker
      // followed it as 92 for 22 frames. Since 2026-12-04, development machine, those sequences'
      // seeds 77-96: no wrong ID (one before), 2561 → 2527 of 2681 frames reported (77-81: 774 →
      // 754); prints smeared over 7 px on the five frame sets 237/231/233/232/231 →
      // 237/231/233/231/230, the webcam mix the same, no false ID.
      const int needed = wide && c.expected < 0 && c.kind != Candidate::Kind::verify ? 3 : 2;
      if (v->count == 2 && !confirmed(s, patch, c, kernel, bounds, length >= kLongSmear, f.id))
        continue;  // a third vote decides
      if (v->count >= needed) {
        found = v->first;
        report.id = found.id;
        report.outcome = "decoded after taking out the motion blur";
        picture = {(pass == 0 ? restored : early).clone(), patch.x0, patch.y0, m.angle + trial.turn, length};
        return true;
      }
    }
  }
  return false;
}

void SecondLooker::inner_roots(const Scratch& s, const Patch& patch, const Candidate& c, std::vector<Candidate>& out) const {
  std::vector<decode::RootCandidate> roots;
  const int least = std::max(decode::kFirstRootBandMin, static_cast<int>(kLeastFit * c.size));
  decode::find_root_candidates(s.tree, s.fiducials, least, static_cast<int>(kInnerRootShare * c.size), roots);
  for (const decode::RootCandidate& r : roots) {
    const double x = r.x + patch.x0, y = r.y + patch.y0;
    const auto near = [&](double ex, double ey, double within) { return std::hypot(ex - x, ey - y) < within; };
    if ((near(c.x, c.y, kInnerOffCentre * c.size) && r.size > kInnerHaloShare * c.size) ||
        std::any_of(out.begin(), out.end(), [&](const Candidate& e) { return near(e.x, e.y, 0.25 * r.size); }))
      continue;
    Candidate inside = c;
    inside.x = x, inside.y = y, inside.size = inside.least_size = r.size;
    out.push_back(inside);
  }
}

bool SecondLooker::look_inside(Scratch& s, HostView<const std::uint8_t> grey, const std::vector<Candidate>& inner,
                               decode::SecondLook& report, decode::Fiducial& found, Restoration& picture, const char* outcome) const {
  for (std::size_t k = 0; k < inner.size() && k < kInnerLooks; ++k) {
    const Candidate& c = inner[k];
    const Patch patch = patch_around(grey, c.x, c.y, c.size);
    if (patch.grey.width() == 0) continue;
    const MotionEstimate m = estimate_motion(patch.grey.view(), longest_smear(c.size), config_.min_anisotropy);
    decode::SecondLook look = report;
    look.angle = m.angle, look.length = m.length, look.anisotropy = m.anisotropy;
    if (!smeared(look)) continue;
    const auto along = travel_smear(c, patch, m);
    if (!(along && deblur_and_vote(s, grey, c, patch, *along, true, look, found, picture)) &&
        !deblur_and_vote(s, grey, c, patch, m, false, look, found, picture))
      continue;
    recentre(s, grey, c, found, picture);
    report = look;
    report.outcome = outcome;
    return true;
  }
  return false;
}

// A symbol decoded around a root inside a candidate came from a patch cut for that root, 1.4 times
// its size around its centroid, which may be a piece of the print or the print with its halo: in
// the sequences at 12 px a frame from the first frame, four prints decoded around a root at the
// centre of a halo were read 1.1-1.6 px off their centres, and the tracker followed each by its
// picture with that offset (24 frames over 1.5 px off in seeds 77-81, none before). Decoded again
// in the patch cut for the symbol itself, as every print the probe deblurs at its true place and
// size decodes within 1 px (bench/probe_deblur, PROBE_CENTRES), they were read within 1 px but for
// one repaired tree (1 frame at 1.51 px); the camera table's counts stayed as they were.
void SecondLooker::recentre(Scratch& s, HostView<const std::uint8_t> grey, const Candidate& c, decode::Fiducial& found,
                            Restoration& picture) const {
  if (found.root_size <= 0) return;
  const Patch patch = patch_around(grey, found.x, found.y, found.root_size);
  if (patch.grey.width() == 0) return;
  Candidate at = c;
  at.x = found.x, at.y = found.y, at.size = at.least_size = found.root_size;
  const GreyBounds bounds = print_bounds(patch.grey.view());
  const Image<float> restored = s.deconvolver->run_one(patch.grey.view(), trial_blur(at, patch, picture.smear_angle, picture.smear_length),
                                                       {config_.iterations, config_.smoothness, bounds});
  decode::Fiducial f;
  const bool long_smear = picture.smear_length >= kLongSmear;
  if (!decode_restored(s, restored, patch, at, bounds, long_smear, f) || f.id != found.id) return;
  found = f;
  picture = {restored.clone(), patch.x0, patch.y0, picture.smear_angle, picture.smear_length};
}

bool SecondLooker::confirmed(Scratch& s, const Patch& patch, const Candidate& c, const Blur& kernel, GreyBounds bounds, bool long_smear,
                             int id) const {
  const Image<float> restored = s.deconvolver->run_one(patch.grey.view(), kernel, {config_.iterations, config_.smoothness * kConfirmSmoothness, bounds});
  decode::Fiducial f;
  return decode_restored(s, restored, patch, c, bounds, long_smear, f) && f.id == id;
}

bool SecondLooker::decode_restored(Scratch& s, const Image<float>& restored, const Patch& patch, const Candidate& c, GreyBounds bounds, bool long_smear,
                                   decode::Fiducial& found) const {
  s.fit(restored.width(), restored.height());
  for (int y = 0; y < restored.height(); ++y)
    for (int x = 0; x < restored.width(); ++x) s.sharp(x, y) = static_cast<std::uint8_t>(std::clamp(std::lround(restored(x, y)), 0L, 255L));
  // A tree one leaf short of one symbol only is that symbol (Decoder::set_repair_lost_leaf): on
  // the camera table's prints smeared over 7 px, one more found on each of the five frame sets, no
  // false ID.
  s.decoder.set_repair_lost_leaf(true);
  bool decoded = decode_sharp(s, *s.thresholder, patch.x0, patch.y0, c, found, Fit::candidate_size);
  if (!decoded && !patch.clipped) {
    // Bernsen's midrange splits a restored patch half way between its levels, where the thin ink
    // between a print's regions breaks and small leaves merge with the region around them. One
    // level nearer the paper for the whole patch keeps them (kRestoredPaperShare). Not where the
    // frame's edge cut the patch: the smear brought in pixels the patch lacks, the restoration
    // is wrong along that side, and the one level read a print leaving the frame as another ID
    // (bench_detect's sequence at 8 px a frame after a ramp, print 131 read as 177, frames 59-60).
    for (const double share : {kRestoredPaperShare, kRestoredPaperShareAfter, kRestoredPaperShareLast}) {
      if (share == kRestoredPaperShareLast && !long_smear) break;
      const float level = static_cast<float>(bounds.lo + share * (bounds.hi - bounds.lo));
      for (int y = 0; y < restored.height(); ++y)
        for (int x = 0; x < restored.width(); ++x) s.binary(x, y) = restored(x, y) > level ? 255 : 0;
      if ((decoded = decode_binary(s, patch.x0, patch.y0, c, found, Fit::candidate_size))) break;
    }
  }
  s.decoder.set_repair_lost_leaf(false);
  return decoded;
}

bool SecondLooker::decode_without_table(Scratch& s, HostView<const std::uint8_t> frame, const Candidate& c,
                                        decode::Fiducial& found) const {
  // The candidate is the print's paper, or a piece of the print (its outline gone, the print's
  // regions are pieces): first a patch of the candidate's own size, then one that holds a print
  // several times its size, and the table around it. The wider patch alone lost papers whose
  // patch reached a print in black ink nearby (its span is then no dim print's).
  return decode_in_painted_patch(s, frame, c, c.size, found) || decode_in_painted_patch(s, frame, c, std::max(5 * c.size / 2, 80), found);
}

bool SecondLooker::decode_in_painted_patch(Scratch& s, HostView<const std::uint8_t> frame, const Candidate& c, int size,
                                           decode::Fiducial& found) const {
  // Only where the patch spans what a dim print and the table around it span: flat table (a
  // candidate of noise) and prints in black ink cost nothing more (the span read from the frame,
  // before any copy).
  const PatchRegion region = patch_region(frame, c.x, c.y, size);
  if (region.pixels.empty()) return false;
  const GreySpread spread = grey_spread(region.pixels);
  if (!spans_a_print(spread, c.noise) || !is_dim(spread) || middle_share(region.pixels, spread) < kLeastInkShare) return false;
  s.fit(region.pixels.width, region.pixels.height);
  copy(region.pixels, s.sharp.view());
  s.thresholder->apply(s.sharp.view(), s.binary.view());
  const int cx = static_cast<int>(std::lround(c.x)) - region.x0, cy = static_cast<int>(std::lround(c.y)) - region.y0;
  if (!paint_out_table(s.binary.view(), s.sharp.view(), cx, cy)) return false;
  // Smoothed first (smooth_binomial_3x3): the camera table's dim prints, five frame sets (seed
  // bases 5000-21000), 240 / 239 / 239 / 238 / 237 of 240 without it, 240 / 240 / 239 / 240 / 240
  // with it, no false ID in any kind of frame.
  smooth_binomial_3x3(s.sharp.view());
  return decode_sharp(s, *s.dim_thresholder, region.x0, region.y0, c, found, Fit::covers_candidate);
}

bool SecondLooker::decode_sharp(Scratch& s, threshold::Thresholder& thresholder, int x0, int y0, const Candidate& c,
                                decode::Fiducial& found, Fit fit) const {
  thresholder.apply(s.sharp.view(), s.binary.view());
  return decode_binary(s, x0, y0, c, found, fit);
}

bool SecondLooker::decode_binary(Scratch& s, int x0, int y0, const Candidate& c, decode::Fiducial& found, Fit fit) const {
  segment::segment_cpu(s.binary.view(), set_.cap(), s.tree, segment::SegmentParams{.runs = runs_});
  s.decoder.decode(s.tree, s.binary.view(), s.fiducials);
  // The symbol where the candidate is, of its size (or, for Fit::covers_candidate, the symbol whose
  // root holds the candidate).
  for (const decode::Fiducial& f : s.fiducials) {
    if (f.fuzzy()) continue;
    const double off = std::hypot(f.x + x0 - c.x, f.y + y0 - c.y);
    const bool fits = fit == Fit::candidate_size
                          ? off <= 0.35 * c.size && f.root_size >= kLeastFit * (c.least_size > 0 ? c.least_size : c.size) && f.root_size <= 1.6 * c.size
                          : off <= 0.5 * f.root_size && f.root_size >= 0.6 * c.size;
    if (!fits) continue;
    found = f;
    found.x += x0, found.y += y0, found.root_x += x0, found.root_y += y0;
    found.leaf_begin = 0;
    return true;
  }
  return false;
}

void SecondLooker::look_all(HostView<const std::uint8_t> grey, const std::vector<const Candidate*>& places,
                            std::vector<decode::SecondLook>& reports, std::vector<decode::Fiducial>& found, std::vector<std::uint8_t>& ok) {
  // The looks are independent: in parallel, each with its own scratch; their results are used in
  // the order of the candidates, so the detections do not depend on the number of threads.
  reports.assign(places.size(), {});
  found.assign(places.size(), {});
  ok.assign(places.size(), 0);
  std::vector<Restoration> pictures(places.size());
  parallel_for(0, static_cast<std::ptrdiff_t>(places.size()), 1, [&](std::ptrdiff_t begin, std::ptrdiff_t end) {
    auto scratch = take_scratch();
    for (std::ptrdiff_t k = begin; k < end; ++k) {
      const auto start = std::chrono::steady_clock::now();
      ok[k] = look(*scratch, grey, *places[k], reports[k], found[k], pictures[k]);
      reports[k].us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    }
    give_back(std::move(scratch));
  });
  for (std::size_t k = 0; k < places.size(); ++k)
    if (ok[k] && pictures[k].grey.width() > 0) restored_.emplace_back(found[k], std::move(pictures[k]));
}

void SecondLooker::look_all(HostView<const std::uint8_t> grey, const std::vector<Candidate>& candidates,
                            std::vector<decode::SecondLook>& reports, std::vector<decode::Fiducial>& found, std::vector<std::uint8_t>& ok) {
  std::vector<const Candidate*> places;
  for (const Candidate& c : candidates) places.push_back(&c);
  look_all(grey, places, reports, found, ok);
}

std::optional<MotionEstimate> SecondLooker::travel_smear(const Candidate& c, const Patch& patch, const MotionEstimate& m) const {
  if (!config_.follow_travel || c.travel < 0 || direction_gap(c.travel, m.angle) > kTravelAgreement) return std::nullopt;
  MotionEstimate along = m;
  along.angle = c.travel;
  along.length = length_along(patch.grey.view(), c.travel, longest_smear(c.size));
  if (along.length > 2 * c.travel_px) return std::nullopt;
  return along;
}

void SecondLooker::travel_of(Candidate& c) const {
  const Unresolved* nearest = nullptr;
  double closest = 0, next = 0;  // the distances to the nearest and the second nearest
  for (const Unresolved& u : unresolved_before_) {
    if (u.size > kTravelSize * c.size || c.size > kTravelSize * u.size) continue;
    const double distance = std::hypot(c.x - u.x, c.y - u.y);
    if (!nearest || distance < closest) {
      next = nearest ? closest : next;
      nearest = &u, closest = distance;
    } else if (next == 0 || distance < next) {
      next = distance;
    }
  }
  if (!nearest || closest < kLeastTravel || closest > kTravelReach * c.size || (next > 0 && closest > kTravelClosest * next)) return;
  c.travel = std::fmod(std::atan2(c.y - nearest->y, c.x - nearest->x) + 2 * std::numbers::pi, std::numbers::pi);
  c.travel_px = closest;
}

std::vector<SecondLooker::Candidate> SecondLooker::gather(const std::vector<decode::ExpectedSymbol>& expected, const Detections& d,
                                                          decode::RootSizeBand band) {
  std::vector<Candidate> candidates;
  // Root candidates inside or around a symbol already decoded are parts of it.
  auto in_symbol = [&](double x, double y, int id) {
    return std::any_of(d.fiducials.begin(), d.fiducials.end(), [&](const decode::Fiducial& f) {
      return !f.fuzzy() && (id < 0 || f.id == id) && std::hypot(f.x - x, f.y - y) < 0.5 * f.root_size;
    });
  };
  // So are fuzzy ones inside a print its appearance found (follow_appearances runs first): the
  // print is accounted for, and deblurring its smeared tree again can read another ID there, which
  // would join the frame beside it as a second symbol on one print. In the sequences sliding at
  // 12 px a frame and spinning 6 degrees a frame after a ramp of 30 frames (probe_sequence 12 1 30
  // 120 77 --spin 6), print 101 followed by its appearance was read as 85 by the look at its fuzzy
  // candidate in frame 23, and both were followed on from there for 30 frames.
  auto in_followed = [&](double x, double y) {
    return std::any_of(d.fiducials.begin(), d.fiducials.end(), [&](const decode::Fiducial& f) {
      return f.followed && std::hypot(f.x - x, f.y - y) < 0.5 * f.root_size;
    });
  };
  for (int i = 0; i < static_cast<int>(d.fiducials.size()); ++i)
    if (d.fiducials[i].fuzzy() && !in_followed(d.fiducials[i].root_x, d.fiducials[i].root_y))
      candidates.push_back({d.fiducials[i].root_x, d.fiducials[i].root_y, d.fiducials[i].root_size, Candidate::Kind::fuzzy, i});
  std::vector<Candidate> beyond_band;
  for (int j = 0; j < static_cast<int>(d.roots.size()); ++j) {
    const decode::RootCandidate& r = d.roots[j];
    if (in_symbol(r.x, r.y, -1)) continue;
    (r.size >= band.min_size && r.size <= band.max_size ? candidates : beyond_band).push_back({r.x, r.y, r.size, Candidate::Kind::root, j});
  }
  candidates.insert(candidates.end(), beyond_band.begin(), beyond_band.end());
  // Expected symbols that did not decode where they should be: the candidate nearest their place,
  // or the place itself. A candidate over 1/0.6 of the symbol's root is none of its parts: where a
  // print's paper merged with a neighbour's, the merged paper lay nearer the prediction than the
  // print's own outline (the place itself is looked at then, at the symbol's own size).
  for (const decode::ExpectedSymbol& e : expected) {
    if (e.id < 0 || e.root_size <= 0 || in_symbol(e.x, e.y, e.id) || e.x < 0 || e.y < 0 || e.x >= d.width || e.y >= d.height) continue;
    Candidate* nearest = nullptr;
    for (Candidate& c : candidates)
      if (c.expected < 0 && std::hypot(c.x - e.x, c.y - e.y) < 0.5 * e.root_size && 0.6 * c.size <= e.root_size &&
          (!nearest || std::hypot(c.x - e.x, c.y - e.y) < std::hypot(nearest->x - e.x, nearest->y - e.y)))
        nearest = &c;
    if (!nearest) {
      candidates.push_back({e.x, e.y, e.root_size, Candidate::Kind::place, -1});
      nearest = &candidates.back();
    }
    nearest->expected = e.id;
    nearest->vx = e.vx, nearest->vy = e.vy, nearest->spin = e.spin;
  }
  // Expected symbols first: they are the ones a tracker would lose.
  std::stable_partition(candidates.begin(), candidates.end(), [](const Candidate& c) { return c.expected >= 0; });
  return candidates;
}

void SecondLooker::run(const std::function<HostView<const std::uint8_t>()>& frame, const std::vector<decode::ExpectedSymbol>& expected,
                       Detections& d) {
  d.second_looks.clear();
  restored_.clear();
  unresolved_before_ = std::move(unresolved_);
  unresolved_.clear();
  jpeg_blocks_.store(-1);
  d.times.second_look_us = 0;
  const decode::RootSizeBand band = band_;
  band_ = decode::band_after(d.fiducials, band_);  // from the first pass's symbols, as the engines move theirs
  ++frame_number_;
  if (!config_.enabled) return;
  const auto t0 = std::chrono::steady_clock::now();
  // The frame is fetched once, and only when something is looked at (it may have to be equalised).
  HostView<const std::uint8_t> grey;
  const auto grey_frame = [&] {
    if (grey.empty()) grey = frame();
    return grey;
  };
  // Tracked prints that did not decode are looked for by their appearance first: where one is
  // found, no deblurring is spent on its place (it is inside a symbol now), which at smears past
  // what deblurring restores cost hundreds of milliseconds a frame for nothing.
  adopt_fresh(expected);
  bool followed_moving = false;
  bool changed = follow_appearances(grey_frame, expected, d, followed_moving);
  std::vector<int> roots_taken;
  changed |= look_at_candidates(grey_frame, expected, band, followed_moving, d, roots_taken);
  if (followed_moving && config_.verify) changed |= reread_followed(grey_frame(), expected, d);
  renew_appearances(grey_frame, expected, d);
  if (changed) reorder(roots_taken, d);
  d.times.second_look_us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
}

bool SecondLooker::look_at_candidates(const std::function<HostView<const std::uint8_t>()>& frame,
                                      const std::vector<decode::ExpectedSymbol>& expected, decode::RootSizeBand band,
                                      bool followed_moving, Detections& d, std::vector<int>& roots_taken) {
  std::vector<Candidate> candidates = gather(expected, d, band);
  if (candidates.empty()) return false;  // a frame where everything decoded: nothing allocated, nothing looked at
  const HostView<const std::uint8_t> grey = frame();
  // One look per place (a symbol's root candidates come in pairs: the root and the region around
  // or inside it, both of a symbol's size), at most max_looks, none where the frame is too noisy
  // for a look to restore anything (checked here, before any thread is woken: on a noisy table
  // every candidate is such a place).
  std::vector<Candidate*> chosen;
  for (std::size_t k = 0; k < candidates.size() && static_cast<int>(chosen.size()) < config_.max_looks; ++k) {
    Candidate& c = candidates[k];
    c.noise = noise_sigma(grey, c.x, c.y);
    if (c.noise > kMostNoise) continue;
    c.least_size = c.size;
    auto same = std::find_if(chosen.begin(), chosen.end(),
                             [&](const Candidate* e) { return std::hypot(e->x - c.x, e->y - c.y) < 0.25 * std::min(e->size, c.size); });
    if (same == chosen.end())
      chosen.push_back(&c);
    else
      (*same)->least_size = std::min((*same)->least_size, c.size);
  }
  for (Candidate* c : chosen) travel_of(*c);
  const std::vector<const Candidate*> places(chosen.begin(), chosen.end());
  std::vector<int> first_pass;  // the first pass's symbols, checked in a frame with motion
  for (int i = 0; i < static_cast<int>(d.fiducials.size()); ++i)
    if (!d.fiducials[i].fuzzy() && !d.fiducials[i].followed) first_pass.push_back(i);
  std::vector<decode::SecondLook> reports;
  std::vector<decode::Fiducial> found;
  std::vector<std::uint8_t> ok;
  look_all(grey, places, reports, found, ok);
  for (std::size_t k = 0; k < places.size(); ++k)
    if (!ok[k]) unresolved_.push_back({places[k]->x, places[k]->y, places[k]->size});
  bool changed = apply_looks(places, reports, found, ok, d, roots_taken);
  const bool motion = followed_moving || std::any_of(d.second_looks.begin(), d.second_looks.end(),
                                                     [&](const decode::SecondLook& l) { return smeared(l); });
  if (motion && config_.verify) {
    // A symbol the tracker follows, read with its ID where the tracker expects it, has its
    // history behind it: only the others are checked.
    std::erase_if(first_pass, [&](int i) {
      const decode::Fiducial& f = d.fiducials[i];
      return std::any_of(expected.begin(), expected.end(), [&](const decode::ExpectedSymbol& e) {
        return e.id == f.id && std::hypot(e.x - f.x, e.y - f.y) < 0.5 * e.root_size;
      });
    });
    changed |= check_first_pass(grey, first_pass, d);
  }
  return changed;
}

bool SecondLooker::follow_appearances(const std::function<HostView<const std::uint8_t>()>& frame,
                                      const std::vector<decode::ExpectedSymbol>& expected, Detections& d, bool& smeared) {
  smeared = false;
  if (!config_.follow_appearance) return false;
  bool changed = false;
  for (const decode::ExpectedSymbol& e : expected) {
    const auto known = appearances_.find(e.key);
    if (known == appearances_.end() || e.id < 0 || e.root_size <= 0 || decoded_at(e, d) != d.fiducials.end()) continue;
    const AppearanceMatch m = find_appearance(frame(), known->second, e, config_.least_appearance_score);
    decode::SecondLook report;
    report.x = m.x;
    report.y = m.y;
    report.size = e.root_size;
    report.kind = "appearance";
    report.expected = e.id;
    report.length = m.smear;
    report.score = m.score;
    if (m.score >= config_.least_appearance_score && !inside_frame(known->second, m, d.width, d.height)) {
      report.outcome = "found by its appearance, but at the frame's edge: let go as a sharp print would be";
    } else if (m.score >= config_.least_appearance_score) {
      decode::Fiducial f = followed_symbol(known->second, m);
      report.id = f.id;
      smeared = smeared || m.smear >= kShortestSmear;
      changed = true;
      // A symbol of another ID that the first pass read there is a misread of the smeared print
      // (as where a deblurred look finds the expected symbol, apply_looks): it gives way, or the
      // tracker would start an object with its ID.
      const auto misread = std::find_if(d.fiducials.begin(), d.fiducials.end(), [&](const decode::Fiducial& g) {
        return !g.fuzzy() && !g.followed && g.id != f.id && std::hypot(g.x - f.x, g.y - f.y) < 0.5 * e.root_size;
      });
      if (misread != d.fiducials.end()) {
        report.outcome = "the tracked print, found by its appearance where the first pass read another ID";
        f.root = misread->root;
        *misread = f;
      } else {
        report.outcome = "the tracked print, found by how it looked when it last decoded";
        d.fiducials.push_back(f);
        if (d.object_blobs) d.fiducial_blobs.push_back(followed_blob(known->second, m));
      }
    } else {
      report.outcome = "not where it was expected: its last decoded appearance matches nowhere in reach";
    }
    d.second_looks.push_back(report);
  }
  return changed;
}

void SecondLooker::renew_appearances(const std::function<HostView<const std::uint8_t>()>& frame,
                                     const std::vector<decode::ExpectedSymbol>& expected, const Detections& d) {
  // Only the prints still followed keep their appearance.
  std::erase_if(appearances_, [&](const auto& entry) {
    return std::none_of(expected.begin(), expected.end(), [&](const decode::ExpectedSymbol& e) { return e.key == entry.first; });
  });
  if (!config_.follow_appearance) return;
  for (const decode::ExpectedSymbol& e : expected) {
    if (e.key < 0 || e.id < 0 || e.root_size <= 0) continue;
    const auto decoded = decoded_at(e, d);
    if (decoded == d.fiducials.end()) continue;
    // The sharpest recent picture is kept: a print decoded while slower was smeared less, and the
    // smear of its motion now is added to it (find_appearance); a faster one's would be smeared
    // twice. It is taken again only when the print is slower by a quarter of a pixel a frame or
    // the picture is old, so that prints at rest cost nothing frame after frame. A print that
    // decoded after deblurring is pictured by its deblurred patch, as sharp as a still one's.
    // (Pictured by the smeared frame, a print smeared over 12 px from its first frame, bench_detect's
    // sequence, was followed for 15 frames, its score falling from 0.97 to 0.79 as its path bent
    // and it spun, and then lost for 8.)
    const Restoration* sharp = restoration_of(*decoded);
    const double speed = std::hypot(e.vx, e.vy), smear_speed = sharp ? 0 : speed;
    const auto kept = appearances_.find(e.key);
    if (kept != appearances_.end() && smear_speed >= kept->second.speed - 0.25 && frame_number_ - kept->second.frame <= kRenewAppearance)
      continue;
    Appearance a;
    if (!capture(frame(), *decoded, speed, frame_number_, a, sharp)) continue;
    const auto index = static_cast<std::size_t>(decoded - d.fiducials.begin());
    if (index < d.fiducial_blobs.size()) a.blob = d.fiducial_blobs[index];
    appearances_[e.key] = std::move(a);
  }
  // Symbols deblurred and decoded where no tracked print was expected: pictured for the print the
  // tracker will start of each.
  for (const auto& [symbol, picture] : restored_) {
    const auto placed = std::find_if(d.fiducials.begin(), d.fiducials.end(), [&](const decode::Fiducial& f) {
      return !f.fuzzy() && !f.followed && f.id == symbol.id && std::hypot(f.x - symbol.x, f.y - symbol.y) < 0.25 * std::max(1, f.root_size);
    });
    const bool tracked = std::any_of(expected.begin(), expected.end(), [&](const decode::ExpectedSymbol& e) {
      return e.id == symbol.id && std::hypot(e.x - symbol.x, e.y - symbol.y) < 0.5 * std::max(1, e.root_size);
    });
    Appearance a;
    if (placed == d.fiducials.end() || tracked || !capture(frame(), *placed, 0, frame_number_, a, &picture)) continue;
    const auto index = static_cast<std::size_t>(placed - d.fiducials.begin());
    if (index < d.fiducial_blobs.size()) a.blob = d.fiducial_blobs[index];
    fresh_.push_back(std::move(a));
  }
}

void SecondLooker::adopt_fresh(const std::vector<decode::ExpectedSymbol>& expected) {
  for (const decode::ExpectedSymbol& e : expected) {
    if (e.key < 0 || e.id < 0 || appearances_.contains(e.key)) continue;
    const auto fresh = std::find_if(fresh_.begin(), fresh_.end(), [&](const Appearance& a) {
      return a.symbol.id == e.id && std::hypot(a.symbol.x - e.x, a.symbol.y - e.y) < 0.5 * std::max(1, a.symbol.root_size);
    });
    if (fresh != fresh_.end()) appearances_[e.key] = std::move(*fresh), fresh_.erase(fresh);
  }
  fresh_.clear();
}

const Restoration* SecondLooker::restoration_of(const decode::Fiducial& f) const {
  for (const auto& [symbol, picture] : restored_)
    if (symbol.id == f.id && std::hypot(symbol.x - f.x, symbol.y - f.y) < 0.25 * std::max(1, f.root_size)) return &picture;
  return nullptr;
}

std::vector<decode::Fiducial>::const_iterator SecondLooker::decoded_at(const decode::ExpectedSymbol& e, const Detections& d) {
  return std::find_if(d.fiducials.begin(), d.fiducials.end(), [&](const decode::Fiducial& f) {
    return f.id == e.id && !f.followed && std::hypot(f.x - e.x, f.y - e.y) < 0.5 * e.root_size;
  });
}

bool SecondLooker::apply_looks(const std::vector<const Candidate*>& places, std::vector<decode::SecondLook>& reports,
                               std::vector<decode::Fiducial>& found, const std::vector<std::uint8_t>& ok, Detections& d,
                               std::vector<int>& roots_taken) {
  bool changed = false;
  for (std::size_t k = 0; k < places.size(); ++k) {
    const Candidate& c = *places[k];
    decode::SecondLook& report = reports[k];
    decode::Fiducial& f = found[k];
    if (ok[k]) {
      // Not a symbol already reported (a second candidate of the same print).
      for (const decode::Fiducial& g : d.fiducials)
        if (!g.fuzzy() && g.id == f.id && std::hypot(g.x - f.x, g.y - f.y) < 0.5 * c.size) {
          report.outcome = "decoded, but already found";
          report.id = -1;
        }
    }
    // The tracked symbol, deblurred where the tracker expects it, over a symbol of another ID that
    // the first pass read there: that read was of the smeared print, and the tracker would
    // otherwise start a new object with its ID.
    decode::Fiducial* misread = nullptr;
    if (report.id >= 0 && report.id == c.expected)
      for (decode::Fiducial& g : d.fiducials)
        if (!g.fuzzy() && g.id != f.id && std::hypot(g.x - f.x, g.y - f.y) < 0.5 * c.size) misread = &g;
    if (misread) report.outcome = "the expected symbol, decoded after taking out the motion blur where the first pass read another";
    d.second_looks.push_back(report);
    if (report.id < 0) continue;
    changed = true;
    if (misread) {
      f.root = misread->root;
      *misread = f;
    } else if (c.kind == Candidate::Kind::fuzzy) {
      f.root = d.fiducials[c.index].root;
      d.fiducials[c.index] = f;
    } else if (c.kind == Candidate::Kind::place) {  // no region of the frame is its root
      f.root = -1;
      d.fiducials.push_back(f);
      if (d.object_blobs) d.fiducial_blobs.push_back(decode::Blob{});
    } else {
      f.root = d.roots[c.index].region;
      d.fiducials.push_back(f);
      if (d.object_blobs) d.fiducial_blobs.push_back(d.root_blobs[c.index]);
      roots_taken.push_back(c.index);
    }
  }
  return changed;
}

// The first pass's own symbols whose patches are smeared, read again: a smeared print can decode
// as another symbol of the set. Where a deblurred patch agrees with the first pass, it stays; where
// two agree on another ID, or none decodes, the symbol becomes a fuzzy candidate. (Until 9562b4e the
// other ID replaced the first pass's: one more symbol on each of 1-4 of the camera table's 240
// prints smeared over 5-7 px, but under spin the line's deblurring misread as the first pass did,
// and the tracker followed the misread for 45 frames: docs/benchmarks/detect.md, "Spinning prints".)
bool SecondLooker::check_first_pass(HostView<const std::uint8_t> grey, const std::vector<int>& first_pass, Detections& d) {
  std::vector<Candidate> checks;
  for (int i : first_pass) {
    const decode::Fiducial& f = d.fiducials[i];
    checks.push_back({f.x, f.y, f.root_size, Candidate::Kind::verify, i, -1, f.id});
  }
  std::vector<decode::SecondLook> reports;
  std::vector<decode::Fiducial> found;
  std::vector<std::uint8_t> ok;
  look_all(grey, checks, reports, found, ok);
  bool changed = false;
  for (std::size_t k = 0; k < checks.size(); ++k) {
    if (!smeared(reports[k])) continue;  // a still symbol: nothing was looked at
    decode::Fiducial& g = d.fiducials[checks[k].index];
    reports[k].id = -1;
    if (ok[k] && found[k].id == g.id) {
      reports[k].outcome = "the first pass's ID, confirmed after taking out the motion blur";
    } else {
      // Smeared, and the deblurred patch is no symbol or another one (two readings of one print
      // that disagree): the first pass's read is not trusted. It becomes a fuzzy candidate, which
      // can keep a tracked object but never create one.
      reports[k].outcome = ok[k] ? "the first pass read another ID here; deblurred, the patch decodes as another still: made fuzzy"
                                 : "the first pass read a symbol here; deblurred, the patch does not decode: made fuzzy";
      g.id = -1;
      changed = true;
    }
    d.second_looks.push_back(reports[k]);
  }
  return changed;
}

bool SecondLooker::reread_followed(HostView<const std::uint8_t> grey, const std::vector<decode::ExpectedSymbol>& expected, Detections& d) {
  std::vector<Candidate> rereads;
  for (const decode::ExpectedSymbol& e : expected) {
    if (e.key < 0 || e.id < 0 || e.root_size <= 0 || (frame_number_ + e.key) % kRereadEvery != 0) continue;
    for (int i = 0; i < static_cast<int>(d.fiducials.size()); ++i) {
      const decode::Fiducial& f = d.fiducials[i];
      if (!f.followed || f.id != e.id || std::hypot(f.x - e.x, f.y - e.y) >= 0.5 * e.root_size) continue;
      Candidate c{f.x, f.y, f.root_size, Candidate::Kind::verify, i, e.id, f.id};
      c.vx = e.vx, c.vy = e.vy, c.spin = e.spin;
      if (const double speed = std::hypot(e.vx, e.vy); speed >= kLeastTrackedSpeed) {
        c.travel = std::fmod(std::atan2(e.vy, e.vx) + 2 * std::numbers::pi, std::numbers::pi);
        c.travel_px = speed;
      }
      rereads.push_back(c);
      break;
    }
  }
  if (rereads.empty()) return false;
  std::vector<decode::SecondLook> reports;
  std::vector<decode::Fiducial> found;
  std::vector<std::uint8_t> ok;
  look_all(grey, rereads, reports, found, ok);
  bool changed = false;
  for (std::size_t k = 0; k < rereads.size(); ++k) {
    if (!smeared(reports[k])) continue;
    decode::Fiducial& g = d.fiducials[rereads[k].index];
    if (ok[k] && found[k].id == g.id) {
      reports[k].outcome = "a print followed by its appearance, read again: decoded with its ID (still followed)";
      reports[k].id = -1;
    } else if (ok[k]) {
      reports[k].outcome = "a print followed by its appearance, read again: decoded as another ID, which replaces it";
      found[k].root = g.root;
      g = found[k];
      changed = true;
    } else {
      reports[k].outcome = "a print followed by its appearance, read again: did not decode (still followed)";
      reports[k].id = -1;
    }
    d.second_looks.push_back(reports[k]);
  }
  return changed;
}

// Root candidates that became symbols leave the list, and valid symbols come first again.
void SecondLooker::reorder(std::vector<int>& roots_taken, Detections& d) {
  // Root candidates that became symbols leave the list (and their blobs with them).
  std::sort(roots_taken.begin(), roots_taken.end(), std::greater<>());
  for (int j : roots_taken) {
    d.roots.erase(d.roots.begin() + j);
    if (d.object_blobs) d.root_blobs.erase(d.root_blobs.begin() + j);
  }
  // Valid symbols first, then fuzzy candidates, each in its order; their blobs move with them.
  std::vector<int> order(d.fiducials.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = static_cast<int>(k);
  std::stable_partition(order.begin(), order.end(), [&](int k) { return !d.fiducials[k].fuzzy(); });
  std::vector<decode::Fiducial> fiducials;
  std::vector<decode::Blob> blobs;
  for (int k : order) {
    fiducials.push_back(d.fiducials[k]);
    if (d.object_blobs) blobs.push_back(d.fiducial_blobs[k]);
  }
  d.fiducials.swap(fiducials);
  if (d.object_blobs) d.fiducial_blobs.swap(blobs);
}

}  // namespace gpuvis::pipeline::second_look

#pragma once
// The second look: after a frame's detections arrive from either backend, each candidate that did
// not decode is looked at again in the grey frame. Its patch's linear motion blur is estimated and
// deconvolved (motion_blur.hpp), and the sharpened patch goes through the CPU's threshold, segment
// and decode stages; a patch that is not smeared is thresholded again with the table around the
// print painted out (dim_print.hpp). A symbol found there, of the candidate's size and where the
// candidate is, replaces it. Runs on the host for both backends, with the deconvolutions on the
// device for CUDA (deconvolver.hpp: the CPU's bits), so both report the same symbols.
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "gpuvis/decode/fiducial.hpp"
#include "gpuvis/decode/root_candidates.hpp"
#include "gpuvis/pipeline/detector.hpp"
#include "pipeline/second_look/appearance.hpp"
#include "pipeline/second_look/deconvolver.hpp"
#include "pipeline/second_look/motion_blur.hpp"

namespace gpuvis::pipeline::second_look {

// The patch a look works on around a candidate centred at (x, y), `size` pixels wide: the symbol,
// the paper around it and the smear, 1.4 times the size and 4 px a side, clipped to the frame;
// `x0`, `y0` its corner in the frame. Empty when less than 16 px of it are in the frame either way.
// (A margin of 20 px for the threshold's window found no more symbols on generated frames, and
// cost 40 % more time.)
struct Patch {
  Image<float> grey;
  int x0 = 0, y0 = 0;
  bool clipped = false;  // the frame's edge cut it (the patch is smaller than 1.4 times the size plus 8 px)
};
// The frame's pixels a patch around a candidate of `size` at (x, y) holds (as Patch says), and
// their corner in the frame; `pixels` empty where the patch would be.
struct PatchRegion {
  HostView<const std::uint8_t> pixels;
  int x0 = 0, y0 = 0;
};
PatchRegion patch_region(HostView<const std::uint8_t> frame, double x, double y, int size);
Patch patch_around(HostView<const std::uint8_t> frame, double x, double y, int size);

// How much larger the steps between neighbouring pixels are across JPEG's 8x8 block edges than
// elsewhere (every other row and column): about 1.0 on a camera's raw frames (0.995-1.014 on
// generated frames with motion blur or noise sigma 3.5), 1.3-1.5 after JPEG at quality 50-75, the
// blocks being aligned with the frame's corner. Above kJpegBlockRatio a frame counts as JPEG (a
// webcam's MJPEG), and the second look's deblurrings vote twice (SecondLooker::look).
double block_edge_ratio(HostView<const std::uint8_t> frame);
inline constexpr double kJpegBlockRatio = 1.15;

class SecondLooker {
 public:
  SecondLooker(const DetectorParams& config, const decode::TreeSet& set);
  ~SecondLooker();
  // Looks again at d's fuzzy fiducials and root candidates in the frame d came from, and where each
  // expected symbol that d lacks should be. `frame` hands out that frame as the stages saw it; it
  // is called only when there is something to look at (it may have to equalise the frame first).
  void run(const std::function<HostView<const std::uint8_t>()>& frame, const std::vector<decode::ExpectedSymbol>& expected,
           Detections& d);

 private:
  struct Candidate;
  // What one look works in: the CPU stages and their buffers, and the deconvolver of the
  // detector's backend. Looks run in parallel, one scratch each, taken from a pool that grows to
  // the number of threads.
  struct Scratch {
    std::unique_ptr<Deconvolver> deconvolver;
    std::unique_ptr<threshold::Thresholder> thresholder;
    std::unique_ptr<threshold::Thresholder> dim_thresholder;  // the dim look's (dim_threshold)
    decode::Decoder decoder;
    segment::RegionTree tree;
    Image<std::uint8_t> sharp, binary;
    std::vector<decode::Fiducial> fiducials;
    // sharp and binary at the patch's size.
    void fit(int width, int height) {
      if (sharp.width() == width && sharp.height() == height) return;
      sharp = Image<std::uint8_t>(width, height);
      binary = Image<std::uint8_t>(width, height);
    }
  };
  std::unique_ptr<Scratch> take_scratch();
  void give_back(std::unique_ptr<Scratch> scratch);
  // Whether a look's estimate is of a smear: gradients across one direction, and a length.
  bool smeared(const decode::SecondLook& look) const;
  // The symbol in the patch around `c` after taking out the blur, if one decodes there.
  // `picture`: the deblurred patch the symbol decoded from, when it did after deblurring.
  bool look(Scratch& s, HostView<const std::uint8_t> grey, const Candidate& c, decode::SecondLook& report, decode::Fiducial& found,
            Restoration& picture) const;
  // The smeared patch's direction refined (refine_direction), then deblurred by the trials around
  // the estimate `m` until an ID has its votes: true with `found`, the report's estimate and outcome.
  // With `inner`, the roots its first deblurring shows inside the candidate (inner_roots).
  // With `along_travel`, `m` is the smear along the candidate's travel (travel_smear), taken unrefined.
  bool deblur_and_vote(Scratch& s, HostView<const std::uint8_t> grey, const Candidate& c, const Patch& patch, MotionEstimate m,
                       bool along_travel,
                       decode::SecondLook& report, decode::Fiducial& found, Restoration& picture,
                       std::vector<Candidate>* inner = nullptr) const;
  // The roots inside `c` that its patch, deblurred, showed (kInnerRootShare): candidates of their
  // own, appended to `out`.
  void inner_roots(const Scratch& s, const Patch& patch, const Candidate& c, std::vector<Candidate>& out) const;
  // The first of those (or of other candidates within a candidate), looked at as a smeared
  // candidate (deblur_and_vote), that decodes; `outcome` is what the report then says.
  bool look_inside(Scratch& s, HostView<const std::uint8_t> grey, const std::vector<Candidate>& inner, decode::SecondLook& report,
                   decode::Fiducial& found, Restoration& picture, const char* outcome) const;
  // A symbol found around a root inside a candidate, decoded again in the patch cut for the symbol
  // itself (its centre and root size) with the same smear taken out: where that reads the same ID,
  // its centre and picture replace the first's (see the definition for why).
  void recentre(Scratch& s, HostView<const std::uint8_t> grey, const Candidate& c, decode::Fiducial& found, Restoration& picture) const;
  // The blur a trial takes out of c's patch: a line of `length` px along `angle`, or, for a print
  // the tracker sees turning, that slide with the turn its spin gives (kLeastTurnSmear).
  static Blur trial_blur(const Candidate& c, const Patch& patch, double angle, double length);
  // Whether the patch deblurred by `kernel` with half the smoothness (kConfirmSmoothness) decodes
  // as `id` too: the confirmation of a second vote.
  bool confirmed(Scratch& s, const Patch& patch, const Candidate& c, const Blur& kernel, GreyBounds bounds, bool long_smear,
                 int id) const;
  // Decodes a deblurred patch (decode_sharp), its grey levels rounded into the scratch's image;
  // `long_smear`: the smear taken out is kLongSmear px or more (one more level).
  bool decode_restored(Scratch& s, const Image<float>& restored, const Patch& patch, const Candidate& c, GreyBounds bounds, bool long_smear,
                       decode::Fiducial& found) const;
  // The frame around `c` with the table around the print painted out (dim_print.hpp), decoded
  // (decode_sharp, Fit::covers_candidate).
  bool decode_without_table(Scratch& s, HostView<const std::uint8_t> frame, const Candidate& c, decode::Fiducial& found) const;
  // One such patch, `size` wide around `c`, where its grey levels are a dim print's (span and ink).
  bool decode_in_painted_patch(Scratch& s, HostView<const std::uint8_t> frame, const Candidate& c, int size, decode::Fiducial& found) const;
  // Which symbol of a restored patch is the candidate's: one where it is and of its size, or one
  // whose root holds it (a piece of a print whose outline was lost).
  enum class Fit { candidate_size, covers_candidate };
  // Thresholds (with `thresholder`), segments and decodes s.sharp (the patch whose corner is at
  // x0, y0 in the frame, restored): the valid symbol that fits `c`.
  bool decode_sharp(Scratch& s, threshold::Thresholder& thresholder, int x0, int y0, const Candidate& c, decode::Fiducial& found,
                    Fit fit) const;
  // Segments and decodes s.binary (the patch whose corner is at x0, y0 in the frame, thresholded).
  bool decode_binary(Scratch& s, int x0, int y0, const Candidate& c, decode::Fiducial& found, Fit fit) const;
  // Every place's look, in parallel: reports, symbols found and whether one was, place by place.
  // The deblurred patches symbols decoded from are kept for their appearances (restored_).
  void look_all(HostView<const std::uint8_t> grey, const std::vector<const Candidate*>& places, std::vector<decode::SecondLook>& reports,
                std::vector<decode::Fiducial>& found, std::vector<std::uint8_t>& ok);
  // The same for candidates held by value.
  void look_all(HostView<const std::uint8_t> grey, const std::vector<Candidate>& candidates, std::vector<decode::SecondLook>& reports,
                std::vector<decode::Fiducial>& found, std::vector<std::uint8_t>& ok);
  // The candidates of a frame: fuzzy fiducials, root candidates not inside a decoded symbol, and
  // the places of expected symbols that did not decode (marked on a candidate already there).
  // Root candidates outside the frame's size band (papers of dim prints, qualifies_as_root) come
  // after those in it, so that at a place with both the look is made around the one in the band.
  // The candidates' looks and the check of the first pass's symbols (in a frame with motion: a
  // smeared look, or `followed_moving`). True when d changed.
  bool look_at_candidates(const std::function<HostView<const std::uint8_t>()>& frame, const std::vector<decode::ExpectedSymbol>& expected,
                          decode::RootSizeBand band, bool followed_moving, Detections& d, std::vector<int>& roots_taken);
  // Each expected print that did not decode and has an appearance is looked for by it
  // (appearance.hpp); a close match joins d as a followed symbol. `smeared`: one of them moved
  // (its match was smeared). True when d changed.
  bool follow_appearances(const std::function<HostView<const std::uint8_t>()>& frame, const std::vector<decode::ExpectedSymbol>& expected,
                          Detections& d, bool& smeared);
  // After the looks: each expected print decoded where it was expected renews its appearance (when
  // sharper or old), and prints no longer expected lose theirs.
  void renew_appearances(const std::function<HostView<const std::uint8_t>()>& frame, const std::vector<decode::ExpectedSymbol>& expected,
                         const Detections& d);
  // The symbol d decoded (not followed) where `e` is expected, or d.fiducials.end().
  static std::vector<decode::Fiducial>::const_iterator decoded_at(const decode::ExpectedSymbol& e, const Detections& d);
  // c's direction of travel from the last frame's unresolved places (Candidate::travel), if it has one.
  void travel_of(Candidate& c) const;
  // The smear along c's travel (its direction, the length along it) where the travel is taken for
  // the smear's direction in its patch (kTravelAgreement), else none.
  std::optional<MotionEstimate> travel_smear(const Candidate& c, const Patch& patch, const MotionEstimate& m) const;
  static std::vector<Candidate> gather(const std::vector<decode::ExpectedSymbol>& expected, const Detections& d,
                                       decode::RootSizeBand band);
  // The looks' symbols into d: each replaces its fuzzy candidate, a symbol the first pass misread at
  // an expected symbol's place, or joins the list (a root candidate's, recorded in roots_taken).
  // True when d changed.
  static bool apply_looks(const std::vector<const Candidate*>& places, std::vector<decode::SecondLook>& reports,
                          std::vector<decode::Fiducial>& found, const std::vector<std::uint8_t>& ok, Detections& d,
                          std::vector<int>& roots_taken);
  // Looks at the first pass's symbols (indices into d.fiducials) and corrects them. True when d changed.
  bool check_first_pass(HostView<const std::uint8_t> grey, const std::vector<int>& first_pass, Detections& d);
  // Reads the prints its appearance followed in this frame again, deblurred as they are tracked to
  // move, every kRereadEvery frames each: a read of the followed ID makes it decoded (a fresh,
  // sharp appearance); two confirmed reads of another ID replace it (the followed ID was a misread).
  // True when d changed.
  bool reread_followed(HostView<const std::uint8_t> grey, const std::vector<decode::ExpectedSymbol>& expected, Detections& d);
  static void reorder(std::vector<int>& roots_taken, Detections& d);
  SecondLookParams config_;
  threshold::Params threshold_;
  threshold::Params dim_threshold_;  // threshold_ with a contrast gate below a dim print's contrast
  decode::TreeSet set_;
  bool runs_;
  bool cuda_;  // the looks' deconvolutions run on the CUDA device (SecondLookParams::on_device, deconvolver.hpp)
  std::mutex pool_mutex_;
  // Whether this frame shows JPEG's 8x8 blocks (block_edge_ratio), found on the first smeared
  // look of a frame: -1 not yet known, else 0 or 1.
  mutable std::atomic<int> jpeg_blocks_{-1};
  mutable std::mutex jpeg_mutex_;
  bool frame_shows_jpeg(HostView<const std::uint8_t> frame) const;
  std::vector<std::unique_ptr<Scratch>> pool_;
  // The root-candidate band of this frame, as both engines keep it (decode::band_after).
  decode::RootSizeBand band_;
  // How each followed print (ExpectedSymbol::key) looked when it last decoded, and the frame count.
  std::map<int, Appearance> appearances_;
  // This frame's symbols that decoded after deblurring, with the patch each decoded from: the
  // picture a new appearance is taken from (capture).
  std::vector<std::pair<decode::Fiducial, Restoration>> restored_;
  const Restoration* restoration_of(const decode::Fiducial& f) const;
  // The appearances of symbols that decoded after deblurring in the last frame where no tracked
  // print was expected: the print the tracker then starts of one takes it (adopt_fresh). A print
  // smeared from its first frame often decodes once only, and would have no appearance to be
  // followed by.
  std::vector<Appearance> fresh_;
  void adopt_fresh(const std::vector<decode::ExpectedSymbol>& expected);
  // The places whose looks decoded nothing in the last frame and in this one: a print smeared from
  // its first frame leaves such a candidate in each frame until it decodes, and the way from the
  // last frame's to this frame's is its direction of travel (Candidate::travel, travel_of).
  struct Unresolved {
    double x, y;
    int size;
  };
  std::vector<Unresolved> unresolved_before_, unresolved_;
  long frame_number_ = 0;
};

}  // namespace gpuvis::pipeline::second_look

#pragma once
// The second look: after a frame's detections arrive from either backend, each candidate that did
// not decode is looked at again in the grey frame. Its patch's linear motion blur is estimated and
// deconvolved (motion_blur.hpp), and the sharpened patch goes through the CPU's threshold, segment
// and decode stages. A symbol found there, of the candidate's size and where the candidate is,
// replaces it. Runs on the host for both backends, so both report the same symbols.
#include <memory>

#include "gpuvis/decode/fiducial.hpp"
#include "gpuvis/pipeline/detector.hpp"

namespace gpuvis::pipeline::second_look {

class SecondLooker {
 public:
  SecondLooker(const DetectorConfig& config, const decode::TreeSet& set);
  ~SecondLooker();
  // Looks again at d's fuzzy fiducials and root candidates in `grey`, the frame d came from, and
  // where each expected symbol that d lacks should be.
  void run(HostView<const std::uint8_t> grey, const std::vector<decode::ExpectedSymbol>& expected, Detections& d);

 private:
  struct Candidate;
  // The symbol in the patch around `c` after taking out the blur, if one decodes there.
  bool look(HostView<const std::uint8_t> grey, const Candidate& c, decode::SecondLook& report, decode::Fiducial& found);
  // Deconvolves the patch (at x0, y0 in the frame) by a line of `length` at `angle`, then
  // thresholds, segments and decodes it: the valid symbol where `c` is, of its size.
  bool decode_deblurred(HostView<const float> patch, double angle, double length, const Candidate& c, int x0, int y0,
                        decode::Fiducial& found);
  // The candidates of a frame: fuzzy fiducials, root candidates not inside a decoded symbol, and
  // the places of expected symbols that did not decode (marked on a candidate already there).
  static std::vector<Candidate> gather(const std::vector<decode::ExpectedSymbol>& expected, const Detections& d);
  static void reorder(std::vector<int>& roots_taken, Detections& d);
  SecondLookConfig config_;
  std::unique_ptr<threshold::Thresholder> thresholder_;
  decode::Decoder decoder_;
  segment::RegionTree tree_;
  Image<std::uint8_t> sharp_, binary_;
  std::vector<decode::Fiducial> fiducials_;
  bool runs_;
};

}  // namespace gpuvis::pipeline::second_look

// Yamaarashi decoding on the CPU: the root's oriented box (blob_rules.hpp through blob_geometry),
// the core's reference points and the 24 samples, with the rules of yamaarashi_rules.hpp.
#include "decode/cpu/yamaarashi.hpp"

#include "gpuvis/core/error.hpp"
#include "gpuvis/decode/blobs.hpp"
#include "decode/yamaarashi_rules.hpp"

namespace gpuvis::decode {
namespace {

// The region tree and the decoder's marks as yamaarashi::core_points reads them.
struct CoreView {
  const segment::RegionTree& t;
  const std::int32_t* visit_round;
  const std::int32_t* desc;
  int degree(int r) const { return t.degree(r); }
  int neighbour(int r, int k) const { return t.neighbours(r)[k]; }
  bool is_child(int parent, int r) const { return visit_round[r] && desc[r] < desc[parent]; }
  yamaarashi::Point centre(int r) const { return {t.centroid_x(r), t.centroid_y(r)}; }
};

}  // namespace

int decode_yamaarashi(const segment::RegionTree& t, HostView<const std::uint8_t> binary, int root,
                      const std::int32_t* visit_round, const std::int32_t* desc, bool mirror, Fiducial& f) {
  require(t.run_begin.size() == static_cast<std::size_t>(t.size()) + 1,
          "yamaarashi decoding needs the regions' runs (segment with SegmentParams::runs)");
  require(binary.width == t.width && binary.height == t.height, "yamaarashi decoding needs the frame's binary image");
  yamaarashi::Point b0{}, b1{}, w0{}, w1{};
  const BlobGeometry g = blob_geometry(t, root);
  if (!g.ok || !yamaarashi::core_points(CoreView{t, visit_round, desc}, root, b0, b1, w0, w1)) return rules::kFuzzy;
  const yamaarashi::Point c = yamaarashi::centre(f.x, f.y, t.centroid_x(root), t.centroid_y(root));
  f.angle = yamaarashi::refined_angle(b0, b1, w0, w1, f.angle);
  f.x = c.x;
  f.y = c.y;
  const yamaarashi::Box box{g.x, g.y, g.extent_long / 2, g.extent_short / 2, g.axis_x, g.axis_y};
  unsigned black = 0;
  for (int i = 0; i < 6; ++i)
    for (int q = 0; q < 4; ++q) {
      int px = 0, py = 0;
      if (!yamaarashi::sample_pixel(box, f.angle, i, q, mirror, t.width, t.height, px, py)) return rules::kFuzzy;
      if (binary(px, py) == 0) black |= 1u << yamaarashi::sample_bit(i, q);
    }
  return yamaarashi::decode_samples(black);
}

}  // namespace gpuvis::decode

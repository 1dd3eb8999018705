#pragma once
// Synthetic camera frames for tests and benchmarks: real printed amoeba symbols (data/amoeba)
// placed with random position, rotation, scale and slight perspective on a table, under uneven
// illumination, with blur, sensor noise and finger blobs, plus the ground truth.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gpuvis/core/image.hpp"
#include "gpuvis/decode/tree_set.hpp"

namespace gpuvis::synth {

// A printed symbol and its reference geometry, measured once on the clean full-resolution print:
// the leaf centroids and weights that define its centre and angle (spec §5).
struct SymbolPrint {
  std::string set;  // "default", "small" or "yamaarashi"
  int id = 0;
  Image<std::uint8_t> pixels;
  struct Leaf {
    double x, y, weight;
    bool black;
  };
  std::vector<Leaf> leaves;
  int root_size = 0;  // side of the symbol's root region in the print, pixels
  // Yamaarashi symbols: their centre and angle also use the root's centroid and the core's
  // dots (spec §6.10); the leaves are then b0, b1 (black) and w0, w1 (white).
  bool yamaarashi = false;
  double root_x = 0, root_y = 0;
};

// Loads data/amoeba/symbols/amoeba_<set>_<id>.png (or .pgm), or draws yamaarashi <id>
// (yamaarashi_print.hpp), and measures its reference leaves.
SymbolPrint load_symbol(const std::string& symbols_dir, const std::string& set, int id);

// A 3x3 homography mapping symbol-print pixel coordinates to frame coordinates.
struct Homography {
  double m[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  void apply(double x, double y, double& ox, double& oy) const;
  Homography inverse() const;
};

// Centre and angle of a print under a homography, computed from its transformed leaf centroids the
// same way the decoder does (the generator's ground truth).
void true_pose(const SymbolPrint& print, const Homography& h, double& x, double& y, double& angle);

struct SceneParams {
  int width = 640, height = 480;
  int symbols = 6;
  std::string set = "default";  // which prints: default (216), small (24) or yamaarashi (65536)
  std::vector<int> ids;         // fixed IDs to place; empty = random
  double min_size = 70, max_size = 130;  // printed square side in pixels
  double perspective = 0.03;     // relative foreshortening of the print
  double blur = 0.8;             // Gaussian sigma in pixels (0 = none)
  double noise = 3.0;            // Gaussian sensor noise sigma in grey levels
  double illumination = 0.35;    // relative brightness fall-off across the frame
  double table = 0.35;           // table reflectance (paper white is 0.9, ink 0.06)
  double ink = 0.06;             // ink reflectance: higher is greyer print (worn, glossy or backlit)
  double brightness = 220;       // grey level of white paper in the brightest spot
  int fingers = 0;
  double finger_size = 18;       // finger blob diameter in pixels
  std::uint32_t seed = 1;
  // Sequences: frame t of a scene places the same symbols (same seed), each moved by t * speed
  // pixels in its own random direction and turned by t * spin radians. Symbols that leave the
  // frame are drawn clipped and are not in the truth.
  int frame = 0;
  double speed = 0;  // pixels per frame
  double spin = 0;   // radians per frame
  // Frames over which the prints get up to speed and spin from standing still (0: moving from the
  // first frame): a hand puts a token down, then slides it.
  double ramp = 0;

  // The camera (all off by default):
  // Motion blur: the shutter is open for `motion_blur` of the frame interval (0..1), centred on
  // the frame's time, and each symbol is smeared along its own motion and spin in the sequence.
  // The truth is the sharp pose at mid-exposure.
  double motion_blur = 0;
  // Single frames: each symbol is smeared over `motion_px` pixels along its own random direction
  // (a straight slide during the exposure), centred on its true pose. Adds to motion_blur's smear.
  double motion_px = 0;
  // Vignetting: the lens darkens the frame towards the corners, by this fraction at the corners
  // (falling off with the square of the distance from the centre; 0.25-0.45 is a webcam's).
  double vignetting = 0;
  // JPEG: the frame goes through JPEG at this quality (1-100; 0 = not), as an MJPEG webcam sends
  // it. Needs the codec adapter (libjpeg).
  int jpeg = 0;
};

struct PlacedSymbol {
  std::string set;
  int id;
  double x, y, angle;  // true centre (pixels) and angle (radians, reacTIVision convention)
  double size;         // printed square side in pixels
  // The print's travel while the shutter was open (pixels, x right, y down), centred on the pose
  // above: the smear a deblurring step should find. 0 for a still print.
  double smear_x = 0, smear_y = 0;
};
struct PlacedFinger {
  double x, y, size;
};

struct Scene {
  Image<std::uint8_t> image;
  std::vector<PlacedSymbol> symbols;
  std::vector<PlacedFinger> fingers;
};

class Generator {
 public:
  explicit Generator(std::string symbols_dir) : dir_(std::move(symbols_dir)) {}
  Scene make(const SceneParams& params);
  // One print rendered alone on a plain table, centred, with the symbol (its root region) `width`
  // pixels wide and rotated by `rotation` radians clockwise on screen; no blur or noise unless asked.
  // The frame is just large enough for the rotated print.
  Scene single(const std::string& set, int id, double width, double rotation, double blur = 0, double noise = 0,
               std::uint32_t seed = 1);
  const SymbolPrint& print(const std::string& set, int id);

 private:
  // Draws the print averaged over the exposure: one homography per instant (one: a still print).
  void draw_print(Image<float>& reflect, const SymbolPrint& print, const std::vector<Homography>& exposure, double ink = 0.06);
  std::string dir_;
  std::vector<SymbolPrint> cache_;
};

// The ground truth as JSON text (written next to generated frames by `gpuvis synth`).
std::string truth_json(const Scene& scene, const std::string& file);

}  // namespace gpuvis::synth

#pragma once
// reacTIVision's calibration grid (spec §9.5): a grid of points over the camera frame, each
// displaced (in cell units) to where the table's regular grid appears in the camera image. It
// undoes the camera's distortion and its misalignment with the table: detections are moved from
// camera pixels to table ("undistorted") pixels before tracking.
//
// CalibrationGrid is the file (calibration.grid, reacTIVision's layout); CalibrationMap binds it
// to a frame size and does the maths: the grid's interpolation G(u, v), reacTIVision's integer
// distortion map, and the continuous inverse that gpuvis applies to its sub-pixel results.
#include <array>
#include <string>
#include <vector>

#include "gpuvis/decode/detections.hpp"

namespace gpuvis::calibration {

// The grid's points and cells for a frame size: gx = 7, +2 when W/H > 1.3, +2 more when
// W/H > 1.7; gy = 7; cells of floor(W/(gx-1)) x floor(H/(gy-1)) pixels.
struct GridLayout {
  int gx = 0, gy = 0;          // points per row and per column
  int cell_w = 0, cell_h = 0;  // pixels
  // Entries in the file: (gx+1)(gy+1) displacement pairs; point (c, r) is entry r*gx + c, the
  // trailing gx+gy+1 entries are padding.
  int entries() const { return (gx + 1) * (gy + 1); }
};
GridLayout grid_layout(int width, int height);

using Displacement = std::array<double, 2>;  // dx, dy in cell units

struct CalibrationGrid {
  std::vector<Displacement> points;  // as in the file; empty = no calibration ("empty grid")

  // Reads a calibration.grid: whitespace-separated "dx dy" pairs. Errors name the file and what to
  // fix; a missing file is an error (reacTIVision takes it as an empty grid: pass no grid instead).
  static CalibrationGrid read(const std::string& path);
  // The same from the file's text; `name` is used in errors. A displacement beyond
  // kMaxDisplacement cells is refused (no camera is that far off; it would be a corrupt file).
  static CalibrationGrid parse(const std::string& text, const std::string& name);
  static constexpr double kMaxDisplacement = 16;
  // Writes one pair per line, as reacTIVision does, through a temporary renamed into place.
  void write(const std::string& path) const;
  // An all-zero grid for a frame size (reacTIVision's reset).
  static CalibrationGrid zero(int width, int height);
  bool is_zero() const;
};

class CalibrationMap {
 public:
  // Errors when the grid's entry count is not the frame size's layout (a grid made for another
  // camera size).
  CalibrationMap(const CalibrationGrid& grid, int width, int height);

  const GridLayout& layout() const { return layout_; }
  int width() const { return width_; }
  int height() const { return height_; }
  // True for an all-zero grid: the identity, nothing to apply.
  bool identity() const { return identity_; }

  // G(u, v): the grid's displacement, in cell units, at (u, v) in grid units (pixels / cell size):
  // Catmull-Rom along one axis, linear along the other (spec §9.5, with reacTIVision's reading of
  // column gx as the next row's first point).
  Displacement displacement(double u, double v) const;
  // reacTIVision's distortion map: for each camera pixel (row-major), the undistorted pixel it
  // shows, or (0, 0) where no undistorted sample lands.
  std::vector<std::array<int, 2>> distortion_map() const;
  // The continuous version gpuvis applies: the undistorted point u with u + G(u / cell) * cell = p
  // for the camera point p (pixels, pixel centres at integers). Within a pixel of the
  // distortion map's entry wherever the map has one.
  std::array<double, 2> undistort(double x, double y) const;
  // The inverse: the camera point p = u + G(u / cell) * cell that shows the undistorted point u.
  std::array<double, 2> distort(double x, double y) const;
  // Moves detections from camera to undistorted pixels: fiducial centres and their angles (turned
  // by the map's local Jacobian), root centres, root candidates, fingers' and blobs' centres. Sizes
  // and blob angles stay as measured (as in reacTIVision).
  void apply(decode::Detections& d) const;

 private:
  double component(int axis, double u, double v) const;
  const Displacement& at(int index) const;

  GridLayout layout_;
  int width_ = 0, height_ = 0;
  std::vector<Displacement> points_;
  bool identity_ = true;
};

}  // namespace gpuvis::calibration

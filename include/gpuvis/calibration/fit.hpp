#pragma once
// Automatic calibration: a printed sheet with a dot at every calibration grid point, laid on the
// table, is seen by the camera; the dots are found, a camera model (homography and radial lens
// distortion) is fitted to them, and the model gives every grid point's displacement, the edge
// points the camera cannot see whole included. reacTIVision's users move each grid point by hand.
#include <array>
#include <cstdint>
#include <vector>

#include "gpuvis/core/image.hpp"
#include "gpuvis/calibration/grid.hpp"

namespace gpuvis::calibration {

// The sheet: one dot per grid point (c, r) at table pixel (c * cell_w, r * cell_h) of a
// `width` x `height` camera frame, radius dot_radius(...) table pixels. The table's pixels are
// the undistorted frame's: the sheet covers the table, the table fills the frame.
struct SheetDot {
  int c = 0, r = 0;
  double x = 0, y = 0;  // table pixels
};
std::vector<SheetDot> sheet_dots(int width, int height);
double sheet_dot_radius(int width, int height);

// Table pixels -> camera pixels: a homography, then radial distortion about the frame's centre,
// p = c + (h - c)(1 + k1 s^2 + k2 s^4) with s = |h - c| / (half the frame's diagonal).
struct CameraModel {
  double h[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  double k1 = 0, k2 = 0;
  double cx = 0, cy = 0, scale = 1;
  std::array<double, 2> project(double x, double y) const;
};

struct CalibrationFit {
  CalibrationGrid grid;          // for the frame's size, ready to write
  CameraModel model;
  int dots_expected = 0;         // the sheet's dots
  int dots_used = 0;             // found whole inside the frame and matched to a grid point
  double rms_px = 0, max_px = 0;  // model vs the dots' measured centres, camera pixels
};

// Finds the sheet's dots in a camera frame and fits the model. Errors (ErrorCode::invalid_argument)
// with what to fix when too few dots are found (fewer than 12, or a grid row or column missing).
CalibrationFit fit_calibration(HostView<const std::uint8_t> frame);

}  // namespace gpuvis::calibration

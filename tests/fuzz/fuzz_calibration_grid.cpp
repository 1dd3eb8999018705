// reacTIVision calibration.grid files, bound to a frame size and applied to detections.
#include "fuzz_support.hpp"
#include "gpuvis/calibration/grid.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  gpuvis::fuzz::expect_clean([&] {
    const auto grid = gpuvis::calibration::CalibrationGrid::parse(gpuvis::fuzz::as_text(data, size), "fuzz.grid");
    // 64x48 and 640x480 both have 80 entries; a small frame keeps the integer map cheap.
    const gpuvis::calibration::CalibrationMap map(grid, 64, 48);
    (void)map.distortion_map();
    gpuvis::decode::Detections d;
    d.width = 64;
    d.height = 48;
    d.fiducials.resize(1);
    d.fiducials[0].x = 30.5;
    d.fiducials[0].y = 20.25;
    d.fingers.resize(1);
    d.fingers[0].x = -3;
    d.fingers[0].y = 60;
    map.apply(d);
  });
  return 0;
}

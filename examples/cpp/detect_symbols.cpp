// Finds the fiducial symbols in an image file and prints one line per symbol: its ID, centre in
// pixels and angle in degrees (reacTIVision's convention: 0 upright, clockwise positive).
//
//   detect_symbols IMAGE [auto|cpu|cuda]
#include <cstdio>
#include <numbers>

#include "gpuvis/core/error.hpp"
#include "gpuvis/cuda/runtime.hpp"
#include "gpuvis/io/image_file.hpp"
#include "gpuvis/pipeline/detector.hpp"

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: detect_symbols IMAGE [auto|cpu|cuda]\n");
    return 2;
  }
  try {
    const gpuvis::Image<std::uint8_t> frame = gpuvis::read_grey8(argv[1]);
    gpuvis::pipeline::DetectorParams params;  // reacTIVision's default tree set; fingers and blobs off
    params.backend = gpuvis::resolve_backend(gpuvis::parse_backend(argc == 3 ? argv[2] : "auto"));
    gpuvis::pipeline::Detector detector(params);
    const auto& found = detector.detect(frame.view());
    int symbols = 0;
    for (const auto& f : found.fiducials) {
      if (f.fuzzy()) continue;  // a damaged or unknown symbol: reacTIVision reports these only to move objects
      std::printf("id %3d  at (%6.1f, %6.1f)  angle %5.1f deg\n", f.id, f.x, f.y, f.angle * 180 / std::numbers::pi);
      ++symbols;
    }
    std::printf("%d symbols in %s (%dx%d) on %s\n", symbols, argv[1], frame.width(), frame.height(),
                std::string(gpuvis::to_string(params.backend)).c_str());
    return 0;
  } catch (const gpuvis::Error& e) {
    std::fprintf(stderr, "detect_symbols: %s\n", e.what());
    return 1;
  }
}

// Thresholds a drawn square and decodes an empty frame through the installed headers and library:
// exit 0 when the results are what they must be.
#include <cstdio>

#include "gpuvis/core/image.hpp"
#include "gpuvis/filters/convolve.hpp"
#include "gpuvis/pipeline/detector.hpp"
#include "gpuvis/threshold/threshold.hpp"

int main() {
  using namespace gpuvis;
  Image<std::uint8_t> grey(64, 48), binary(64, 48);
  grey.fill(200);
  for (int y = 16; y < 32; ++y)
    for (int x = 20; x < 40; ++x) grey(x, y) = 30;
  threshold::Params p;
  p.backend = Backend::cpu;
  threshold::threshold(grey.view(), binary.view(), p);
  Image<std::uint8_t> blurred(64, 48);
  filters::ConvolveParams o;
  o.backend = Backend::cpu;
  filters::convolve<std::uint8_t>(grey.view(), blurred.view(), filters::parse_kernel("box:3"), o);
  pipeline::Detector detector(pipeline::DetectorParams{});
  const auto& d = detector.detect(grey.view());
  const bool ok = binary(25, 20) == 0 && binary(5, 5) == 255 && blurred(30, 24) == 30 && d.fiducials.empty();
  std::printf("consumer: threshold %d/%d, box %d, %zu fiducials: %s\n", binary(25, 20), binary(5, 5), blurred(30, 24),
              d.fiducials.size(), ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}

// OSC packets as `gpuvis tuio-dump` prints them: the first byte picks a UDP datagram (one packet:
// a message or nested bundles, TUIO 1.1 or 2.0) or a TCP stream (packets after 4-byte lengths).
#include <sstream>

#include "fuzz_support.hpp"
#include "gpuvis/output/tuio.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1 || !gpuvis::output::tuio_available()) return 0;
  std::ostringstream out;
  gpuvis::fuzz::expect_clean([&] {
    if (data[0] & 1) {
      const std::size_t used = gpuvis::output::print_osc_stream(out, data + 1, size - 1);
      if (used > size - 1 && used != size) std::abort();  // consumed more than it was given
    } else {
      gpuvis::output::print_osc_packet(out, data + 1, size - 1);
    }
  });
  return 0;
}

// TUIO target specs (udp:host:port, tcp:..., web:port) and their round trip through to_string.
#include "fuzz_support.hpp"
#include "gpuvis/output/tuio.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  gpuvis::fuzz::expect_clean([&] {
    const auto target = gpuvis::output::parse_tuio_target(gpuvis::fuzz::as_text(data, size));
    const std::string again = gpuvis::output::to_string(target);
    if (gpuvis::output::to_string(gpuvis::output::parse_tuio_target(again)) != again) {
      std::fprintf(stderr, "fuzz: '%s' does not read back as itself\n", again.c_str());
      std::abort();
    }
  });
  return 0;
}

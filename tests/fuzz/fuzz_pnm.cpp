// PNM images (PGM, PPM, 16-bit, PFM) as gpuvis reads them.
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  gpuvis::fuzz::small_image_limit();
  const std::string path = gpuvis::fuzz::as_file(data, size, ".pnm");
  gpuvis::fuzz::expect_clean([&] { gpuvis::pnm::read(path); });
  return 0;
}

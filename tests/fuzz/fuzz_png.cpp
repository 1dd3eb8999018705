// PNG images through the codec adapter (libpng).
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (!gpuvis::codec::available()) return 0;
  gpuvis::fuzz::small_image_limit();
  const std::string path = gpuvis::fuzz::as_file(data, size, ".png");
  gpuvis::fuzz::expect_clean([&] { gpuvis::codec::read_png(path); });
  return 0;
}

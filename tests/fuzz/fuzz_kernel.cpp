// Convolution kernel specs: names ("gauss:2.5"), inline matrices, and kernel files ("@file": the
// input is written to a file and read through the spec, so the file reader is fuzzed too). An input
// starting with '@' would name arbitrary files (/dev/stdin blocks): such inputs go the file way.
#include "fuzz_support.hpp"
#include "gpuvis/filters/kernel.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = gpuvis::fuzz::as_text(data, size);
  if (!text.empty() && text[0] == '@') {
    const std::string path = gpuvis::fuzz::as_file(data + 1, size - 1, ".kernel");
    gpuvis::fuzz::expect_clean([&] { gpuvis::filters::parse_kernel("@" + path); });
  } else {
    gpuvis::fuzz::expect_clean([&] { gpuvis::filters::parse_kernel(text); });
  }
  return 0;
}

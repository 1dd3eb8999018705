// Game of Life inputs: RLE patterns (with their rule line), plaintext .cells, and rule strings.
#include "fuzz_support.hpp"
#include "gpuvis/life/pattern.hpp"
#include "gpuvis/life/rule.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = gpuvis::fuzz::as_text(data, size);
  gpuvis::fuzz::expect_clean([&] { gpuvis::life::parse_rle(text, "fuzz.rle"); });
  gpuvis::fuzz::expect_clean([&] { gpuvis::life::parse_cells(text, "fuzz.cells"); });
  gpuvis::fuzz::expect_clean([&] { gpuvis::life::parse_rule(text); });
  return 0;
}

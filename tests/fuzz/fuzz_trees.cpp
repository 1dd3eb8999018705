// Amoeba tree files (.trees) and the decoder's derived parameters.
#include "fuzz_support.hpp"
#include "gpuvis/decode/tree_set.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  gpuvis::fuzz::expect_clean([&] {
    const auto set = gpuvis::decode::TreeSet::parse(gpuvis::fuzz::as_text(data, size), "fuzz.trees");
    (void)set.cap();
  });
  return 0;
}

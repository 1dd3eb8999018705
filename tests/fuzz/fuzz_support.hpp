#pragma once
// What every fuzz harness shares. A harness feeds one input to one parser; the parser may accept
// it or refuse it with gpuvis::Error (the one-line error users see). Anything else — a crash, a
// sanitizer report, another exception (std::bad_alloc, std::out_of_range, ...) or a hang — is a
// finding: the harness aborts so that libFuzzer keeps the input.
//
// Built two ways (tests/fuzz/CMakeLists.txt): with clang's libFuzzer and ASan+UBSan
// (scripts/fuzz.sh), and with any compiler as a replay program that runs the seed corpora and the
// committed regression inputs in the normal test suite.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <string>

#include "gpuvis/core/error.hpp"
#include "gpuvis/io/image_file.hpp"

namespace gpuvis::fuzz {

// Runs `parse`; a gpuvis::Error is an accepted outcome, any other exception is a finding.
template <class Parse>
void expect_clean(Parse&& parse) {
  try {
    parse();
  } catch (const Error&) {
    // refused with a clear error: fine
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz: unexpected exception: %s\n", e.what());
    std::abort();
  }
}

// The input as a file with the given extension (parsers that read paths), in memory-backed
// storage when there is some. One file per process, rewritten for each input.
inline std::string as_file(const std::uint8_t* data, std::size_t size, const std::string& extension) {
  static const std::string dir = [] {
    const char* shm = "/dev/shm";
    return access(shm, W_OK) == 0 ? std::string(shm) : std::string("/tmp");
  }();
  const std::string path = dir + "/gpuvis-fuzz-" + std::to_string(getpid()) + extension;
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path;
}

inline std::string as_text(const std::uint8_t* data, std::size_t size) { return {reinterpret_cast<const char*>(data), size}; }

// Images: a small pixel limit, so that a header claiming a legal but large size is refused instead
// of allocating gigabytes (the limit itself is what the PNM and codec harnesses check).
inline void small_image_limit() {
  static const bool once = [] {
    set_max_image_pixels(std::size_t{1} << 22);
    return true;
  }();
  (void)once;
}

}  // namespace gpuvis::fuzz

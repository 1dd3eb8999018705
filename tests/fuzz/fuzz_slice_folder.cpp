// Folders of slices (a volume as image files sorted by name): the input's first byte says how many
// slices (1-4) the rest is cut into, each written as a PGM/PPM/PFM file; the folder is then read as
// one volume, which checks that every slice has the first one's size, channels and sample type.
#include <filesystem>

#include "fuzz_support.hpp"
#include "gpuvis/io/volume_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  gpuvis::fuzz::small_image_limit();
  static const std::string dir = gpuvis::fuzz::as_file(data, 0, ".slices");  // a path of this process
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir, ec);
  const std::size_t slices = 1 + data[0] % 4, rest = size - 1, each = rest / slices;
  for (std::size_t i = 0; i < slices; ++i) {
    const std::size_t begin = 1 + i * each, n = i + 1 == slices ? size - begin : each;
    std::ofstream(dir + "/slice_" + std::to_string(i) + ".pnm", std::ios::binary)
        .write(reinterpret_cast<const char*>(data + begin), static_cast<std::streamsize>(n));
  }
  gpuvis::fuzz::expect_clean([&] { gpuvis::read_volume(dir); });
  return 0;
}

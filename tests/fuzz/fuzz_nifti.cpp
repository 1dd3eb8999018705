// NIfTI-1 and NIfTI-2 volumes (.nii, and .nii.gz: the input gzipped first when its first byte is
// odd) as `gpuvis filter|segment meanshift` read them.
#include <zlib.h>

#include "fuzz_support.hpp"
#include "gpuvis/io/volume_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1 || !gpuvis::nifti::available()) return 0;
  gpuvis::fuzz::small_image_limit();
  const bool gzipped = data[0] & 1;
  std::string path = gpuvis::fuzz::as_file(data + 1, size - 1, ".nii");
  if (gzipped) {
    const std::string gz = path + ".gz";
    gzFile f = gzopen(gz.c_str(), "wb1");
    if (!f) return 0;
    if (size > 1) gzwrite(f, data + 1, static_cast<unsigned>(size - 1));
    gzclose(f);
    path = gz;
  }
  gpuvis::fuzz::expect_clean([&] { gpuvis::read_volume(path); });
  return 0;
}

// Built instead of adapters/nifti without nifticlib (GPUVIS_NIFTI=OFF or libnifti2-dev missing).
#include "gpuvis/core/error.hpp"
#include "gpuvis/io/volume_file.hpp"

namespace gpuvis::nifti {

bool available() { return false; }
Volume read(const std::string& path) {
  fail(ErrorCode::unsupported, path + ": this gpuvis is built without NIfTI support (install libnifti2-dev and rebuild)");
}
void write(const std::string& path, const Volume&, const AnyImage&) {
  fail(ErrorCode::unsupported, path + ": this gpuvis is built without NIfTI support (install libnifti2-dev and rebuild)");
}

void write_labels(const std::string& path, const Volume&, HostView<const std::int32_t>) {
  fail(ErrorCode::unsupported, path + ": this gpuvis is built without NIfTI support (install libnifti2-dev and rebuild)");
}

}  // namespace gpuvis::nifti

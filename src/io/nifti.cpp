// NIfTI volumes through the NIfTI plugin, loaded on first use (io/nifti_plugin.hpp).
#include "gpuvis/core/error.hpp"
#include "gpuvis/io/image_file.hpp"
#include "gpuvis/io/volume_file.hpp"
#include "io/nifti_plugin.hpp"

namespace gpuvis::nifti {
namespace {
const plugin::Api& api() { return *static_cast<const plugin::Api*>(plugins::require(plugin::kPlugin)); }
}  // namespace

bool available() { return plugins::find(plugin::kPlugin) != nullptr; }
Volume read(const std::string& path) { return api().read(path, max_image_pixels()); }
void write(const std::string& path, const Volume& like, const AnyImage& data) { api().write(path, like, data); }
void write_labels(const std::string& path, const Volume& like, HostView<const std::int32_t> labels) {
  api().write_labels(path, like, labels);
}

}  // namespace gpuvis::nifti

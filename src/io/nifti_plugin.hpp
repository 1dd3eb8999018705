#pragma once
// The interface between libgpuvis and the NIfTI plugin (libgpuvis_nifti.so: nifticlib, from
// src/adapters/nifti), loaded on first use (core/plugin_loader.hpp). The plugin is not linked against
// libgpuvis: it sees standard types, gpuvis' header-only images and volumes, and gpuvis::Error,
// thrown across the boundary.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/plugin_loader.hpp"
#include "gpuvis/io/volume_file.hpp"

namespace gpuvis::nifti::plugin {

struct Api {
  int version;
  // `max_pixels`: the library's image size limit (max_image_pixels(), which the plugin cannot see).
  Volume (*read)(const std::string& path, std::size_t max_pixels);
  void (*write)(const std::string& path, const Volume& like, const AnyImage& data);
  void (*write_labels)(const std::string& path, const Volume& like, HostView<const std::int32_t> labels);
};

inline constexpr plugins::Plugin kPlugin{"libgpuvis_nifti.so", "gpuvis_nifti_plugin", 1, "NIfTI volumes", "libnifti2-dev"};

}  // namespace gpuvis::nifti::plugin

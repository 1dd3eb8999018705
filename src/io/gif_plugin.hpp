#pragma once
// The interface between libgpuvis and the GIF plugin (libgpuvis_gif.so: giflib, from
// src/adapters/gif), loaded on first use (core/plugin_loader.hpp). The plugin is not linked against
// libgpuvis: it sees standard types, gpuvis' header-only image views and gpuvis::Error, thrown
// across the boundary.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/plugin_loader.hpp"
#include "gpuvis/core/image.hpp"

namespace gpuvis::gif::plugin {

struct Writer;  // the plugin's open animation

struct Api {
  int version;
  // Starts path + ".partial" (checked as AnimationWriter documents); throws gpuvis::Error.
  Writer* (*start)(const std::string& path, int width, int height, const std::vector<std::array<std::uint8_t, 3>>& palette,
                  int delay_cs);
  void (*add_frame)(Writer* writer, HostView<const std::uint8_t> indices);
  // Closes the file and renames it into place; the writer is still freed with discard().
  void (*finish)(Writer* writer);
  // Frees the writer, removing the partial file unless finish() succeeded.
  void (*discard)(Writer* writer) noexcept;
};

inline constexpr plugins::Plugin kPlugin{"libgpuvis_gif.so", "gpuvis_gif_plugin", 1, "animated GIF output", "libgif-dev"};

}  // namespace gpuvis::gif::plugin

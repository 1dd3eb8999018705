#pragma once
// The interface between libgpuvis and the live view plugin (libgpuvis_view.so: Boost.Beast's
// HTTP/WebSocket server and the page, from src/adapters/view), loaded on first use
// (core/plugin_loader.hpp). The plugin is not linked against libgpuvis: it sees standard types,
// gpuvis' images and gpuvis::Error, thrown across the boundary; the JPEG encoder of the library's
// codec plugin is handed to it (null without one: pictures are then sent raw).
#include <cstdint>
#include <vector>

#include "core/plugin_loader.hpp"
#include "gpuvis/output/live_view.hpp"

namespace gpuvis::output::plugin {

using JpegEncoder = std::vector<std::uint8_t> (*)(HostView<const std::uint8_t> image, int quality);

struct ViewApi {
  int version;
  // As open_live_view (gpuvis/output/live_view.hpp); the view is the caller's to delete.
  LiveView* (*open_live_view)(const LiveViewParams& options, JpegEncoder encode_jpeg);
};

inline constexpr plugins::Plugin kViewPlugin{"libgpuvis_view.so", "gpuvis_view_plugin", 1, "the live view", "libboost-dev"};

}  // namespace gpuvis::output::plugin

// The live view through its plugin, loaded on first use (output/live_view_plugin.hpp).
#include "gpuvis/output/live_view.hpp"

#include "gpuvis/core/error.hpp"
#include "gpuvis/io/image_file.hpp"
#include "output/live_view_plugin.hpp"

namespace gpuvis::output {

bool live_view_available() { return plugins::find(plugin::kViewPlugin) != nullptr; }

std::unique_ptr<LiveView> open_live_view(const LiveViewParams& options) {
  const auto* api = static_cast<const plugin::ViewApi*>(plugins::require(plugin::kViewPlugin));
  const plugin::JpegEncoder jpeg = codec::available() ? &codec::encode_jpeg : nullptr;
  return std::unique_ptr<LiveView>(api->open_live_view(options, jpeg));
}

}  // namespace gpuvis::output

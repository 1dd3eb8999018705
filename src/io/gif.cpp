// Animated GIF output through the GIF plugin, loaded on first use (io/gif_plugin.hpp).
#include "gpuvis/io/gif.hpp"

#include "gpuvis/core/error.hpp"
#include "io/gif_plugin.hpp"

namespace gpuvis::gif {

struct AnimationWriter::Impl {
  const plugin::Api* api = nullptr;
  plugin::Writer* writer = nullptr;
};

bool available() { return plugins::find(plugin::kPlugin) != nullptr; }

AnimationWriter::AnimationWriter(const std::string& path, int width, int height,
                                 const std::vector<std::array<std::uint8_t, 3>>& palette, int delay_cs)
    : impl_(std::make_unique<Impl>()) {
  impl_->api = static_cast<const plugin::Api*>(plugins::require(plugin::kPlugin));  // says what to install
  impl_->writer = impl_->api->start(path, width, height, palette, delay_cs);
}

AnimationWriter::~AnimationWriter() {
  if (impl_->writer) impl_->api->discard(impl_->writer);
}

void AnimationWriter::add_frame(HostView<const std::uint8_t> indices) {
  impl_->api->add_frame(impl_->writer, indices);
  ++frames_;
}

void AnimationWriter::finish() {
  require(frames_ > 0, "a GIF needs at least one frame");
  impl_->api->finish(impl_->writer);
}

}  // namespace gpuvis::gif

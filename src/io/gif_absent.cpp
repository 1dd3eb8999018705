// Builds without giflib: animated GIF output is unavailable and says how to get it.
#include "gpuvis/core/error.hpp"
#include "gpuvis/io/gif.hpp"

namespace gpuvis::gif {

struct AnimationWriter::Impl {};

bool available() { return false; }

AnimationWriter::AnimationWriter(const std::string&, int, int, const std::vector<std::array<std::uint8_t, 3>>&, int) {
  fail(ErrorCode::unsupported, "this gpuvis was built without GIF support (install libgif-dev and rebuild)");
}
AnimationWriter::~AnimationWriter() = default;
void AnimationWriter::add_frame(HostView<const std::uint8_t>) {}
void AnimationWriter::finish() {}

}  // namespace gpuvis::gif

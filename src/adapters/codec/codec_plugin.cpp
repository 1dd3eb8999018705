// The codec plugin's entry point (libgpuvis_codec.so, io/codec_plugin.hpp).
#include "adapters/codec/codecs.hpp"
#include "io/codec_plugin.hpp"

namespace gpuvis::codec {
namespace {

void write_png8(const std::string& path, HostView<const std::uint8_t> image) { adapter::write_png(path, image); }
void write_png16(const std::string& path, HostView<const std::uint16_t> image) { adapter::write_png(path, image); }

constexpr plugin::Api kApi{plugin::kPlugin.version, adapter::read_png, adapter::read_jpeg, write_png8, write_png16,
                           adapter::write_jpeg,     adapter::encode_jpeg, adapter::decode_jpeg};

}  // namespace
}  // namespace gpuvis::codec

extern "C" __attribute__((visibility("default"))) const void* gpuvis_codec_plugin() { return &gpuvis::codec::kApi; }

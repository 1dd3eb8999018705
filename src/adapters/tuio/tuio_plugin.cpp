// The TUIO plugin's entry point (libgpuvis_tuio.so, output/tuio_plugin.hpp).
#include "adapters/tuio/tuio_adapter.hpp"
#include "output/tuio_plugin.hpp"

namespace gpuvis::output {
namespace {
constexpr plugin::Api kApi{plugin::kPlugin.version, adapter::make_tuio_sender, adapter::dump_osc, adapter::print_osc_packet,
                           adapter::print_osc_stream};
}  // namespace
}  // namespace gpuvis::output

extern "C" __attribute__((visibility("default"))) const void* gpuvis_tuio_plugin() { return &gpuvis::output::kApi; }

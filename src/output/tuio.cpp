// TUIO output and OSC input through the TUIO plugin, loaded on first use (output/tuio_plugin.hpp).
#include "gpuvis/output/tuio.hpp"

#include "gpuvis/core/error.hpp"
#include "output/tuio_plugin.hpp"

namespace gpuvis::output {
namespace {
const plugin::Api& api() { return *static_cast<const plugin::Api*>(plugins::require(plugin::kPlugin)); }
}  // namespace

bool tuio_available() { return plugins::find(plugin::kPlugin) != nullptr; }

std::unique_ptr<TuioSender> make_tuio_sender(const std::vector<TuioTarget>& targets, const TuioParams& options) {
  std::string error;
  const void* table = plugins::find(plugin::kPlugin, &error);
  if (!table) fail(ErrorCode::unsupported, error + ", or track with --no-tuio");
  return std::unique_ptr<TuioSender>(static_cast<const plugin::Api*>(table)->make_tuio_sender(targets, options));
}

void dump_osc(const std::string& address, int port, bool tcp, const std::atomic<bool>& stop, std::ostream& out,
              double max_seconds) {
  api().dump_osc(address, port, tcp, stop, out, max_seconds);
}

void print_osc_packet(std::ostream& out, const std::uint8_t* data, std::size_t size) {
  api().print_osc_packet(out, data, size);
}

std::size_t print_osc_stream(std::ostream& out, const std::uint8_t* data, std::size_t size) {
  return api().print_osc_stream(out, data, size);
}

}  // namespace gpuvis::output

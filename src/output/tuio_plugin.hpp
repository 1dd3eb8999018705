#pragma once
// The interface between libgpuvis and the TUIO plugin (libgpuvis_tuio.so: liblo and Boost.Asio/
// Beast, from src/adapters/tuio), loaded on first use (core/plugin_loader.hpp). The plugin is not
// linked against libgpuvis: it sees standard types, gpuvis' header-only frame and target types, and
// gpuvis::Error, thrown across the boundary. The sender it makes is a TuioSender whose code stays in
// the plugin, which is never unloaded.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "core/plugin_loader.hpp"
#include "gpuvis/output/tuio.hpp"

namespace gpuvis::output::plugin {

struct Api {
  int version;
  // Each as the function of the same name in gpuvis/output/tuio.hpp; the sender is the caller's to delete.
  TuioSender* (*make_tuio_sender)(const std::vector<TuioTarget>& targets, const TuioParams& options);
  void (*dump_osc)(const std::string& address, int port, bool tcp, const std::atomic<bool>& stop, std::ostream& out,
                   double max_seconds);
  void (*print_osc_packet)(std::ostream& out, const std::uint8_t* data, std::size_t size);
  std::size_t (*print_osc_stream)(std::ostream& out, const std::uint8_t* data, std::size_t size);
};

inline constexpr plugins::Plugin kPlugin{"libgpuvis_tuio.so", "gpuvis_tuio_plugin", 1, "TUIO output and OSC input",
                                         "liblo-dev and libboost-dev"};

}  // namespace gpuvis::output::plugin

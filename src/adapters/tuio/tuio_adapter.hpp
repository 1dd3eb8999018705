#pragma once
// The TUIO plugin's functions (liblo_sender.cpp, osc_dump.cpp), gathered into its table by
// tuio_plugin.cpp; each is the public gpuvis::output function of the same name (gpuvis/output/tuio.hpp).
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "gpuvis/output/tuio.hpp"

namespace gpuvis::output::adapter {

TuioSender* make_tuio_sender(const std::vector<TuioTarget>& targets, const TuioParams& options);
void dump_osc(const std::string& address, int port, bool tcp, const std::atomic<bool>& stop, std::ostream& out,
              double max_seconds);
void print_osc_packet(std::ostream& out, const std::uint8_t* data, std::size_t size);
std::size_t print_osc_stream(std::ostream& out, const std::uint8_t* data, std::size_t size);

}  // namespace gpuvis::output::adapter

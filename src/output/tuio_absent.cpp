// Built instead of src/adapters/tuio when liblo is not available.
#include "gpuvis/core/error.hpp"
#include "gpuvis/output/tuio.hpp"

namespace gpuvis::output {
bool tuio_available() { return false; }
std::unique_ptr<TuioSender> make_tuio_sender(const std::vector<TuioTarget>&, const TuioParams&) {
  fail(ErrorCode::unsupported, "TUIO output is not built in (install liblo-dev and libboost-dev and rebuild, or track with --no-tuio)");
}
void print_osc_packet(std::ostream&, const std::uint8_t*, std::size_t) {
  fail(ErrorCode::unsupported, "OSC input is not built in (install liblo-dev and rebuild)");
}
std::size_t print_osc_stream(std::ostream&, const std::uint8_t*, std::size_t) {
  fail(ErrorCode::unsupported, "OSC input is not built in (install liblo-dev and rebuild)");
}
void dump_osc(const std::string&, int, bool, const std::atomic<bool>&, std::ostream&, double) {
  fail(ErrorCode::unsupported, "OSC input is not built in (install liblo-dev and rebuild)");
}
}  // namespace gpuvis::output

#include <string>

#include "gpuvis/core/error.hpp"
#include "gpuvis/output/tuio.hpp"

namespace gpuvis::output {

TuioTarget parse_tuio_target(const std::string& text) {
  TuioTarget t;
  std::string rest = text;
  if (rest.rfind("udp:", 0) == 0 || rest.rfind("tcp:", 0) == 0) {
    t.transport = rest.substr(0, 3);
    rest = rest.substr(4);
  } else if (rest.rfind("web:", 0) == 0 || rest.rfind("ws:", 0) == 0) {
    fail(ErrorCode::unsupported, "TUIO target '" + text + "': WebSocket output is not implemented yet (use udp: or tcp:)");
  }
  const auto colon = rest.rfind(':');
  std::string port = rest;
  if (colon != std::string::npos) {
    t.host = rest.substr(0, colon);
    port = rest.substr(colon + 1);
  }
  try {
    std::size_t used = 0;
    t.port = std::stoi(port, &used);
    if (used != port.size()) throw std::invalid_argument(port);
  } catch (const std::exception&) {
    fail(ErrorCode::invalid_argument, "TUIO target '" + text + "': expected udp:HOST:PORT or tcp:HOST:PORT");
  }
  if (t.port < 1 || t.port > 65535 || t.host.empty())
    fail(ErrorCode::invalid_argument, "TUIO target '" + text + "': port must be 1..65535 and the host not empty");
  return t;
}

}  // namespace gpuvis::output

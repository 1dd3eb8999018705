// TUIO target syntax, shared by the CLI and reacTIVision.xml (which names the same transports).
#include <string>

#include "gpuvis/core/error.hpp"
#include "gpuvis/output/tuio.hpp"

namespace gpuvis::output {

TuioTarget parse_tuio_target(const std::string& text, int default_version) {
  TuioTarget t;
  t.version = default_version;
  std::string rest = text;
  if (const auto at = rest.rfind('@'); at != std::string::npos) {
    const std::string v = rest.substr(at + 1);
    if (v == "2" || v == "2.0") t.version = 2;
    else if (v == "1" || v == "1.1") t.version = 1;
    else fail(ErrorCode::invalid_argument, "TUIO target '" + text + "': the version after @ is 2 (TUIO 2.0) or 1.1");
    rest = rest.substr(0, at);
  }
  auto take_prefix = [&](const char* prefix) {
    const std::string p = prefix;
    if (rest.rfind(p, 0) != 0) return false;
    rest = rest.substr(p.size());
    return true;
  };
  if (take_prefix("udp:")) {
    t.transport = Transport::udp;
  } else if (take_prefix("tcp:")) {
    t.transport = Transport::tcp;
    if (take_prefix("server:")) t.transport = Transport::tcp_server;
  } else if (take_prefix("web:") || take_prefix("ws:")) {
    t.transport = Transport::websocket;
  }
  const bool server = t.transport == Transport::tcp_server || t.transport == Transport::websocket;
  // Servers listen on the loopback interface unless the target names an address (0.0.0.0: every
  // interface), so that nothing is reachable from the network without being asked for.
  if (server) t.host = kLoopback;
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
    fail(ErrorCode::invalid_argument,
         "TUIO target '" + text + "': expected udp:HOST:PORT, tcp:HOST:PORT, tcp:server:PORT or web:PORT");
  }
  // An empty host ("web::8080") would mean every interface for a server: it must be said (0.0.0.0).
  if (t.port < 1 || t.port > 65535 || t.host.empty())
    fail(ErrorCode::invalid_argument, "TUIO target '" + text + "': port must be 1..65535 and the host not empty");
  if (t.host.size() > 253)  // the longest name DNS can resolve
    fail(ErrorCode::invalid_argument, "TUIO target '" + text + "': the host name is longer than the 253 characters a name may have");
  return t;
}

std::string to_string(const TuioTarget& t) {
  const std::string port = std::to_string(t.port) + (t.version == 2 ? "@2" : "");
  const std::string host = t.host.empty() ? "" : t.host + ":";
  switch (t.transport) {
    case Transport::udp: return "udp:" + t.host + ":" + port;
    case Transport::tcp: return "tcp:" + t.host + ":" + port;
    case Transport::tcp_server: return "tcp:server:" + host + port;
    case Transport::websocket: return "web:" + host + port;
  }
  return port;
}

}  // namespace gpuvis::output

// `track --view [ADDR:]PORT`: the live view's address and token, shared by the server and its absent stub.
#include <cstdint>
#include <cstdlib>
#include <random>

#include "gpuvis/core/error.hpp"
#include "gpuvis/output/live_view.hpp"

namespace gpuvis::output {

LiveViewParams parse_live_view_address(const std::string& text) {
  LiveViewParams options;
  std::string port = text;
  if (const auto colon = text.rfind(':'); colon != std::string::npos) {
    options.address = text.substr(0, colon);
    port = text.substr(colon + 1);
    if (options.address.empty())
      fail(ErrorCode::invalid_argument, "--view '" + text + "': name an address before the ':' (e.g. 0.0.0.0:" + port +
                                            ") or give the port alone for 127.0.0.1");
  }
  char* end = nullptr;
  const long value = std::strtol(port.c_str(), &end, 10);
  if (port.empty() || *end != '\0' || value < 0 || value > 65535)
    fail(ErrorCode::invalid_argument, "--view '" + text + "': the port must be a number 0..65535 (0: any free port)");
  options.port = static_cast<int>(value);
  return options;
}

bool is_loopback(const std::string& address) {
  return address == "localhost" || address == "::1" || address == "[::1]" || address.rfind("127.", 0) == 0;
}

std::string make_view_token() {
  std::random_device source;
  std::string token;
  static const char digits[] = "0123456789abcdef";
  for (int i = 0; i < 4; ++i) {
    const std::uint32_t word = source();
    for (int shift = 28; shift >= 0; shift -= 4) token += digits[(word >> shift) & 0xF];
  }
  return token;
}

}  // namespace gpuvis::output

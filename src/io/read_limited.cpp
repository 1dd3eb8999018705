#include "gpuvis/io/read_limited.hpp"

#include <fstream>

#include "gpuvis/core/error.hpp"

namespace gpuvis {

std::string read_limited(const std::string& path, std::size_t max_bytes, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(ErrorCode::io, "cannot read " + what + " '" + path + "'");
  std::string data;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    data.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (data.size() > max_bytes)
      fail(ErrorCode::format, what + " '" + path + "' is larger than the " + std::to_string(max_bytes >> 20) + " MiB such a file may have");
  }
  return data;
}

}  // namespace gpuvis

#include "gpuvis/io/read_limited.hpp"

#include <filesystem>
#include <fstream>

#include "gpuvis/core/error.hpp"

namespace gpuvis {

namespace {

std::string size_text(std::uintmax_t bytes) {
  if (bytes >= (std::uintmax_t{1} << 20)) return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= 1024) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
}

}  // namespace

void require_regular_file(const std::string& path, const std::string& what) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  const std::string named = what + " '" + path + "' ";
  switch (st.type()) {
    case fs::file_type::regular: return;
    case fs::file_type::not_found: fail(ErrorCode::io, named + "does not exist");
    case fs::file_type::directory: fail(ErrorCode::io, named + "is a folder, not a file");
    case fs::file_type::character:
    case fs::file_type::block: fail(ErrorCode::io, named + "is a device, not a file");
    case fs::file_type::fifo: fail(ErrorCode::io, named + "is a named pipe (FIFO), not a file");
    case fs::file_type::socket: fail(ErrorCode::io, named + "is a socket, not a file");
    default: fail(ErrorCode::io, named + "cannot be read" + (ec ? ": " + ec.message() : std::string()));
  }
}

std::string read_limited(const std::string& path, std::size_t max_bytes, const std::string& what) {
  require_regular_file(path, what);
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec && size > max_bytes)
    fail(ErrorCode::format, what + " '" + path + "' is " + size_text(size) + "; such a file may have at most " + size_text(max_bytes));
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(ErrorCode::io, "cannot read " + what + " '" + path + "'");
  std::string data;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    data.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (data.size() > max_bytes)  // the file grew while it was read
      fail(ErrorCode::format, what + " '" + path + "' is larger than the " + size_text(max_bytes) + " such a file may have");
  }
  return data;
}

}  // namespace gpuvis

// `gpuvis tuio-dump`: receives OSC packets on a UDP port, or length-prefixed over TCP connections
// (spec §8.1's framing), and prints every message. The sockets are Boost.Asio's, so they listen on
// the address asked for (127.0.0.1 unless the user names another; liblo's own servers always listen
// on every interface); liblo parses the messages.
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ip/udp.hpp>
#include <boost/asio/read.hpp>
#include <lo/lo.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <list>
#include <memory>
#include <vector>

#include "gpuvis/core/error.hpp"
#include "gpuvis/output/tuio.hpp"
#include "adapters/tuio/tuio_adapter.hpp"

namespace gpuvis::output {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;
using asio::ip::udp;

std::uint32_t big_endian_u32(const unsigned char* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3];
}

void print_message(std::ostream& out, const unsigned char* data, std::size_t size) {
  int result = 0;
  // liblo's signature takes a mutable pointer; it only reads (it copies what it keeps).
  lo_message m = lo_message_deserialise(const_cast<unsigned char*>(data), size, &result);
  if (!m) return;  // not OSC: nothing to print
  out << lo_get_path(const_cast<unsigned char*>(data), static_cast<ssize_t>(size));
  const char* types = lo_message_get_types(m);
  lo_arg** argv = lo_message_get_argv(m);
  for (int i = 0, n = lo_message_get_argc(m); i < n; ++i) {
    out << ' ';
    // liblo's arguments are 4-byte aligned, its lo_arg union 8: copy the bytes out instead of
    // reading through the union (a misaligned access).
    const auto* bytes = reinterpret_cast<const char*>(argv[i]);
    switch (types[i]) {
      case 'i': {
        std::int32_t v;
        std::memcpy(&v, bytes, sizeof v);
        out << v;
        break;
      }
      case 'f': {
        float v;
        std::memcpy(&v, bytes, sizeof v);
        out << v;
        break;
      }
      case 's': out << bytes; break;
      default: out << '?';
    }
  }
  out << '\n' << std::flush;
  lo_message_free(m);
}

// A packet is a message or a bundle: "#bundle", an 8-byte time tag, then elements, each a 4-byte
// big-endian size and a packet (bundles may nest). Malformed sizes end the walk.
void print_packet(std::ostream& out, const unsigned char* data, std::size_t size, int depth = 0) {
  static constexpr char kBundle[] = "#bundle";
  if (size >= 16 && std::memcmp(data, kBundle, sizeof kBundle) == 0) {
    if (depth > 8) return;
    for (std::size_t at = 16; at + 4 <= size;) {
      const std::size_t n = big_endian_u32(data + at);
      at += 4;
      if (n > size - at) return;
      print_packet(out, data + at, n, depth + 1);
      at += n;
    }
    return;
  }
  print_message(out, data, size);
}

constexpr std::size_t kMaxOscPacket = 1 << 20;

// One TCP sender: bytes as they arrive, printed by print_osc_stream packet by packet (a 4-byte
// length, then that many bytes), until it closes or announces a packet over kMaxOscPacket.
class FramedReader : public std::enable_shared_from_this<FramedReader> {
 public:
  FramedReader(tcp::socket socket, std::ostream& out) : socket_(std::move(socket)), out_(out) {}
  void start() { read(); }
  bool open() const { return open_; }

 private:
  void read() {
    socket_.async_read_some(asio::buffer(chunk_), [self = shared_from_this()](boost::system::error_code ec, std::size_t n) {
      if (ec) return self->close();
      auto& pending = self->pending_;
      pending.insert(pending.end(), self->chunk_.begin(), self->chunk_.begin() + static_cast<std::ptrdiff_t>(n));
      const std::size_t used = adapter::print_osc_stream(self->out_, pending.data(), pending.size());
      if (used > pending.size()) return self->close();
      pending.erase(pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(used));
      self->read();
    });
  }
  void close() {
    boost::system::error_code ignored;
    socket_.close(ignored);
    open_ = false;
  }

  tcp::socket socket_;
  std::ostream& out_;
  std::array<unsigned char, 65536> chunk_{};
  std::vector<unsigned char> pending_;  // at most one packet and its length: kMaxOscPacket + 4 bytes
  bool open_ = true;
};

class Dump {
 public:
  Dump(asio::io_context& io, const std::string& address, int port, bool tcp, std::ostream& out)
      : out_(out), udp_(io), acceptor_(io) {
    boost::system::error_code ec;
    const auto ip = asio::ip::make_address(address.empty() ? "127.0.0.1" : address, ec);
    if (ec) fail(ErrorCode::invalid_argument, "tuio-dump: '" + address + "' is not an IP address (e.g. 127.0.0.1 or 0.0.0.0)");
    const auto port16 = static_cast<unsigned short>(port);
    const std::string what = std::string(tcp ? "TCP" : "UDP") + " port " + std::to_string(port) + " on " + ip.to_string();
    if (tcp) {
      const tcp::endpoint at(ip, port16);
      acceptor_.open(at.protocol(), ec);
      if (!ec) acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
      if (!ec) acceptor_.bind(at, ec);
      if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
      if (ec) fail(ErrorCode::io, "cannot listen on " + what + ": " + ec.message() + " (in use?)");
      accept();
    } else {
      const udp::endpoint at(ip, port16);
      udp_.open(at.protocol(), ec);
      if (!ec) udp_.bind(at, ec);
      if (ec) fail(ErrorCode::io, "cannot listen on " + what + ": " + ec.message() + " (in use?)");
      receive();
    }
  }

 private:
  void receive() {
    udp_.async_receive(asio::buffer(datagram_), [this](boost::system::error_code ec, std::size_t n) {
      if (ec == asio::error::operation_aborted) return;
      if (!ec) print_packet(out_, datagram_.data(), n);
      receive();
    });
  }
  void accept() {
    acceptor_.async_accept([this](boost::system::error_code ec, tcp::socket socket) {
      if (ec == asio::error::operation_aborted) return;
      if (!ec) {
        readers_.remove_if([](const std::shared_ptr<FramedReader>& r) { return !r->open(); });
        readers_.push_back(std::make_shared<FramedReader>(std::move(socket), out_));
        readers_.back()->start();
      }
      accept();
    });
  }

  std::ostream& out_;
  udp::socket udp_;
  tcp::acceptor acceptor_;
  std::array<unsigned char, 65536> datagram_{};
  std::list<std::shared_ptr<FramedReader>> readers_;
};

}  // namespace

void adapter::print_osc_packet(std::ostream& out, const std::uint8_t* data, std::size_t size) { print_packet(out, data, size); }

std::size_t adapter::print_osc_stream(std::ostream& out, const std::uint8_t* data, std::size_t size) {
  std::size_t at = 0;
  while (at + 4 <= size) {
    const std::size_t n = big_endian_u32(data + at);
    if (n > kMaxOscPacket) return size + 1;
    if (n > size - at - 4) break;  // the rest has not arrived yet
    print_packet(out, data + at + 4, n);
    at += 4 + n;
  }
  return at;
}

void adapter::dump_osc(const std::string& address, int port, bool tcp, const std::atomic<bool>& stop, std::ostream& out,
                       double max_seconds) {
  asio::io_context io;
  Dump dump(io, address, port, tcp, out);
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  while (!stop && (max_seconds <= 0 || elapsed() < max_seconds)) {
    io.run_for(std::chrono::milliseconds(100));
    if (io.stopped()) io.restart();
  }
}

}  // namespace gpuvis::output

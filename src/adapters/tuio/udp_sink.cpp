// UDP: one datagram per packet, sent from the caller's thread on a non-blocking socket, so an
// absent or slow receiver costs nothing (the datagram is simply lost, as with reacTIVision).
#include <boost/asio/ip/udp.hpp>

#include <iostream>

#include "gpuvis/core/error.hpp"
#include "adapters/tuio/packet_sink.hpp"

namespace gpuvis::output::detail {
namespace {

namespace asio = boost::asio;
using asio::ip::udp;

class UdpSink final : public PacketSink {
 public:
  UdpSink(IoThread& io, const TuioTarget& t) : socket_(io.context()), name_(to_string(t)) {
    boost::system::error_code ec;
    udp::resolver resolver(io.context());
    const auto found = resolver.resolve(udp::v4(), t.host, std::to_string(t.port), ec);
    if (ec || found.empty()) fail(ErrorCode::invalid_argument, "TUIO target '" + name_ + "': cannot resolve '" + t.host + "': " + ec.message());
    to_ = *found.begin();
    socket_.open(udp::v4(), ec);
    if (!ec) socket_.non_blocking(true, ec);
    if (ec) fail(ErrorCode::io, "TUIO target " + name_ + ": cannot open a UDP socket: " + ec.message());
    const bool local = t.host == "localhost" || to_.address().is_loopback();
    capacity_ = local ? 4096 : 1500;  // spec §8.1
  }

  void send(const Packet& p) override {
    boost::system::error_code ec;
    socket_.send_to(asio::buffer(*p), to_, 0, ec);
    if (ec && !warned_) {
      std::cerr << "gpuvis: TUIO send to " << name_ << " failed: " << ec.message() << " (continuing)\n";
      warned_ = true;
    }
  }
  std::size_t capacity() const override { return capacity_; }

 private:
  udp::socket socket_;
  udp::endpoint to_;
  std::string name_;
  std::size_t capacity_ = 1500;
  bool warned_ = false;
};

}  // namespace

std::unique_ptr<PacketSink> make_udp_sink(IoThread& io, const TuioTarget& target) { return std::make_unique<UdpSink>(io, target); }

}  // namespace gpuvis::output::detail

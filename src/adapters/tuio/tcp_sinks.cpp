// TCP as reacTIVision sends it (spec §8.1): every packet preceded by its length as a 4-byte
// big-endian integer (the framing liblo's TCP receivers read). As a client connecting to a
// receiver (retried every second while it is absent), or as a server fanning out to every client.
#include <boost/asio/connect.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

#include <array>
#include <iostream>

#include "adapters/tuio/stream_server.hpp"

namespace gpuvis::output::detail {

namespace asio = boost::asio;
using asio::ip::tcp;

tcp::endpoint listen_endpoint(asio::io_context& context, const TuioTarget& t) {
  if (t.host.empty()) return {tcp::v4(), static_cast<unsigned short>(t.port)};
  boost::system::error_code ec;
  tcp::resolver resolver(context);
  const auto found = resolver.resolve(tcp::v4(), t.host, std::to_string(t.port), ec);
  if (ec || found.empty()) fail(ErrorCode::invalid_argument, "TUIO target " + to_string(t) + ": cannot resolve '" + t.host + "': " + ec.message());
  return *found.begin();
}

namespace {

// One TCP peer: length-prefixed packets written one after the other.
class FramedConnection : public std::enable_shared_from_this<FramedConnection> {
 public:
  FramedConnection(tcp::socket socket, IoThread& io) : socket_(std::move(socket)), queue_(io) {
    boost::system::error_code ec;
    socket_.set_option(tcp::no_delay(true), ec);  // TUIO is latency-bound: no Nagle delay
  }
  void start() {}
  bool open() const { return open_; }
  void deliver(const Packet& p) {
    if (open_ && queue_.push(p)) write_next();
  }
  void close() {
    open_ = false;
    queue_.clear();
    boost::system::error_code ec;
    socket_.close(ec);
  }

 private:
  void write_next() {
    const auto n = static_cast<std::uint32_t>(queue_.front()->size());
    header_ = {static_cast<std::uint8_t>(n >> 24), static_cast<std::uint8_t>(n >> 16), static_cast<std::uint8_t>(n >> 8),
               static_cast<std::uint8_t>(n)};
    const std::array<asio::const_buffer, 2> buffers{asio::buffer(header_), asio::buffer(*queue_.front())};
    asio::async_write(socket_, buffers, [self = shared_from_this()](boost::system::error_code ec, std::size_t) {
      if (ec || !self->open_) return self->close();  // the peer went away: the server forgets it
      if (self->queue_.pop()) self->write_next();
    });
  }

  tcp::socket socket_;
  WriteQueue queue_;
  std::array<std::uint8_t, 4> header_{};
  bool open_ = true;
};

class TcpClientSink final : public PacketSink {
 public:
  TcpClientSink(IoThread& io, const TuioTarget& t)
      : io_(io), target_(t), name_(to_string(t)), resolver_(io.context()), retry_(io.context()) {
    asio::post(io.context(), [this] { connect(); });
  }

  void send(const Packet& p) override {
    io_.post([this, p] {
      if (!peer_) {
        // While a connection attempt is under way (milliseconds on a LAN) packets wait, so the
        // start-up bundles arrive; between attempts they are lost, as UDP datagrams would be.
        if (connecting_ && waiting_.size() < WriteQueue::kLimit) waiting_.push_back(p);
        return;
      }
      if (!peer_->open()) {
        std::cerr << "gpuvis: TUIO " << name_ << ": the receiver closed the connection; reconnecting every second\n";
        peer_.reset();
        retry_later();
        return;
      }
      peer_->deliver(p);
    });
  }
  std::size_t capacity() const override { return 65536; }

 private:
  void connect() {
    connecting_ = true;
    resolver_.async_resolve(target_.host, std::to_string(target_.port), [this](boost::system::error_code ec, tcp::resolver::results_type found) {
      if (ec) return failed(ec);
      auto socket = std::make_shared<tcp::socket>(io_.context());
      asio::async_connect(*socket, found, [this, socket](boost::system::error_code ec2, const tcp::endpoint&) {
        if (ec2) return failed(ec2);
        if (reported_) std::cerr << "gpuvis: TUIO " << name_ << ": connected\n";
        reported_ = false;
        peer_ = std::make_shared<FramedConnection>(std::move(*socket), io_);
        connecting_ = false;
        for (const auto& p : waiting_) peer_->deliver(p);
        waiting_.clear();
      });
    });
  }
  void failed(const boost::system::error_code& ec) {
    connecting_ = false;
    waiting_.clear();
    if (!reported_) std::cerr << "gpuvis: TUIO " << name_ << ": " << ec.message() << "; retrying every second\n";
    reported_ = true;
    retry_later();
  }
  void retry_later() {
    retry_.expires_after(std::chrono::seconds(1));
    retry_.async_wait([this](boost::system::error_code ec) {
      if (!ec) connect();
    });
  }

  IoThread& io_;
  TuioTarget target_;
  std::string name_;
  tcp::resolver resolver_;
  asio::steady_timer retry_;
  std::shared_ptr<FramedConnection> peer_;
  std::vector<Packet> waiting_;  // sent once the connection attempt under way succeeds
  bool connecting_ = false, reported_ = false;
};

}  // namespace

std::unique_ptr<PacketSink> make_tcp_client_sink(IoThread& io, const TuioTarget& target) {
  return std::make_unique<TcpClientSink>(io, target);
}
std::unique_ptr<PacketSink> make_tcp_server_sink(IoThread& io, const TuioTarget& target) {
  return std::make_unique<StreamServer<FramedConnection>>(io, target);
}

}  // namespace gpuvis::output::detail

#pragma once
// A server sink: listens on a port and hands every packet to every connected client. The client
// protocol (length-prefixed TCP, WebSocket) is the Connection type, which provides
//   Connection(tcp::socket, IoThread&), void start(), void deliver(const Packet&), bool open().
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "gpuvis/core/error.hpp"
#include "adapters/tuio/packet_sink.hpp"

namespace gpuvis::output::detail {

// The address a server listens on: every interface for an empty host, else the host's address.
boost::asio::ip::tcp::endpoint listen_endpoint(boost::asio::io_context& context, const TuioTarget& target);

template <class Connection>
class StreamServer final : public PacketSink {
 public:
  StreamServer(IoThread& io, const TuioTarget& target) : io_(io), acceptor_(io.context()) {
    namespace asio = boost::asio;
    const auto endpoint = listen_endpoint(io.context(), target);
    boost::system::error_code ec;
    acceptor_.open(endpoint.protocol(), ec);
    if (!ec) acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
    if (!ec) acceptor_.bind(endpoint, ec);
    if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
    if (ec)
      fail(ErrorCode::io, "TUIO target " + to_string(target) + ": cannot listen on port " + std::to_string(target.port) + ": " +
                              ec.message() + " (is another program using it?)");
    asio::post(io.context(), [this] { accept(); });
  }

  void send(const Packet& p) override {
    io_.post([this, p] {
      std::erase_if(clients_, [](const std::shared_ptr<Connection>& c) { return !c->open(); });
      for (const auto& c : clients_) c->deliver(p);
    });
  }
  std::size_t capacity() const override { return 65536; }  // spec §8.1

 private:
  void accept() {
    acceptor_.async_accept([this](boost::system::error_code ec, boost::asio::ip::tcp::socket socket) {
      if (ec == boost::asio::error::operation_aborted) return;
      if (!ec) {
        auto c = std::make_shared<Connection>(std::move(socket), io_);
        c->start();
        clients_.push_back(std::move(c));
      }
      accept();
    });
  }

  IoThread& io_;
  boost::asio::ip::tcp::acceptor acceptor_;
  std::vector<std::shared_ptr<Connection>> clients_;  // touched on the I/O thread only
};

}  // namespace gpuvis::output::detail

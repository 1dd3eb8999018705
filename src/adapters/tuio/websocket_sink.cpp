// reacTIVision's "web" transport (spec §8.1): a WebSocket server; every packet goes to every
// client as one unmasked binary frame. The handshake and framing are Boost.Beast's; the response
// carries Access-Control-Allow-Origin: * as reacTIVision's does, so pages from any origin connect.
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/websocket.hpp>

#include "adapters/tuio/stream_server.hpp"

namespace gpuvis::output::detail {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using asio::ip::tcp;

class WebSocketConnection : public std::enable_shared_from_this<WebSocketConnection> {
 public:
  WebSocketConnection(tcp::socket socket, IoThread& io) : ws_(std::move(socket)), queue_(io) {
    boost::system::error_code ec;
    ws_.next_layer().set_option(tcp::no_delay(true), ec);
  }
  void start() {
    ws_.set_option(websocket::stream_base::timeout::suggested(beast::role_type::server));
    ws_.set_option(websocket::stream_base::decorator([](websocket::response_type& res) {
      res.set(beast::http::field::server, "gpuvis");
      res.set(beast::http::field::access_control_allow_origin, "*");
    }));
    ws_.binary(true);
    ws_.auto_fragment(false);  // one frame per packet, as reacTIVision
    ws_.async_accept([self = shared_from_this()](beast::error_code ec) {
      if (ec) return self->close();
      self->accepted_ = true;
      self->read();
    });
  }
  bool open() const { return open_; }
  void deliver(const Packet& p) {
    if (accepted_ && open_ && queue_.push(p)) write_next();
  }

 private:
  // Clients have nothing to say, but reading lets Beast answer pings and notice a close.
  void read() {
    ws_.async_read(incoming_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec) return self->close();
      self->incoming_.clear();
      self->read();
    });
  }
  void write_next() {
    ws_.async_write(asio::buffer(*queue_.front()), [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec || !self->open_) return self->close();
      if (self->queue_.pop()) self->write_next();
    });
  }
  void close() {
    open_ = false;
    queue_.clear();
    beast::error_code ec;
    ws_.next_layer().close(ec);
  }

  websocket::stream<tcp::socket> ws_;
  WriteQueue queue_;
  beast::flat_buffer incoming_;
  bool accepted_ = false, open_ = true;
};

}  // namespace

std::unique_ptr<PacketSink> make_websocket_sink(IoThread& io, const TuioTarget& target) {
  return std::make_unique<StreamServer<WebSocketConnection>>(io, target);
}

}  // namespace gpuvis::output::detail

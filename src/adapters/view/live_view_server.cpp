// The live view plugin (libgpuvis_view.so, output/live_view_plugin.hpp): the server, HTTP for the page's files, WebSocket (/ws) for pictures, state and
// settings, all on one port and one I/O thread (Boost.Beast); pictures are prepared and encoded on
// a second thread so that neither the tracker nor the sockets wait for the codec.
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>

#include <algorithm>
#include <string_view>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <map>
#include <utility>
#include <mutex>
#include <future>
#include <optional>
#include <thread>

#include "gpuvis/core/error.hpp"
#include "gpuvis/output/live_view.hpp"
#include "output/live_view_plugin.hpp"
#include "adapters/view/page_assets.hpp"

namespace gpuvis::output {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using asio::ip::tcp;
using Bytes = std::shared_ptr<const std::string>;

class Server;

// One browser tab. At most one message per channel (and one picture) waits for it; a newer one
// replaces the waiting one, so a tab that reads slowly holds a bounded amount of memory.
class ViewClient : public std::enable_shared_from_this<ViewClient> {
 public:
  ViewClient(tcp::socket socket, Server& server) : ws_(std::move(socket)), server_(server) {}
  void start(http::request<http::string_body> request);
  void deliver_text(const std::string& channel, const Bytes& text) {
    if (!open_) return;
    pending_text_[channel] = text;
    if (!writing_) write_next();
  }
  void deliver_picture(const Bytes& picture) {
    if (!open_) return;
    pending_picture_ = picture;
    if (!writing_) write_next();
  }
  bool open() const { return open_; }
  // Ready for a new picture: none waits for this client, so encoding one would not be wasted.
  bool hungry() const { return open_ && accepted_ && !pending_picture_; }
  void close() {
    open_ = false;
    pending_text_.clear();
    pending_picture_.reset();
    beast::error_code ec;
    beast::get_lowest_layer(ws_).socket().close(ec);
  }

 private:
  void read();
  void picture_written();
  void write_next() {
    if (!accepted_ || !open_) return;
    Bytes next;
    bool text = true;
    if (!pending_text_.empty()) {
      next = pending_text_.begin()->second;
      pending_text_.erase(pending_text_.begin());
    } else if (pending_picture_) {
      next = std::move(pending_picture_);
      pending_picture_.reset();
      text = false;
    } else {
      writing_ = false;
      return;
    }
    writing_ = true;
    writing_now_ = next;
    ws_.text(text);
    ws_.async_write(asio::buffer(*writing_now_), [self = shared_from_this(), text](beast::error_code ec, std::size_t) {
      self->writing_now_.reset();
      if (ec) return self->close();
      if (!text) self->picture_written();
      self->write_next();
    });
  }

  websocket::stream<beast::tcp_stream> ws_;
  Server& server_;
  beast::flat_buffer incoming_;
  std::map<std::string, Bytes> pending_text_;
  Bytes pending_picture_, writing_now_;
  bool accepted_ = false, open_ = true, writing_ = false;
};

// One HTTP connection: GET of the page's files, or the upgrade to a ViewClient.
class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  HttpSession(tcp::socket socket, Server& server) : stream_(std::move(socket)), server_(server) {}
  void start() { read(); }

 private:
  void read() {
    request_ = {};
    stream_.expires_after(std::chrono::seconds(30));
    http::async_read(stream_, buffer_, request_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec) return self->shut();
      self->answer();
    });
  }
  void answer();
  void shut() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
  }

  beast::tcp_stream stream_;
  Server& server_;
  beast::flat_buffer buffer_;
  http::request<http::string_body> request_;
  std::shared_ptr<http::response<http::string_body>> response_;
};

class Server final : public LiveView {
 public:
  Server(const LiveViewParams& options, plugin::JpegEncoder encode_jpeg)
      : options_(options), encode_jpeg_(encode_jpeg), work_(asio::make_work_guard(context_)), acceptor_(context_) {
    beast::error_code ec;
    const auto address = asio::ip::make_address(options.address, ec);
    if (ec) fail(ErrorCode::invalid_argument, "live view: '" + options.address + "' is not an IP address");
    const tcp::endpoint endpoint(address, static_cast<unsigned short>(options.port));
    acceptor_.open(endpoint.protocol(), ec);
    if (!ec) acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
    if (!ec) acceptor_.bind(endpoint, ec);
    if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
    if (ec)
      fail(ErrorCode::io, "live view: cannot listen on " + options.address + ":" + std::to_string(options.port) + ": " +
                              ec.message() + " (is another program using it?)");
    port_ = acceptor_.local_endpoint().port();
    accept();
    io_thread_ = std::thread([this] { context_.run(); });
    encoder_thread_ = std::thread([this] { encode_loop(); });
  }
  ~Server() override {
    {
      std::lock_guard lock(picture_mutex_);
      stopping_ = true;
    }
    picture_wake_.notify_all();
    encoder_thread_.join();
    // Close every socket on the I/O thread, then stop it: handlers still pending (an idle HTTP
    // connection's timer) are dropped.
    std::promise<void> closed;
    asio::post(context_, [this, &closed] {
      beast::error_code ec;
      acceptor_.close(ec);
      for (auto& c : clients_) c->close();
      clients_.clear();
      closed.set_value();
    });
    closed.get_future().wait_for(std::chrono::seconds(1));
    work_.reset();
    context_.stop();
    io_thread_.join();
  }

  int port() const override { return port_; }
  int clients() const override { return client_count_.load(); }

  bool wants_picture() const override {
    if (!hungry_.load() || picture_busy_.load()) return false;
    const auto now = std::chrono::steady_clock::now();
    return now - last_picture_.load() >= std::chrono::duration<double>(1.0 / std::max(0.1, options_.picture_fps));
  }

  void offer_picture(HostView<const std::uint8_t> frame, std::function<Image<std::uint8_t>(Image<std::uint8_t>)> prepare) override {
    if (!wants_picture()) return;
    Image<std::uint8_t> copy(frame.width, frame.height, frame.channels);
    for (int y = 0; y < frame.height; ++y)
      std::memcpy(copy.row(y), frame.row(y), static_cast<std::size_t>(frame.width) * frame.channels);
    last_picture_ = std::chrono::steady_clock::now();
    picture_busy_ = true;
    {
      std::lock_guard lock(picture_mutex_);
      picture_ = std::move(copy);
      prepare_ = std::move(prepare);
    }
    picture_wake_.notify_one();
  }

  void publish(const std::string& channel, std::string text) override {
    auto bytes = std::make_shared<const std::string>(std::move(text));
    asio::post(context_, [this, channel, bytes] {
      for (auto& c : clients_) c->deliver_text(channel, bytes);
    });
  }

  std::vector<std::string> take_messages() override {
    std::lock_guard lock(inbox_mutex_);
    return std::exchange(inbox_, {});
  }

  // I/O thread: whether some client would take a new picture now. A client that reads nothing
  // keeps its one unsent picture, and the tracker stops copying and encoding for it.
  void update_hungry() {
    hungry_ = std::any_of(clients_.begin(), clients_.end(), [](const std::shared_ptr<ViewClient>& c) { return c->hungry(); });
  }
  // I/O thread: a client has been upgraded to WebSocket, or has gone.
  void joined(const std::shared_ptr<ViewClient>& client) {
    clients_.push_back(client);
    client_count_ = static_cast<int>(clients_.size());
    update_hungry();
    std::lock_guard lock(inbox_mutex_);
    inbox_.push_back(R"({"type":"hello"})");  // the caller answers with everything a new page needs
  }
  void left() {
    std::erase_if(clients_, [](const std::shared_ptr<ViewClient>& c) { return !c->open(); });
    client_count_ = static_cast<int>(clients_.size());
    update_hungry();
  }
  void received(std::string message) {
    std::lock_guard lock(inbox_mutex_);
    if (inbox_.size() < kInboxLimit) inbox_.push_back(std::move(message));
  }
  // The WebSocket may only be opened by the page this server sent: a page from another site open
  // in the same browser must not change settings or write files (cross-site WebSocket hijacking).
  // With a token (an address beyond loopback), the socket opens only for /ws?token=TOKEN: without
  // it nobody on the network sees frames or changes settings. Compared in time independent of
  // where the first difference lies.
  bool socket_allowed(const http::request<http::string_body>& request) const {
    const std::string target(request.target());
    const std::string path = target.substr(0, target.find('?'));
    if (path != "/ws" || !same_origin(request)) return false;
    if (options_.token.empty()) return true;
    const std::string wanted = "token=" + options_.token;
    const auto query = target.find('?');
    if (query == std::string::npos) return false;
    bool found = false;
    std::size_t at = query + 1;
    while (at <= target.size()) {
      const std::size_t end = std::min(target.find('&', at), target.size());
      const std::string_view part(target.data() + at, end - at);
      if (part.size() == wanted.size()) {
        unsigned diff = 0;
        for (std::size_t i = 0; i < part.size(); ++i) diff |= static_cast<unsigned char>(part[i] ^ wanted[i]);
        found = found || diff == 0;
      }
      at = end + 1;
    }
    return found;
  }
  static bool same_origin(const http::request<http::string_body>& request) {
    const auto origin = request.find(http::field::origin);
    if (origin == request.end()) return true;  // not a browser
    const auto host = request.find(http::field::host);
    return host != request.end() && origin->value() == "http://" + std::string(host->value());
  }

 private:
  static constexpr std::size_t kInboxLimit = 1024;

  void accept() {
    acceptor_.async_accept([this](beast::error_code ec, tcp::socket socket) {
      if (ec == asio::error::operation_aborted) return;
      if (!ec) std::make_shared<HttpSession>(std::move(socket), *this)->start();
      accept();
    });
  }

  void encode_loop() {
    for (;;) {
      Image<std::uint8_t> picture;
      std::function<Image<std::uint8_t>(Image<std::uint8_t>)> prepare;
      {
        std::unique_lock lock(picture_mutex_);
        picture_wake_.wait(lock, [this] { return stopping_ || picture_.has_value(); });
        if (stopping_) return;
        picture = std::move(*picture_);
        picture_.reset();
        prepare = std::move(prepare_);
      }
      try {
        if (prepare) picture = prepare(std::move(picture));
        auto bytes = std::make_shared<const std::string>(encode(picture));
        asio::post(context_, [this, bytes] {
          for (auto& c : clients_) c->deliver_picture(bytes);
          update_hungry();
        });
      } catch (const std::exception& e) {
        publish("error", std::string(R"({"type":"error","message":")") + "picture: " + e.what() + "\"}");
      }
      picture_busy_ = false;
    }
  }

  // A 5-byte header (format: 1 JPEG, 2 raw grey, 3 raw RGB; width and height as little-endian
  // 16-bit numbers), then the data. Raw pixels when the build has no JPEG codec.
  std::string encode(const Image<std::uint8_t>& picture) const {
    const HostView<const std::uint8_t> view = picture.view();
    std::string out(5, '\0');
    out[1] = static_cast<char>(view.width & 0xff);
    out[2] = static_cast<char>(view.width >> 8);
    out[3] = static_cast<char>(view.height & 0xff);
    out[4] = static_cast<char>(view.height >> 8);
    if (encode_jpeg_) {
      out[0] = 1;
      const auto jpeg = encode_jpeg_(view, 80);
      out.append(reinterpret_cast<const char*>(jpeg.data()), jpeg.size());
    } else {
      out[0] = static_cast<char>(view.channels == 1 ? 2 : 3);
      for (int y = 0; y < view.height; ++y)
        out.append(reinterpret_cast<const char*>(view.row(y)), static_cast<std::size_t>(view.width) * view.channels);
    }
    return out;
  }

  LiveViewParams options_;
  plugin::JpegEncoder encode_jpeg_;
  asio::io_context context_;
  asio::executor_work_guard<asio::io_context::executor_type> work_;
  tcp::acceptor acceptor_;
  int port_ = 0;
  std::vector<std::shared_ptr<ViewClient>> clients_;  // I/O thread only
  std::atomic<int> client_count_{0};
  std::atomic<bool> hungry_{false};

  std::mutex inbox_mutex_;
  std::vector<std::string> inbox_;

  std::mutex picture_mutex_;
  std::condition_variable picture_wake_;
  std::optional<Image<std::uint8_t>> picture_;
  std::function<Image<std::uint8_t>(Image<std::uint8_t>)> prepare_;
  bool stopping_ = false;
  std::atomic<bool> picture_busy_{false};
  std::atomic<std::chrono::steady_clock::time_point> last_picture_{};

  std::thread io_thread_, encoder_thread_;
};

void ViewClient::start(http::request<http::string_body> request) {
  beast::get_lowest_layer(ws_).expires_never();
  ws_.set_option(websocket::stream_base::timeout::suggested(beast::role_type::server));
  ws_.set_option(websocket::stream_base::decorator(
      [](websocket::response_type& res) { res.set(http::field::server, "gpuvis"); }));
  ws_.read_message_max(1 << 20);
  ws_.async_accept(request, [self = shared_from_this()](beast::error_code ec) {
    if (ec) return self->close();
    self->accepted_ = true;
    self->server_.joined(self);
    self->read();
    self->write_next();
  });
}

void ViewClient::picture_written() { server_.update_hungry(); }

void ViewClient::read() {
  ws_.async_read(incoming_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
    if (ec) {
      self->close();
      return self->server_.left();
    }
    self->server_.received(beast::buffers_to_string(self->incoming_.data()));
    self->incoming_.clear();
    self->read();
  });
}

void HttpSession::answer() {
  if (websocket::is_upgrade(request_)) {
    if (server_.socket_allowed(request_)) {
      std::make_shared<ViewClient>(stream_.release_socket(), server_)->start(std::move(request_));
      return;
    }
    response_ = std::make_shared<http::response<http::string_body>>(http::status::forbidden, request_.version());
    response_->body() = "the live view's WebSocket is /ws, opened by its own page (with the token printed at start, "
                        "when the view is open beyond this machine)\n";
  } else {
    const view_assets::Asset* asset = nullptr;
    if (request_.method() == http::verb::get || request_.method() == http::verb::head)
      asset = view_assets::find(std::string(request_.target()));
    if (asset) {
      response_ = std::make_shared<http::response<http::string_body>>(http::status::ok, request_.version());
      response_->set(http::field::content_type, asset->content_type);
      response_->set(http::field::cache_control, "no-store");
      if (request_.method() == http::verb::get) response_->body() = asset->content;
    } else {
      response_ = std::make_shared<http::response<http::string_body>>(http::status::not_found, request_.version());
      response_->set(http::field::content_type, "text/plain");
      response_->body() = "not found\n";
    }
  }
  response_->set(http::field::server, "gpuvis");
  response_->keep_alive(request_.keep_alive());
  response_->prepare_payload();
  http::async_write(stream_, *response_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
    if (ec || !self->response_->keep_alive()) return self->shut();
    self->read();
  });
}

}  // namespace

namespace {
LiveView* open(const LiveViewParams& options, plugin::JpegEncoder encode_jpeg) { return new Server(options, encode_jpeg); }
constexpr plugin::ViewApi kApi{plugin::kViewPlugin.version, open};
}  // namespace

}  // namespace gpuvis::output

extern "C" __attribute__((visibility("default"))) const void* gpuvis_view_plugin() { return &gpuvis::output::kApi; }

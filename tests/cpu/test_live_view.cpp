// The live view's server as a browser sees it (Boost.Beast's HTTP and WebSocket clients): the page
// over HTTP, pictures and state over the WebSocket, messages back, and clients that stall or leave
// without the caller ever waiting.
#include <gtest/gtest.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>

#include <chrono>
#include <thread>

#include "gpuvis/core/error.hpp"
#include "gpuvis/io/image_file.hpp"
#include "gpuvis/output/live_view.hpp"

using namespace gpuvis;
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::ip::tcp;

namespace {

output::LiveViewParams any_port() {
  output::LiveViewParams o;
  o.port = 0;
  o.picture_fps = 1000;
  return o;
}

tcp::socket connect_to(asio::io_context& io, int port) {
  tcp::socket s(io);
  s.connect({asio::ip::address_v4::loopback(), static_cast<unsigned short>(port)});
  return s;
}

http::response<http::string_body> get(int port, const std::string& target) {
  asio::io_context io;
  beast::tcp_stream stream(connect_to(io, port));
  http::request<http::empty_body> request(http::verb::get, target, 11);
  request.set(http::field::host, "127.0.0.1");
  http::write(stream, request);
  beast::flat_buffer buffer;
  http::response<http::string_body> response;
  http::read(stream, buffer, response);
  return response;
}

template <class Condition>
bool wait_for(Condition condition, int ms = 5000) {
  for (int i = 0; i < ms / 5; ++i) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return condition();
}

Image<std::uint8_t> gradient(int w, int h) {
  Image<std::uint8_t> img(w, h, 1);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) img(x, y) = static_cast<std::uint8_t>(x * 255 / (w - 1));
  return img;
}

}  // namespace

TEST(LiveView, ServesItsPageAndNothingElse) {
  if (!output::live_view_available()) GTEST_SKIP() << "built without the live view (Boost)";
  auto view = output::open_live_view(any_port());
  ASSERT_GT(view->port(), 0);
  const auto page = get(view->port(), "/");
  EXPECT_EQ(page.result(), http::status::ok);
  EXPECT_NE(page.body().find("<canvas"), std::string::npos);
  EXPECT_EQ(get(view->port(), "/view.js")[http::field::content_type], "text/javascript; charset=utf-8");
  EXPECT_EQ(get(view->port(), "/../CMakeLists.txt").result(), http::status::not_found);
  EXPECT_EQ(get(view->port(), "/ws").result(), http::status::not_found);  // a plain GET of the socket's path
}

TEST(LiveView, PicturesAndStateReachTheBrowserAndMessagesComeBack) {
  if (!output::live_view_available()) GTEST_SKIP() << "built without the live view (Boost)";
  auto view = output::open_live_view(any_port());
  EXPECT_FALSE(view->wants_picture()) << "nobody is watching";
  asio::io_context io;
  beast::websocket::stream<tcp::socket> ws(connect_to(io, view->port()));
  ws.set_option(beast::websocket::stream_base::decorator(
      [&](beast::websocket::request_type& r) { r.set(http::field::origin, "http://127.0.0.1:" + std::to_string(view->port())); }));
  ws.handshake("127.0.0.1:" + std::to_string(view->port()), "/ws");
  ASSERT_TRUE(wait_for([&] { return view->clients() == 1; }));
  std::vector<std::string> messages;
  ASSERT_TRUE(wait_for([&] {
    for (auto& m : view->take_messages()) messages.push_back(m);
    return !messages.empty();
  }));
  EXPECT_EQ(messages[0], R"({"type":"hello"})") << "the caller is told a page joined";

  ASSERT_TRUE(wait_for([&] { return view->wants_picture(); }));
  const auto frame = gradient(64, 48);
  view->offer_picture(frame.view(), [](Image<std::uint8_t> grey) {  // prepared on the view's thread
    for (int x = 0; x < grey.width(); ++x) grey(x, 0) = 0;
    return grey;
  });
  view->publish("state", R"({"type":"state","fseq":7})");
  bool got_state = false, got_picture = false;
  for (int i = 0; i < 2; ++i) {
    beast::flat_buffer buffer;
    ws.read(buffer);
    const std::string data = beast::buffers_to_string(buffer.data());
    if (ws.got_text()) {
      EXPECT_EQ(data, R"({"type":"state","fseq":7})");
      got_state = true;
      continue;
    }
    got_picture = true;
    ASSERT_GE(data.size(), 5u);
    const int w = static_cast<unsigned char>(data[1]) | static_cast<unsigned char>(data[2]) << 8;
    const int h = static_cast<unsigned char>(data[3]) | static_cast<unsigned char>(data[4]) << 8;
    EXPECT_EQ(w, 64);
    EXPECT_EQ(h, 48);
    if (data[0] == 2) {  // raw grey (a build without the JPEG codec)
      ASSERT_EQ(data.size(), 5u + 64 * 48);
      EXPECT_EQ(static_cast<unsigned char>(data[5 + 63]), 0) << "prepare() ran";
      EXPECT_EQ(static_cast<unsigned char>(data[5 + 64 + 63]), 255);
    } else {
      ASSERT_EQ(data[0], 1) << "JPEG";
      EXPECT_EQ(static_cast<unsigned char>(data[5]), 0xFF);
      EXPECT_EQ(static_cast<unsigned char>(data[6]), 0xD8);
    }
  }
  EXPECT_TRUE(got_state && got_picture);

  ws.text(true);
  ws.write(asio::buffer(std::string(R"({"type":"settings","equalize":true})")));
  messages.clear();
  ASSERT_TRUE(wait_for([&] {
    for (auto& m : view->take_messages()) messages.push_back(m);
    return !messages.empty();
  }));
  EXPECT_EQ(messages[0], R"({"type":"settings","equalize":true})");
  ws.close(beast::websocket::close_code::normal);
  EXPECT_TRUE(wait_for([&] { return view->clients() == 0; }));
}

TEST(LiveView, APageFromAnotherSiteCannotOpenTheSocket) {
  if (!output::live_view_available()) GTEST_SKIP() << "built without the live view (Boost)";
  auto view = output::open_live_view(any_port());
  asio::io_context io;
  beast::websocket::stream<tcp::socket> ws(connect_to(io, view->port()));
  ws.set_option(beast::websocket::stream_base::decorator(
      [](beast::websocket::request_type& r) { r.set(http::field::origin, "http://example.com"); }));
  EXPECT_THROW(ws.handshake("127.0.0.1:" + std::to_string(view->port()), "/ws"), boost::system::system_error);
  EXPECT_EQ(view->clients(), 0);
}

// A client that never reads: the caller's calls never wait and the server's memory stays bounded (one
// waiting picture per client), and closing the view with the client still connected does not hang.
TEST(LiveView, AStalledClientNeverMakesTheCallerWait) {
  if (!output::live_view_available()) GTEST_SKIP() << "built without the live view (Boost)";
  auto view = output::open_live_view(any_port());
  asio::io_context io;
  tcp::socket raw = connect_to(io, view->port());
  raw.set_option(asio::socket_base::receive_buffer_size(4096));
  beast::websocket::stream<tcp::socket> ws(std::move(raw));
  ws.handshake("127.0.0.1:" + std::to_string(view->port()), "/ws");
  ASSERT_TRUE(wait_for([&] { return view->clients() == 1; }));
  const auto frame = gradient(640, 480);
  auto offer_for = [&](double seconds) {
    int offered = 0;
    const auto start = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - start < std::chrono::duration<double>(seconds)) {
      if (view->wants_picture()) {
        view->offer_picture(frame.view());
        ++offered;
      }
      view->publish("state", std::string(20000, 'x'));
    }
    return offered;
  };
  // Had a call waited for the client, these loops would stop at the first full socket.
  EXPECT_GT(offer_for(1.0), 0);
  // By now its socket is full and one picture waits for it: no more pictures are copied or encoded.
  EXPECT_EQ(offer_for(0.5), 0) << "pictures kept being made for a client that reads nothing";
  view.reset();  // with the client connected and its socket full
}

TEST(LiveView, AddressesAreCheckedAndPortsInUseNamed) {
  EXPECT_EQ(output::parse_live_view_address("8080").address, "127.0.0.1");
  EXPECT_EQ(output::parse_live_view_address("8080").port, 8080);
  EXPECT_EQ(output::parse_live_view_address("0.0.0.0:9000").address, "0.0.0.0");
  EXPECT_EQ(output::parse_live_view_address("0.0.0.0:9000").port, 9000);
  for (const char* bad : {"", "x", ":80", "70000", "1.2.3.4:", "-1"}) EXPECT_THROW(output::parse_live_view_address(bad), Error) << bad;
  if (!output::live_view_available()) GTEST_SKIP() << "built without the live view (Boost)";
  auto first = output::open_live_view(any_port());
  auto options = any_port();
  options.port = first->port();
  try {
    output::open_live_view(options);
    FAIL() << "a port in use was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(std::to_string(first->port())), std::string::npos) << e.what();
  }
  options.address = "example.com";
  EXPECT_THROW(output::open_live_view(options), Error);
}

// Open beyond this machine, the view has a token: the socket (frames, state, settings) opens only
// for /ws?token=TOKEN; without it, or with another, it is refused and the caller sees no client. The
// page itself is served either way (it holds nothing of the tracker's).
TEST(LiveView, BeyondLoopbackTheSocketNeedsTheToken) {
  EXPECT_TRUE(output::is_loopback("127.0.0.1"));
  EXPECT_TRUE(output::is_loopback("localhost"));
  EXPECT_FALSE(output::is_loopback("0.0.0.0"));
  EXPECT_FALSE(output::is_loopback("192.168.1.20"));
  const std::string token = output::make_view_token();
  EXPECT_EQ(token.size(), 32u);
  EXPECT_EQ(token.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_NE(token, output::make_view_token());
  if (!output::live_view_available()) GTEST_SKIP() << "built without the live view (Boost)";
  auto options = any_port();
  options.address = "0.0.0.0";
  options.token = token;
  auto view = output::open_live_view(options);
  EXPECT_EQ(get(view->port(), "/?token=" + token).result(), http::status::ok);
  const std::string host = "127.0.0.1:" + std::to_string(view->port());
  for (const std::string& target : std::vector<std::string>{"/ws", "/ws?token=", "/ws?token=" + token.substr(1), "/ws?token=" + token + "0",
                                   "/wsx?token=" + token, "/ws?other=" + token}) {
    asio::io_context io;
    beast::websocket::stream<tcp::socket> ws(connect_to(io, view->port()));
    EXPECT_THROW(ws.handshake(host, target), boost::system::system_error) << target;
  }
  EXPECT_EQ(view->clients(), 0);
  asio::io_context io;
  beast::websocket::stream<tcp::socket> ws(connect_to(io, view->port()));
  ws.handshake(host, "/ws?v=1&token=" + token);
  EXPECT_TRUE(wait_for([&] { return view->clients() == 1; }));
  view->publish("state", R"({"type":"state"})");
  beast::flat_buffer buffer;
  ws.read(buffer);
  EXPECT_EQ(beast::buffers_to_string(buffer.data()), R"({"type":"state"})");
  ws.close(beast::websocket::close_code::normal);
}

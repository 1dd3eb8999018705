// TUIO's stream transports as a client sees them: a TCP server fanning out to every client, a
// WebSocket server (Boost.Beast's client does the handshake), a TCP client that reconnects, and
// clients that fall behind. Every packet is decoded by liblo, not by code of ours.
#include <gtest/gtest.h>

#include <cstring>
#include <lo/lo.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/websocket.hpp>

#include <atomic>
#include <chrono>
#include <sstream>
#include <thread>
#include <unistd.h>

#include "gpuvis/core/error.hpp"
#include "gpuvis/output/tuio.hpp"
#include "gpuvis/track/tracker.hpp"

using namespace gpuvis;
namespace asio = boost::asio;
namespace beast = boost::beast;
using asio::ip::tcp;

namespace {

int test_port(int offset) { return 46000 + (getpid() * 7 + offset) % 3000; }

// A TUIO server (`kind` "tcp:server:" or "web:") on a port of this test's range. Another program
// or a parallel test may hold that port (the sender then refuses with "Address already in use"),
// so the next ones are tried. Returns the sender and its port.
std::pair<std::unique_ptr<output::TuioSender>, int> server_on_a_free_port(const std::string& kind, int offset) {
  for (int attempt = 0;; ++attempt) {
    const int port = test_port(offset + 10 * attempt);
    try {
      return {output::make_tuio_sender({output::parse_tuio_target(kind + std::to_string(port))}, {}), port};
    } catch (const Error& e) {
      if (attempt == 19 || std::string(e.what()).find("already in use") == std::string::npos) throw;
    }
  }
}

// A frame with `n` objects: session IDs 100.., symbol IDs 0.., spread over the table.
track::Frame objects_frame(int n, std::int32_t fseq) {
  track::Frame f;
  f.fseq = fseq;
  f.objects_changed = true;
  for (int i = 0; i < n; ++i) {
    track::Object o{};
    o.session_id = 100 + i;
    o.symbol_id = i;
    o.m.x = 0.25f + 0.001f * static_cast<float>(i);
    o.m.y = 0.5f;
    o.angle = 1.0f;
    o.updated = true;
    f.objects.push_back(o);
  }
  return f;
}

// OSC messages decoded by liblo from raw packets, one "path arg arg ..." line each.
class OscDecoder {
 public:
  OscDecoder() : server_(lo_server_new_with_proto(nullptr, LO_UDP, nullptr)) {
    lo_server_add_method(server_, nullptr, nullptr, &OscDecoder::collect, this);
  }
  ~OscDecoder() { lo_server_free(server_); }
  // Decodes one packet; false when liblo rejects it.
  bool decode(const void* data, std::size_t size) {
    return lo_server_dispatch_data(server_, const_cast<void*>(data), size) > 0;
  }
  std::vector<std::string> messages;

 private:
  template <class T>
  static T load(const lo_arg* arg) {
    T v;
    std::memcpy(&v, static_cast<const void*>(arg), sizeof v);
    return v;
  }
  static int collect(const char* path, const char* types, lo_arg** argv, int argc, lo_message, void* self) {
    std::ostringstream line;
    line << path;
    for (int i = 0; i < argc; ++i) {
      line << ' ';
      // liblo's arguments point into the packet, 4-byte aligned only: copied out, not read through
      // the 8-byte-aligned lo_arg union (UBSan).
      if (types[i] == 'i') line << load<std::int32_t>(argv[i]);
      else if (types[i] == 'f') line << load<float>(argv[i]);
      else if (types[i] == 's') line << &argv[i]->s;
      else line << '?';
    }
    static_cast<OscDecoder*>(self)->messages.push_back(line.str());
    return 0;
  }
  lo_server server_;
};

// Sends `frame` every few milliseconds from another thread while a test waits for packets.
class Ticker {
 public:
  Ticker(output::TuioSender& sender, int objects) : thread_([this, &sender, objects] {
      for (int fseq = 1; !stop_; ++fseq) {
        sender.send(objects_frame(objects, fseq));
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    }) {}
  ~Ticker() {
    stop_ = true;
    thread_.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// Reads one length-prefixed packet (the TCP framing) within `seconds`; empty on timeout.
std::vector<std::uint8_t> read_framed_packet(asio::io_context& io, tcp::socket& socket, double seconds) {
  std::array<std::uint8_t, 4> header{};
  std::vector<std::uint8_t> body;
  bool done = false;
  asio::async_read(socket, asio::buffer(header), [&](boost::system::error_code ec, std::size_t) {
    if (ec) return;
    body.resize(std::size_t{header[0]} << 24 | std::size_t{header[1]} << 16 | std::size_t{header[2]} << 8 | header[3]);
    asio::async_read(socket, asio::buffer(body), [&](boost::system::error_code ec2, std::size_t) { done = !ec2; });
  });
  io.restart();
  io.run_for(std::chrono::milliseconds(static_cast<long>(seconds * 1000)));
  if (!done) {
    socket.cancel();
    io.restart();
    io.run_for(std::chrono::milliseconds(50));  // let the cancelled handlers finish
    return {};
  }
  return body;
}

tcp::socket connect_to(asio::io_context& io, int port) {
  tcp::socket s(io);
  s.connect({asio::ip::address_v4::loopback(), static_cast<unsigned short>(port)});
  return s;
}

// What a client must find in a 2Dobj bundle of objects_frame(2, ...).
void expect_two_objects(const std::vector<std::string>& m) {
  ASSERT_EQ(m.size(), 5u);
  EXPECT_EQ(m[0], "/tuio/2Dobj source gpuvis@127.0.0.1");
  EXPECT_EQ(m[1], "/tuio/2Dobj alive 100 101");
  EXPECT_EQ(m[2].rfind("/tuio/2Dobj set 100 0 0.25 0.5 1 ", 0), 0u) << m[2];
  EXPECT_EQ(m[3].rfind("/tuio/2Dobj set 101 1 0.251 0.5 1 ", 0), 0u) << m[3];
  EXPECT_EQ(m[4].rfind("/tuio/2Dobj fseq ", 0), 0u) << m[4];
}

// Reads one framed packet from `peer` and checks it is objects_frame(2, ...) as liblo decodes it.
void expect_two_objects_arrive(asio::io_context& io, tcp::socket& peer) {
  const auto packet = read_framed_packet(io, peer, 5.0);
  ASSERT_FALSE(packet.empty()) << "no packet within 5 s";
  OscDecoder osc;
  ASSERT_TRUE(osc.decode(packet.data(), packet.size())) << "liblo rejects the packet";
  expect_two_objects(osc.messages);
}

}  // namespace

TEST(TuioStreams, TcpServerSendsEveryPacketToEveryClient) {
  if (!output::tuio_available()) GTEST_SKIP() << "built without the TUIO adapter (liblo, Boost)";
  auto [sender, port] = server_on_a_free_port("tcp:server:", 1);
  asio::io_context io;
  tcp::socket a = connect_to(io, port), b = connect_to(io, port);
  Ticker ticker(*sender, 2);
  for (tcp::socket* client : {&a, &b}) expect_two_objects_arrive(io, *client);
}

TEST(TuioStreams, WebSocketClientsGetEachPacketAsABinaryMessage) {
  if (!output::tuio_available()) GTEST_SKIP() << "built without the TUIO adapter (liblo, Boost)";
  auto [sender, port] = server_on_a_free_port("web:", 2);
  asio::io_context io;
  beast::websocket::stream<tcp::socket> ws(connect_to(io, port));
  beast::websocket::response_type response;
  ws.handshake(response, "localhost", "/");
  EXPECT_EQ(response[beast::http::field::access_control_allow_origin], "*") << "browsers on other origins need it";
  // 300 objects: a packet of ~25 kB, far more than a WebSocket frame with a 16-bit length field
  // holds when split wrongly, and more than UDP would take in one datagram.
  Ticker ticker(*sender, 300);
  beast::flat_buffer buffer;
  bool got = false;
  ws.async_read(buffer, [&](beast::error_code ec, std::size_t) { got = !ec; });
  io.run_for(std::chrono::seconds(5));
  ASSERT_TRUE(got) << "no WebSocket message within 5 s";
  EXPECT_TRUE(ws.got_binary());
  OscDecoder osc;
  const auto data = buffer.data();
  ASSERT_TRUE(osc.decode(data.data(), data.size())) << "liblo rejects the message";
  ASSERT_EQ(osc.messages.size(), 303u);  // source, alive, 300 sets, fseq: one bundle, not split
  EXPECT_EQ(osc.messages[302].rfind("/tuio/2Dobj fseq ", 0), 0u);
}

TEST(TuioStreams, TcpClientConnectsWhenTheReceiverAppears) {
  if (!output::tuio_available()) GTEST_SKIP() << "built without the TUIO adapter (liblo, Boost)";
  const int port = test_port(3);
  auto sender = output::make_tuio_sender({output::parse_tuio_target("tcp:127.0.0.1:" + std::to_string(port))}, {});
  Ticker ticker(*sender, 2);  // nobody listens yet: packets are lost, nothing blocks
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  asio::io_context io;
  tcp::acceptor acceptor(io, {asio::ip::address_v4::loopback(), static_cast<unsigned short>(port)});
  tcp::socket peer(io);
  bool accepted = false;
  acceptor.async_accept(peer, [&](boost::system::error_code ec) { accepted = !ec; });
  io.run_for(std::chrono::seconds(5));  // the sender retries once a second
  ASSERT_TRUE(accepted) << "the TUIO sender did not reconnect within 5 s";
  expect_two_objects_arrive(io, peer);
}

TEST(TuioStreams, AClientThatStopsReadingLosesPacketsNotTheTracker) {
  if (!output::tuio_available()) GTEST_SKIP() << "built without the TUIO adapter (liblo, Boost)";
  auto [sender, port] = server_on_a_free_port("tcp:server:", 4);
  asio::io_context io;
  tcp::socket idle = connect_to(io, port);  // connected, never reads
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // let the server accept it
  // ~35 kB per frame, 40 MB in all: more than the socket buffers and the client's queue hold.
  const auto frame = objects_frame(400, 1);
  for (int i = 0; i < 1200; ++i) sender->send(frame);
  EXPECT_GT(sender->packets_dropped(), 0) << "the idle client's packets should have been dropped";
  EXPECT_EQ(sender->packets_sent(), 1200);
}

TEST(TuioStreams, ABusyServerPortIsAClearError) {
  if (!output::tuio_available()) GTEST_SKIP() << "built without the TUIO adapter (liblo, Boost)";
  const int port = test_port(5);
  auto first = output::make_tuio_sender({output::parse_tuio_target("web:" + std::to_string(port))}, {});
  try {
    output::make_tuio_sender({output::parse_tuio_target("tcp:server:" + std::to_string(port))}, {});
    FAIL() << "a second server on the same port must be refused";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot listen on port " + std::to_string(port)), std::string::npos) << e.what();
  }
}

TEST(TuioStreams, TargetsParseLikeReacTIVisionsTransports) {
  using output::Transport;
  EXPECT_EQ(output::parse_tuio_target("tcp:server:3333").transport, Transport::tcp_server);
  // Servers listen on the loopback interface unless an address is named (0.0.0.0: all of them).
  EXPECT_EQ(output::parse_tuio_target("tcp:server:3333").host, "127.0.0.1");
  EXPECT_EQ(output::parse_tuio_target("tcp:server:0.0.0.0:3333").host, "0.0.0.0");
  EXPECT_EQ(output::parse_tuio_target("web:8080").transport, Transport::websocket);
  EXPECT_EQ(output::parse_tuio_target("web:8080").port, 8080);
  EXPECT_EQ(output::parse_tuio_target("web:8080").host, "127.0.0.1");
  EXPECT_EQ(output::parse_tuio_target("web:0.0.0.0:8080").host, "0.0.0.0");
  EXPECT_EQ(output::parse_tuio_target("tcp:10.0.0.2:3334").host, "10.0.0.2");
  EXPECT_EQ(output::to_string(output::parse_tuio_target("tcp:server:3333")), "tcp:server:127.0.0.1:3333");
  EXPECT_EQ(output::to_string(output::parse_tuio_target("tcp:server:0.0.0.0:3333")), "tcp:server:0.0.0.0:3333");
  EXPECT_EQ(output::to_string(output::parse_tuio_target("3333")), "udp:127.0.0.1:3333");
  EXPECT_THROW(output::parse_tuio_target("tcp::3333"), Error);
  EXPECT_THROW(output::parse_tuio_target("web:0"), Error);
  EXPECT_THROW(output::parse_tuio_target("ws::09"), Error);  // an empty interface (found by fuzzing)
  // TUIO 2.0 per target: @2 (or the default version given), @1.1 to keep 1.1.
  EXPECT_EQ(output::parse_tuio_target("web:8080@2").version, 2);
  EXPECT_EQ(output::parse_tuio_target("web:8080@2").port, 8080);
  EXPECT_EQ(output::parse_tuio_target("udp:10.0.0.2:3333").version, 1);
  EXPECT_EQ(output::parse_tuio_target("udp:10.0.0.2:3333", 2).version, 2);
  EXPECT_EQ(output::parse_tuio_target("udp:10.0.0.2:3333@1.1", 2).version, 1);
  EXPECT_EQ(output::to_string(output::parse_tuio_target("tcp:server:3334@2")), "tcp:server:127.0.0.1:3334@2");
  EXPECT_THROW(output::parse_tuio_target("web:8080@3"), Error);
}

// tuio-dump's TCP reading: packets after their 4-byte length, printed once complete, whatever way
// the bytes were cut on arrival; bundles print each message; a length over 1 MiB ends the stream.
TEST(TuioDump, StreamsPrintCompletePacketsOnlyAndRefuseHugeLengths) {
  const std::vector<std::uint8_t> message = {'/', 'a', 0, 0, ',', 'i', 0, 0, 0, 0, 0, 5};  // "/a" 5
  std::vector<std::uint8_t> bundle = {'#', 'b', 'u', 'n', 'd', 'l', 'e', 0, 0, 0, 0, 0, 0, 0, 0, 1};
  for (int i = 0; i < 2; ++i) {
    const std::uint8_t length[4] = {0, 0, 0, 12};
    bundle.insert(bundle.end(), length, length + 4);
    bundle.insert(bundle.end(), message.begin(), message.end());
  }
  std::vector<std::uint8_t> stream;
  for (const std::vector<std::uint8_t>* packet : {&message, static_cast<const std::vector<std::uint8_t>*>(&bundle)}) {
    const auto n = static_cast<std::uint32_t>(packet->size());
    const std::uint8_t length[4] = {std::uint8_t(n >> 24), std::uint8_t(n >> 16), std::uint8_t(n >> 8), std::uint8_t(n)};
    stream.insert(stream.end(), length, length + 4);
    stream.insert(stream.end(), packet->begin(), packet->end());
  }
  for (std::size_t cut = 0; cut <= stream.size(); ++cut) {  // the first `cut` bytes arrive, then the rest
    std::ostringstream out;
    std::vector<std::uint8_t> pending(stream.begin(), stream.begin() + static_cast<std::ptrdiff_t>(cut));
    const std::size_t used = output::print_osc_stream(out, pending.data(), pending.size());
    ASSERT_LE(used, pending.size());
    pending.erase(pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(used));
    pending.insert(pending.end(), stream.begin() + static_cast<std::ptrdiff_t>(cut), stream.end());
    EXPECT_EQ(output::print_osc_stream(out, pending.data(), pending.size()), pending.size());
    EXPECT_EQ(out.str(), "/a 5\n/a 5\n/a 5\n") << cut;
  }
  const std::vector<std::uint8_t> huge = {0x00, 0x10, 0x00, 0x01, 'x'};  // 1 MiB + 1
  std::ostringstream out;
  EXPECT_EQ(output::print_osc_stream(out, huge.data(), huge.size()), huge.size() + 1);
  const std::vector<std::uint8_t> noise = {'n', 'o', 't', ' ', 'o', 's', 'c'};
  output::print_osc_packet(out, noise.data(), noise.size());
  EXPECT_EQ(out.str(), "");
}

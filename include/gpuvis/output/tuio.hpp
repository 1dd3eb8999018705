#pragma once
// Stage 5: TUIO 1.1 output (/tuio/2Dobj, /tuio/2Dcur, /tuio/2Dblb), and TUIO 2.0 (/tuio2/frm, tok,
// ptr, bnd, sym, alv) to the targets that ask for it, over OSC, in the TUIO adapter
// (src/adapters/tuio: OSC encoding by liblo, transports by Boost.Asio/Beast). Message layout as
// reacTIVision (spec §8): one bundle per changed profile and frame with source, alive, set...,
// fseq; bundles split to fit the smallest packet capacity among the targets (UDP 4096 bytes to
// localhost, 1500 otherwise; TCP and WebSocket 65536) with the whole alive list repeated.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "gpuvis/track/tracker.hpp"

namespace gpuvis::output {

// The transports of reacTIVision (spec §8.1). Stream transports frame each OSC packet: TCP with a
// 4-byte big-endian length before it, WebSocket as one binary frame.
enum class Transport {
  udp,         // datagrams to host:port
  tcp,         // a client connecting to host:port (retried every second while refused)
  tcp_server,  // listens on port, every connected client gets every packet (host="server")
  websocket,   // a WebSocket server on port (reacTIVision's "web"), for browser clients
};

inline constexpr const char* kLoopback = "127.0.0.1";

struct TuioTarget {
  Transport transport = Transport::udp;
  std::string host = kLoopback;  // the receiver (udp, tcp) or the interface listened on (servers)
  int port = 3333;
  int version = 1;  // TUIO 1.1 (1) or TUIO 2.0 (2)
};

// "udp:HOST:PORT", "tcp:HOST:PORT", "tcp:server:PORT" or "tcp:server:HOST:PORT" (a TCP server, as
// reacTIVision's host="server"), "web:PORT" or "web:HOST:PORT" (a WebSocket server), "HOST:PORT"
// (udp) or "PORT" (udp to 127.0.0.1). Servers listen on 127.0.0.1 only unless a HOST is given
// (0.0.0.0: every interface). A suffix @2 asks for TUIO 2.0 (@1.1: TUIO 1.1, the default unless
// `default_version` says otherwise), e.g. web:8080@2.
TuioTarget parse_tuio_target(const std::string& text, int default_version = 1);
std::string to_string(const TuioTarget& target);  // in the syntax parse_tuio_target reads

struct TuioParams {
  std::string source = "gpuvis";  // TUIO source name; sent as name@address
  bool invert_x = false, invert_y = false, invert_angle = false;
  // TUIO 2.0's /tuio2/sym type descriptor for the symbols (fidtrk/18: reacTIVision's default
  // amoeba set, fidtrk/12: the small set); the data is the symbol's ID.
  std::string symbol_type = "fidtrk/18";
};

class TuioSender {
 public:
  virtual ~TuioSender() = default;
  // Sends the frame's changed profiles. Never blocks on an absent or slow receiver: datagrams are
  // sent without waiting, stream packets are queued for a background thread and dropped for a
  // client that falls behind; a TCP receiver that cannot be reached is reported once and retried.
  virtual void send(const track::Frame& frame) = 0;
  // Empty alive lists for every profile (start-up and shutdown, spec §8.5).
  virtual void send_empty(std::int32_t fseq) = 0;
  // Changes TUIO's inversion (reacTIVision's I key) from the next frame on.
  virtual void set_inversion(bool x, bool y, bool angle) = 0;
  virtual long packets_sent() const = 0;
  // Packets not delivered to some stream client because it fell too far behind (counted per client).
  virtual long packets_dropped() const = 0;
};

bool tuio_available();  // built with the TUIO adapter (liblo and Boost)

// Listens for OSC on a UDP (or TCP) port of `address` (an IP address; empty = 127.0.0.1) and prints
// every message ("path args...") to `out` until `stop` becomes true or `max_seconds` pass (0 = no
// limit). For `gpuvis tuio-dump`.
void dump_osc(const std::string& address, int port, bool tcp, const std::atomic<bool>& stop, std::ostream& out,
              double max_seconds);
// What dump_osc prints of one UDP datagram: every message of an OSC packet (a message, or a bundle
// of packets nested at most 8 deep), one line each; bytes that are not OSC print nothing.
void print_osc_packet(std::ostream& out, const std::uint8_t* data, std::size_t size);
// What dump_osc prints of bytes received on one TCP connection (spec §8.1: each packet after its
// 4-byte big-endian length). Returns the bytes consumed: the complete packets; a length over 1 MiB
// ends the walk and the connection (returns `size` + 1 then).
std::size_t print_osc_stream(std::ostream& out, const std::uint8_t* data, std::size_t size);
// Opens every target; a server port that cannot be listened on is an error (ErrorCode::io).
std::unique_ptr<TuioSender> make_tuio_sender(const std::vector<TuioTarget>& targets, const TuioParams& options);

}  // namespace gpuvis::output

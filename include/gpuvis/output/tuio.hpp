#pragma once
// Stage 5: TUIO 1.1 output (/tuio/2Dobj, /tuio/2Dcur, /tuio/2Dblb) over OSC, through liblo in the
// TUIO adapter (src/adapters/tuio). Message layout as reacTIVision (spec §8): one bundle per
// changed profile and frame with source, alive, set..., fseq; bundles split to fit the packet
// capacity (4096 bytes to localhost, 1500 otherwise) with the whole alive list repeated.
#include <atomic>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "gpuvis/track/tracker.hpp"

namespace gpuvis::output {

struct TuioTarget {
  std::string transport = "udp";  // udp | tcp
  std::string host = "127.0.0.1";
  int port = 3333;
};

// "udp:HOST:PORT", "tcp:HOST:PORT", "HOST:PORT" (udp) or "PORT" (udp to 127.0.0.1).
TuioTarget parse_tuio_target(const std::string& text);

struct TuioOptions {
  std::string source = "gpuvis";  // TUIO source name; sent as name@address
  bool invert_x = false, invert_y = false, invert_angle = false;
};

class TuioSender {
 public:
  virtual ~TuioSender() = default;
  // Sends the frame's changed profiles. Never blocks on an absent or slow receiver (UDP); a TCP
  // target that cannot be reached is reported once and skipped.
  virtual void send(const track::Frame& frame) = 0;
  // Empty alive lists for every profile (start-up and shutdown, spec §8.5).
  virtual void send_empty(std::int32_t fseq) = 0;
  virtual long packets_sent() const = 0;
};

bool tuio_available();  // built with the TUIO adapter (liblo)

// Listens for OSC on a UDP port and prints every message ("path args...") to `out` until `stop`
// becomes true or `max_seconds` pass (0 = no limit). For `gpuvis tuio-dump`.
void dump_osc(int port, const std::atomic<bool>& stop, std::ostream& out, double max_seconds);
std::unique_ptr<TuioSender> make_tuio_sender(const std::vector<TuioTarget>& targets, const TuioOptions& options);

}  // namespace gpuvis::output

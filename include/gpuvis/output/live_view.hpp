#pragma once
// The live view's transport: an HTTP and WebSocket server (Boost.Beast, src/adapters/view) that
// serves one small page from the binary and carries pictures and state to it and settings back.
// What the page shows and what its settings mean belong to the caller (gpuvis track); this class
// only guarantees that the caller never waits:
//   - a picture is copied only when the view wants one (a client is connected, the previous picture
//     is encoded and the rate allows); it is prepared (e.g. thresholded) and JPEG-encoded on the
//     view's own thread;
//   - every client keeps at most the newest picture and the newest state waiting (older ones are
//     replaced), so a slow or stalled browser costs nothing but its own updates.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gpuvis/core/image.hpp"

namespace gpuvis::output {

struct LiveViewParams {
  std::string address = "127.0.0.1";  // this machine only unless another address is asked for
  int port = 8080;                    // 0: any free port (see LiveView::port())
  double picture_fps = 15;            // at most this many pictures per second
  // When not empty, the page's WebSocket (frames, state, settings) opens only with ?token=TOKEN,
  // which the page takes from its own address (http://HOST:PORT/?token=TOKEN). `track --view`
  // makes one for every address other than loopback (make_view_token) unless --view-token gives it.
  std::string token;
};
// "[ADDR:]PORT" as `track --view` takes it; errors name what to fix.
LiveViewParams parse_live_view_address(const std::string& text);
// True for 127.0.0.0/8, ::1 and "localhost": addresses only this machine can reach.
bool is_loopback(const std::string& address);
// 32 hexadecimal digits from the system's random source (128 bits).
std::string make_view_token();

class LiveView {
 public:
  virtual ~LiveView() = default;
  // The port listened on (the chosen one when the options asked for 0).
  virtual int port() const = 0;
  virtual int clients() const = 0;
  // True when a picture offered now would be shown (some client has taken the previous one, the
  // last one is encoded and the rate allows): cheap, call it every frame.
  virtual bool wants_picture() const = 0;
  // Copies `frame` (8-bit, 1 or 3 channels); `prepare`, when given, turns the copy into the
  // picture to show on the view's thread (it must not touch the caller's state), then it is
  // encoded and sent to every client. Ignored unless wants_picture().
  virtual void offer_picture(HostView<const std::uint8_t> frame,
                             std::function<Image<std::uint8_t>(Image<std::uint8_t>)> prepare = {}) = 0;
  // A text message (JSON) for every client; the newest replaces one not yet sent to a slow client.
  // `channel` names the kind of message: only messages of the same channel replace each other.
  virtual void publish(const std::string& channel, std::string text) = 0;
  // The clients' messages received since the last call, oldest first.
  virtual std::vector<std::string> take_messages() = 0;
};

bool live_view_available();  // built with the view adapter (Boost)
// Listens on options.address:port; a port in use or a bad address is ErrorCode::io naming it.
std::unique_ptr<LiveView> open_live_view(const LiveViewParams& options);

}  // namespace gpuvis::output

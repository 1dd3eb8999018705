// TUIO 1.1: this file decides what goes into which bundle (spec §8.2-§8.5); liblo encodes the OSC
// bundles, and the packet sinks (packet_sink.hpp) carry the bytes to every target.
#include <lo/lo.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <numbers>

#include "gpuvis/core/error.hpp"
#include "gpuvis/output/tuio.hpp"
#include "adapters/tuio/tuio_adapter.hpp"
#include "adapters/tuio/packet_sink.hpp"

namespace gpuvis::output {
namespace {

constexpr float kTwoPi = 2.0f * std::numbers::pi_v<float>;

class LibloSender final : public TuioSender {
 public:
  LibloSender(const std::vector<TuioTarget>& targets, const TuioParams& options) : options_(options) {
    std::size_t capacity = 65536;
    for (const auto& t : targets) {
      auto& sinks = t.version == 2 ? sinks2_ : sinks_;
      switch (t.transport) {
        case Transport::udp: sinks.push_back(detail::make_udp_sink(io_, t)); break;
        case Transport::tcp: sinks.push_back(detail::make_tcp_client_sink(io_, t)); break;
        case Transport::tcp_server: sinks.push_back(detail::make_tcp_server_sink(io_, t)); break;
        case Transport::websocket: sinks.push_back(detail::make_websocket_sink(io_, t)); break;
      }
      // TUIO 1.1 bundles are split to fit every 1.1 target; a TUIO 2.0 frame is one bundle.
      if (t.version != 2) capacity = std::min(capacity, sinks.back()->capacity());
    }
    capacity_ = static_cast<int>(capacity);
    source_ = options.source + "@127.0.0.1";
  }
  // The last packets (the shutdown's empty alive lists) get half a second to reach stream clients;
  // the I/O thread stops before the sinks it serves are destroyed.
  ~LibloSender() override { io_.stop(); }

  void send(const track::Frame& f) override {
    if (!sinks_.empty()) {
      if (f.objects_changed) send_objects(f);
      if (f.cursors_changed) send_cursors(f);
      if (f.blobs_changed) send_blobs(f);
    }
    if (!sinks2_.empty() && (f.objects_changed || f.cursors_changed || f.blobs_changed)) send_tuio2(f);
  }

  void send_empty(std::int32_t fseq) override {
    if (!sinks_.empty())
      for (const char* profile : {"/tuio/2Dcur", "/tuio/2Dobj", "/tuio/2Dblb"}) {
        Bundle b(this, profile, {});
        b.finish(fseq);
      }
    if (!sinks2_.empty()) {
      track::Frame empty;
      empty.width = width_;
      empty.height = height_;
      send_tuio2(empty);
    }
  }

  void set_inversion(bool x, bool y, bool angle) override {
    options_.invert_x = x;
    options_.invert_y = y;
    options_.invert_angle = angle;
  }
  long packets_sent() const override { return packets_; }
  long packets_dropped() const override { return io_.dropped_packets(); }

 private:
  float X(float x) const { return options_.invert_x ? 1 - x : x; }
  float Y(float y) const { return options_.invert_y ? 1 - y : y; }
  float A(float a) const { return options_.invert_angle ? std::fmod(kTwoPi - a, kTwoPi) : a; }
  float VX(float v) const { return options_.invert_x ? -v : v; }
  float VY(float v) const { return options_.invert_y ? -v : v; }
  float VA(float v) const { return options_.invert_angle ? -v : v; }

  // One bundle being filled: source + alive first, sets, fseq last; splits when full.
  struct Bundle {
    LibloSender* s;
    const char* profile;
    std::vector<std::int32_t> alive;
    lo_bundle b = nullptr;
    std::size_t length = 0;  // lo_bundle_length(b)
    Bundle(LibloSender* sender, const char* p, std::vector<std::int32_t> a) : s(sender), profile(p), alive(std::move(a)) { start(); }
    ~Bundle() {
      if (b) lo_bundle_free_recursive(b);
    }
    void start() {
      b = lo_bundle_new(LO_TT_IMMEDIATE);
      lo_message src = lo_message_new();
      lo_message_add_string(src, "source");
      lo_message_add_string(src, s->source_.c_str());
      lo_bundle_add_message(b, profile, src);
      lo_message al = lo_message_new();
      lo_message_add_string(al, "alive");
      for (std::int32_t id : alive) lo_message_add_int32(al, id);
      lo_bundle_add_message(b, profile, al);
      length = lo_bundle_length(b);
    }
    void add(lo_message m, std::int32_t fseq) {
      // Keep room for this set and the closing fseq (about 32 bytes). The length is kept as the
      // messages go in (each element: a 4-byte size and the message), not recounted per message.
      const std::size_t element = 4 + lo_message_length(m, profile);
      if (length + element + 32 > static_cast<std::size_t>(s->capacity_)) {
        finish(fseq);
        start();
      }
      lo_bundle_add_message(b, profile, m);
      length += element;
    }
    void finish(std::int32_t fseq) {
      lo_message fs = lo_message_new();
      lo_message_add_string(fs, "fseq");
      lo_message_add_int32(fs, fseq);
      lo_bundle_add_message(b, profile, fs);
      s->send_bundle(b, s->sinks_);
      lo_bundle_free_recursive(b);
      b = nullptr;
    }
  };

  void send_objects(const track::Frame& f) {
    std::vector<std::int32_t> alive;
    for (const auto& o : f.objects) alive.push_back(o.session_id);
    Bundle b(this, "/tuio/2Dobj", alive);
    for (const auto& o : f.objects) {
      if (!o.updated) continue;
      lo_message m = lo_message_new();
      lo_message_add_string(m, "set");
      lo_message_add_int32(m, o.session_id);
      lo_message_add_int32(m, o.symbol_id);
      add_object_state(m, o);
      b.add(m, f.fseq);
    }
    b.finish(f.fseq);
  }

  void send_cursors(const track::Frame& f) {
    std::vector<std::int32_t> alive;
    for (const auto& c : f.cursors)
      if (c.visible) alive.push_back(c.session_id);
    Bundle b(this, "/tuio/2Dcur", alive);
    for (const auto& c : f.cursors) {
      if (!c.updated || !c.visible) continue;
      lo_message m = lo_message_new();
      lo_message_add_string(m, "set");
      lo_message_add_int32(m, c.session_id);
      lo_message_add_float(m, X(c.m.x));
      lo_message_add_float(m, Y(c.m.y));
      lo_message_add_float(m, VX(c.m.vx));
      lo_message_add_float(m, VY(c.m.vy));
      lo_message_add_float(m, c.m.accel);
      b.add(m, f.fseq);
    }
    b.finish(f.fseq);
  }

  void send_blobs(const track::Frame& f) {
    std::vector<std::int32_t> alive;
    for (const auto& t : f.blobs)
      if (t.visible) alive.push_back(t.session_id);
    Bundle b(this, "/tuio/2Dblb", alive);
    for (const auto& t : f.blobs) {
      if (!t.updated || !t.visible) continue;
      lo_message m = lo_message_new();
      lo_message_add_string(m, "set");
      lo_message_add_int32(m, t.session_id);
      add_blob_state(m, t);
      b.add(m, f.fseq);
    }
    b.finish(f.fseq);
  }

  // TUIO 2.0: one bundle per frame, /tuio2/frm (frame ID, time, sensor size, source), a token
  // (/tuio2/tok) and symbol (/tuio2/sym) per updated object, a pointer (/tuio2/ptr) per updated
  // cursor, bounds (/tuio2/bnd) per updated blob (an object's or cursor's blob has its session ID,
  // so it describes the same TUIO 2.0 object), and /tuio2/alv with every session alive.
  void send_tuio2(const track::Frame& f) {
    if (f.width > 0) width_ = f.width, height_ = f.height;
    lo_bundle b = lo_bundle_new(LO_TT_IMMEDIATE);
    lo_timetag now;
    lo_timetag_now(&now);
    lo_message frm = lo_message_new();
    lo_message_add_int32(frm, ++frame_id_);
    lo_message_add_timetag(frm, now);
    lo_message_add_int32(frm, static_cast<std::int32_t>((static_cast<std::uint32_t>(width_) << 16) | static_cast<std::uint32_t>(height_ & 0xffff)));
    lo_message_add_string(frm, source_.c_str());
    lo_bundle_add_message(b, "/tuio2/frm", frm);
    std::vector<std::int32_t> alive;
    auto live = [&](std::int32_t id) {
      if (std::find(alive.begin(), alive.end(), id) == alive.end()) alive.push_back(id);
    };
    for (const auto& o : f.objects) {
      live(o.session_id);
      if (!o.updated) continue;
      lo_message tok = lo_message_new();
      lo_message_add_int32(tok, o.session_id);
      lo_message_add_int32(tok, 0);  // type/user: none
      lo_message_add_int32(tok, o.symbol_id);
      add_object_state(tok, o);
      lo_bundle_add_message(b, "/tuio2/tok", tok);
      lo_message sym = lo_message_new();
      lo_message_add_int32(sym, o.session_id);
      lo_message_add_int32(sym, 0);
      lo_message_add_int32(sym, o.symbol_id);
      lo_message_add_string(sym, options_.symbol_type.c_str());
      lo_message_add_string(sym, std::to_string(o.symbol_id).c_str());
      lo_bundle_add_message(b, "/tuio2/sym", sym);
    }
    for (const auto& c : f.cursors) {
      if (!c.visible) continue;
      live(c.session_id);
      if (!c.updated) continue;
      lo_message ptr = lo_message_new();
      lo_message_add_int32(ptr, c.session_id);
      lo_message_add_int32(ptr, 0);  // type/user: a finger of no known hand
      lo_message_add_int32(ptr, c.cursor_id);
      lo_message_add_float(ptr, X(c.m.x));
      lo_message_add_float(ptr, Y(c.m.y));
      lo_message_add_float(ptr, 0);  // angle
      lo_message_add_float(ptr, 0);  // shear
      lo_message_add_float(ptr, width_ > 0 ? c.size / 2 / static_cast<float>(width_) : 0);  // radius
      lo_message_add_float(ptr, 1);  // pressure: touching
      lo_message_add_float(ptr, VX(c.m.vx));
      lo_message_add_float(ptr, VY(c.m.vy));
      lo_message_add_float(ptr, 0);  // pressure speed
      lo_message_add_float(ptr, c.m.accel);
      lo_message_add_float(ptr, 0);  // pressure acceleration
      lo_bundle_add_message(b, "/tuio2/ptr", ptr);
    }
    for (const auto& t : f.blobs) {
      if (!t.visible) continue;
      live(t.session_id);
      if (!t.updated) continue;
      lo_message bnd = lo_message_new();
      lo_message_add_int32(bnd, t.session_id);
      add_blob_state(bnd, t);
      lo_bundle_add_message(b, "/tuio2/bnd", bnd);
    }
    lo_message alv = lo_message_new();
    for (std::int32_t id : alive) lo_message_add_int32(alv, id);
    lo_bundle_add_message(b, "/tuio2/alv", alv);
    send_bundle(b, sinks2_);
    lo_bundle_free_recursive(b);
  }

  // Serialises a bundle once and hands the same packet to every sink of a version.
  void send_bundle(lo_bundle b, const std::vector<std::unique_ptr<detail::PacketSink>>& sinks) {
    auto packet = std::make_shared<std::vector<std::uint8_t>>(lo_bundle_length(b));
    std::size_t size = packet->size();
    lo_bundle_serialise(b, packet->data(), &size);
    packet->resize(size);
    const detail::Packet shared = std::move(packet);
    for (const auto& sink : sinks) sink->send(shared);
    ++packets_;
  }

  // The arguments TUIO 1.1's 2Dobj set and TUIO 2.0's tok share after the IDs: position, angle,
  // speeds, accelerations (inverted as asked).
  void add_object_state(lo_message m, const track::Object& o) const {
    for (float v : {X(o.m.x), Y(o.m.y), A(o.angle), VX(o.m.vx), VY(o.m.vy), VA(o.rotation_speed), o.m.accel, o.rotation_accel})
      lo_message_add_float(m, v);
  }
  // The same for 2Dblb set and bnd after the session: position, angle, size, area, speeds, accelerations.
  void add_blob_state(lo_message m, const track::TrackedBlob& t) const {
    for (float v : {X(t.m.x), Y(t.m.y), A(t.angle), t.width, t.height, t.area, VX(t.m.vx), VY(t.m.vy), VA(t.rotation_speed),
                    t.m.accel, t.rotation_accel})
      lo_message_add_float(m, v);
  }

  TuioParams options_;
  detail::IoThread io_;  // declared before the sinks: destroyed after them
  std::vector<std::unique_ptr<detail::PacketSink>> sinks_;   // TUIO 1.1 targets
  std::vector<std::unique_ptr<detail::PacketSink>> sinks2_;  // TUIO 2.0 targets
  std::int32_t frame_id_ = 0;  // TUIO 2.0 frame IDs: 1, 2, ... (clients take only increasing ones)
  int width_ = 0, height_ = 0;
  std::string source_;
  int capacity_ = 4096;
  long packets_ = 0;
};

}  // namespace

TuioSender* adapter::make_tuio_sender(const std::vector<TuioTarget>& targets, const TuioParams& options) {
  return new LibloSender(targets, options);
}

}  // namespace gpuvis::output

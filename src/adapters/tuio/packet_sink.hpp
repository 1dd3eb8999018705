#pragma once
// The transports of the TUIO adapter. liblo_sender.cpp encodes OSC bundles into packets; a
// PacketSink delivers a packet to one target. Sinks never block the caller: UDP datagrams are sent
// without waiting, and stream sinks (TCP client, TCP server, WebSocket server) hand packets to the
// IoThread, whose connections write them in the background.
#include <boost/asio/io_context.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <thread>
#include <vector>

#include "gpuvis/output/tuio.hpp"

namespace gpuvis::output::detail {

using Packet = std::shared_ptr<const std::vector<std::uint8_t>>;

class PacketSink {
 public:
  virtual ~PacketSink() = default;
  virtual void send(const Packet& packet) = 0;
  virtual std::size_t capacity() const = 0;  // the largest packet this transport takes (spec §8.1)
};

// One background thread running the stream sinks' sockets, with the count of packets queued in
// them so that shutdown can let the last packets (the empty alive lists) go out.
class IoThread {
 public:
  IoThread();
  ~IoThread() { stop(); }
  IoThread(const IoThread&) = delete;
  IoThread& operator=(const IoThread&) = delete;
  boost::asio::io_context& context() { return context_; }
  // Runs `work` on the I/O thread; counted as queued until it has run, so that stop() waits for
  // packets handed over just before it.
  template <class Work>
  void post(Work work) {
    ++queued_;
    boost::asio::post(context_, [this, work = std::move(work)]() mutable {
      work();
      --queued_;
    });
  }
  // Waits up to `drain_ms` for the queued packets to be written, then stops the thread. Handlers
  // still pending afterwards are never run, so sinks may be destroyed after this returns.
  void stop(int drain_ms = 500);
  std::atomic<long>& queued() { return queued_; }
  std::atomic<long>& dropped() { return dropped_; }
  long dropped_packets() const { return dropped_.load(); }

 private:
  boost::asio::io_context context_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  std::atomic<long> queued_{0}, dropped_{0};
  std::thread thread_;
};

// The packets waiting for one stream client. A client more than kLimit packets behind loses the
// new ones (counted as dropped) instead of making the tracker wait or memory grow.
class WriteQueue {
 public:
  static constexpr std::size_t kLimit = 64;
  explicit WriteQueue(IoThread& io) : io_(io) {}
  ~WriteQueue() { clear(); }
  // Adds a packet; true when no write is under way and the caller must start one.
  bool push(const Packet& p);
  const Packet& front() const { return packets_.front(); }
  // Removes the packet just written; true when another one waits.
  bool pop();
  void clear();

 private:
  IoThread& io_;
  std::deque<Packet> packets_;
};

std::unique_ptr<PacketSink> make_udp_sink(IoThread& io, const TuioTarget& target);
std::unique_ptr<PacketSink> make_tcp_client_sink(IoThread& io, const TuioTarget& target);
std::unique_ptr<PacketSink> make_tcp_server_sink(IoThread& io, const TuioTarget& target);
std::unique_ptr<PacketSink> make_websocket_sink(IoThread& io, const TuioTarget& target);

}  // namespace gpuvis::output::detail

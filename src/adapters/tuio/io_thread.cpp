#include <chrono>

#include "adapters/tuio/packet_sink.hpp"

namespace gpuvis::output::detail {

IoThread::IoThread() : work_(boost::asio::make_work_guard(context_)), thread_([this] { context_.run(); }) {}

void IoThread::stop(int drain_ms) {
  if (!thread_.joinable()) return;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(drain_ms);
  while (queued_ > 0 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  work_.reset();
  context_.stop();
  thread_.join();
}

bool WriteQueue::push(const Packet& p) {
  if (packets_.size() >= kLimit) {
    ++io_.dropped();
    return false;
  }
  packets_.push_back(p);
  ++io_.queued();
  return packets_.size() == 1;
}

bool WriteQueue::pop() {
  packets_.pop_front();
  --io_.queued();
  return !packets_.empty();
}

void WriteQueue::clear() {
  io_.queued() -= static_cast<long>(packets_.size());
  packets_.clear();
}

}  // namespace gpuvis::output::detail

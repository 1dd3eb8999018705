// A live source that reopens its device when it stops delivering (make_reconnecting_source).
#include <atomic>
#include <chrono>
#include <thread>

#include "gpuvis/core/error.hpp"
#include "gpuvis/source/frame_source.hpp"

namespace gpuvis::source {
namespace {

class ReconnectingSource final : public FrameSource {
 public:
  ReconnectingSource(std::function<std::unique_ptr<FrameSource>()> open, std::string what,
                     std::function<void(const std::string&)> warn, double retry_seconds)
      : open_(std::move(open)), what_(std::move(what)), warn_(std::move(warn)), retry_seconds_(retry_seconds) {
    source_ = open_();  // missing at start-up: the caller's error
    description_ = source_->describe();
  }

  bool next(Image<std::uint8_t>& frame) override {
    while (!cancelled_) {
      if (source_) {
        std::string why = "no more frames";
        try {
          if (source_->next(frame)) {
            if (lost_ && warn_) warn_(what_ + " is back");
            lost_ = false;
            return true;
          }
        } catch (const Error& e) {
          why = e.what();
        }
        source_.reset();
        if (!lost_ && warn_)
          warn_(what_ + " stopped delivering frames (" + why + "); retrying every " + seconds_text() + " until it is back");
        lost_ = true;
      }
      if (!wait_retry()) break;
      try {
        source_ = open_();
      } catch (const Error&) {
        // still missing: try again after the next wait
      }
    }
    return false;
  }

  std::string describe() const override { return description_; }
  void cancel() override { cancelled_ = true; }

 private:
  // Waits one retry period in short steps, so that cancel() is answered quickly; false when cancelled.
  bool wait_retry() {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(retry_seconds_);
    while (!cancelled_ && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return !cancelled_;
  }
  std::string seconds_text() const {
    const int ms = static_cast<int>(retry_seconds_ * 1000 + 0.5);
    return ms % 1000 ? std::to_string(ms) + " ms" : std::to_string(ms / 1000) + " s";
  }

  std::function<std::unique_ptr<FrameSource>()> open_;
  std::string what_, description_;
  std::function<void(const std::string&)> warn_;
  double retry_seconds_;
  std::unique_ptr<FrameSource> source_;
  bool lost_ = false;
  std::atomic<bool> cancelled_{false};
};

}  // namespace

std::unique_ptr<FrameSource> make_reconnecting_source(std::function<std::unique_ptr<FrameSource>()> open, std::string what,
                                                      std::function<void(const std::string&)> warn, double retry_seconds) {
  require(retry_seconds > 0, "make_reconnecting_source: retry_seconds must be > 0");
  return std::make_unique<ReconnectingSource>(std::move(open), std::move(what), std::move(warn), retry_seconds);
}

}  // namespace gpuvis::source

#include "gpuvis/source/frame_source.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "gpuvis/io/image_file.hpp"

namespace gpuvis::source {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

namespace {

class FolderSource final : public FrameSource {
 public:
  FolderSource(const std::string& folder, bool loop) : folder_(folder), loop_(loop) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(folder, ec)) fail(ErrorCode::io, "frame folder '" + folder + "' does not exist");
    for (const auto& e : fs::directory_iterator(folder)) {
      if (e.is_regular_file() && is_image_path(e.path().string())) files_.push_back(e.path().string());
    }
    std::sort(files_.begin(), files_.end());
    if (files_.empty()) fail(ErrorCode::io, "frame folder '" + folder + "' holds no images (.pgm .ppm .png .jpg)");
  }
  bool next(Image<std::uint8_t>& frame) override {
    if (pos_ == files_.size()) {
      if (!loop_) return false;
      pos_ = 0;
    }
    frame = read_grey8(files_[pos_++]);
    return true;
  }
  std::string describe() const override { return "folder " + folder_ + " (" + std::to_string(files_.size()) + " frames)"; }

 private:
  std::string folder_;
  bool loop_;
  std::vector<std::string> files_;
  std::size_t pos_ = 0;
};

}  // namespace

std::unique_ptr<FrameSource> make_folder_source(const std::string& folder, bool loop) {
  return std::make_unique<FolderSource>(folder, loop);
}

CaptureThread::CaptureThread(std::unique_ptr<FrameSource> source, double fps)
    : source_(std::move(source)), fps_(fps), thread_([this] { run(); }) {}

CaptureThread::~CaptureThread() {
  stop();
  thread_.join();
}

void CaptureThread::stop() {
  stop_ = true;
  cv_.notify_all();
}

std::string CaptureThread::error() const {
  std::lock_guard lock(const_cast<std::mutex&>(m_));
  return error_;
}

void CaptureThread::run() {
  const double period = fps_ > 0 ? 1.0 / fps_ : 0;
  double next_time = now_seconds();
  Image<std::uint8_t> frame;
  while (!stop_) {
    try {
      if (!source_->next(frame)) break;
    } catch (const std::exception& e) {
      std::lock_guard lock(m_);
      error_ = e.what();
      break;
    }
    ++captured_;
    std::unique_lock lock(m_);
    if (period == 0) {
      cv_.wait(lock, [&] { return !full_ || stop_; });  // lock-step: nothing is dropped
    } else if (full_) {
      ++dropped_;  // the consumer has not taken the previous frame: replace it with the newest
    }
    std::swap(slot_, frame);
    slot_time_ = now_seconds();
    full_ = true;
    lock.unlock();
    cv_.notify_all();
    if (period > 0) {
      next_time += period;
      const double wait = next_time - now_seconds();
      if (wait > 0) std::this_thread::sleep_for(std::chrono::duration<double>(wait));
      else next_time = now_seconds();
    }
  }
  std::lock_guard lock(m_);
  done_ = true;
  cv_.notify_all();
}

bool CaptureThread::take(Image<std::uint8_t>& frame, double& arrival) {
  std::unique_lock lock(m_);
  cv_.wait(lock, [&] { return full_ || done_ || stop_; });
  if (!full_) return false;
  std::swap(frame, slot_);
  arrival = slot_time_;
  full_ = false;
  lock.unlock();
  cv_.notify_all();
  return true;
}

}  // namespace gpuvis::source

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
  FolderSource(const std::string& folder, bool loop, std::function<void(const std::string&)> warn)
      : folder_(folder), loop_(loop), warn_(std::move(warn)) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(folder, ec)) fail(ErrorCode::io, "frame folder '" + folder + "' does not exist");
    for (const auto& e : fs::directory_iterator(folder)) {
      if (e.is_regular_file() && is_image_path(e.path().string())) files_.push_back(e.path().string());
    }
    std::sort(files_.begin(), files_.end());
    if (files_.empty()) fail(ErrorCode::io, "frame folder '" + folder + "' holds no images (.pgm .ppm .png .jpg)");
    unreadable_.assign(files_.size(), 0);
  }
  bool next(Image<std::uint8_t>& frame) override {
    // At most one pass over the files: unreadable ones are skipped (and said once).
    for (std::size_t tried = 0; tried <= files_.size(); ++tried) {
      if (pos_ == files_.size()) {
        if (!loop_) return false;
        pos_ = 0;
      }
      const std::size_t i = pos_++;
      if (unreadable_[i]) continue;
      std::string why;
      try {
        frame = read_grey8(files_[i]);
        return true;
      } catch (const Error& e) {
        why = e.what();
      } catch (const std::bad_alloc&) {
        why = files_[i] + ": not enough memory for this frame";
      }
      unreadable_[i] = 1;
      if (++unreadable_count_ == files_.size()) fail(ErrorCode::io, "frame folder '" + folder_ + "' holds no readable image");
      if (warn_) warn_("skipping an unreadable frame: " + why);
    }
    return false;
  }
  std::string describe() const override { return "folder " + folder_ + " (" + std::to_string(files_.size()) + " frames)"; }

 private:
  std::string folder_;
  bool loop_;
  std::function<void(const std::string&)> warn_;
  std::vector<std::string> files_;
  std::vector<std::uint8_t> unreadable_;
  std::size_t unreadable_count_ = 0;
  std::size_t pos_ = 0;
};

// camera.xml's <frame> crop, applied to whatever the source delivers.
class CroppedSource final : public FrameSource {
 public:
  CroppedSource(std::unique_ptr<FrameSource> source, Crop crop) : source_(std::move(source)), crop_(crop) {}
  bool next(Image<std::uint8_t>& frame) override {
    if (!source_->next(full_)) return false;
    const int fw = full_.width(), fh = full_.height();
    int w = crop_.width > 0 ? std::min(crop_.width, fw) : fw;
    int h = crop_.height > 0 ? std::min(crop_.height, fh) : fh;
    w -= w % 2;  // even, as reacTIVision
    h -= h % 2;
    if (w < 2 || h < 2 || (w == fw && h == fh)) {  // nothing left to crop to, or no crop at all
      std::swap(frame, full_);  // the old frame's buffer is reused for the next capture
      return true;
    }
    const int x0 = std::clamp(crop_.x, 0, fw - w), y0 = std::clamp(crop_.y, 0, fh - h);
    if (frame.width() != w || frame.height() != h) frame = Image<std::uint8_t>(w, h);
    for (int y = 0; y < h; ++y) std::copy_n(full_.row(y0 + y) + x0, w, frame.row(y));
    return true;
  }
  std::string describe() const override { return source_->describe() + " (cropped)"; }

 private:
  std::unique_ptr<FrameSource> source_;
  Crop crop_;
  Image<std::uint8_t> full_;
};

}  // namespace

std::unique_ptr<FrameSource> make_cropped_source(std::unique_ptr<FrameSource> source, Crop crop) {
  return std::make_unique<CroppedSource>(std::move(source), crop);
}

std::unique_ptr<FrameSource> make_folder_source(const std::string& folder, bool loop,
                                                std::function<void(const std::string&)> warn) {
  return std::make_unique<FolderSource>(folder, loop, std::move(warn));
}

CaptureThread::CaptureThread(std::unique_ptr<FrameSource> source, double fps)
    : source_(std::move(source)), fps_(fps), thread_([this] { run(); }) {}

CaptureThread::~CaptureThread() {
  stop();
  thread_.join();
}

void CaptureThread::stop() {
  stop_ = true;
  source_->cancel();
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
  return hand_over(lock, frame, arrival);
}

bool CaptureThread::try_take(Image<std::uint8_t>& frame, double& arrival) {
  std::unique_lock lock(m_);
  return hand_over(lock, frame, arrival);
}

bool CaptureThread::hand_over(std::unique_lock<std::mutex>& lock, Image<std::uint8_t>& frame, double& arrival) {
  if (!full_) return false;
  std::swap(frame, slot_);
  arrival = slot_time_;
  full_ = false;
  lock.unlock();
  cv_.notify_all();
  return true;
}

}  // namespace gpuvis::source

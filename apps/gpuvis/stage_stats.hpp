#pragma once
// Per-stage times of `gpuvis track`, averaged over about a second of frames: printed by --stats and
// shown by the live view.
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>

#include "gpuvis/pipeline/detector.hpp"

namespace gpuvis::cli {

class StageStats {
 public:
  void add(const pipeline::Detections& d, double track_us, double send_us, double latency_us) {
    threshold_ += d.times.threshold_us;
    segment_ += d.times.segment_us;
    decode_ += d.times.decode_us;
    device_ += d.times.device_us;
    blobs_ += d.times.blobs_us;
    second_look_ += d.times.second_look_us;
    track_ += track_us;
    send_ += send_us;
    latency_ += latency_us;
    latency_max_ = std::max(latency_max_, latency_us);
    ++frames_;
  }
  int frames() const { return frames_; }
  // One line on stderr, then starts a new period.
  void print(double seconds, long dropped) {
    const double n = frames_;
    std::cerr << std::fixed << std::setprecision(0) << "gpuvis: " << frames_ << " frames/" << std::setprecision(1) << seconds
              << " s | per frame (us): ";
    if (device_ > 0)  // CUDA: the device stages run as one graph, timed as a whole
      std::cerr << "GPU (upload, threshold, segment, decode, fingers, blobs) " << device_ / n;
    else
      std::cerr << "threshold " << threshold_ / n << ", segment " << segment_ / n << ", decode " << decode_ / n
                << ", fingers+blobs " << blobs_ / n;
    std::cerr << ", second look " << second_look_ / n << ", track " << track_ / n << ", send " << send_ / n << " | latency arrival->sent " << latency_ / n << " (max "
              << latency_max_ << ") | dropped " << dropped << "\n";
    *this = {};
  }
  // The same as JSON (microseconds; fps over `seconds`), then starts a new period.
  nlohmann::json take_json(double seconds, long dropped) {
    const double n = std::max(1, frames_);
    // [name, microseconds] pairs, in pipeline order.
    nlohmann::json stages = nlohmann::json::array();
    auto stage = [&](const char* name, double us) { stages.push_back(nlohmann::json::array({name, us / n})); };
    if (device_ > 0) {
      stage("GPU", device_);
    } else {
      stage("threshold", threshold_);
      stage("segment", segment_);
      stage("decode", decode_);
      stage("fingers+blobs", blobs_);
    }
    stage("second look", second_look_);
    stage("track", track_);
    stage("send", send_);
    nlohmann::json j = {{"fps", seconds > 0 ? frames_ / seconds : 0.0}, {"stages_us", stages}, {"latency_us", latency_ / n},
                        {"latency_max_us", latency_max_}, {"dropped", dropped}};
    *this = {};
    return j;
  }

 private:
  double threshold_ = 0, segment_ = 0, decode_ = 0, device_ = 0, blobs_ = 0, second_look_ = 0, track_ = 0, send_ = 0, latency_ = 0,
         latency_max_ = 0;
  int frames_ = 0;
};

}  // namespace gpuvis::cli

#pragma once
// The stage interface each backend implements for the Detector: frames in, Detections out, with
// up to Detector::kMaxInFlight frames between submit() and receive(). The Detector checks every
// frame and the in-flight count before calling an engine, so engines assume valid input.
#include <cstdint>
#include <memory>

#include "gpuvis/core/image.hpp"
#include "gpuvis/cuda/device_memory.hpp"
#include "gpuvis/decode/detections.hpp"
#include "gpuvis/decode/tree_set.hpp"
#include "gpuvis/pipeline/detector.hpp"

namespace gpuvis::pipeline {

// One frame for an engine, with what the Detector decided for it.
struct Submission {
  HostView<const std::uint8_t> grey;
  // A frame in CUDA device memory instead (the CUDA engine only; `grey` is then empty), ready once
  // the work queued on `device_stream` is done.
  DeviceView<const std::uint8_t> device_grey;
  cuda::StreamHandle device_stream = nullptr;
  int width() const { return device_grey.data ? device_grey.width : grey.width; }
  int height() const { return device_grey.data ? device_grey.height : grey.height; }
  // The equaliser's background and level (null: not equalised); of the frame's size. The engine
  // keeps it with the frame until the frame is received.
  std::shared_ptr<const threshold::Equalizer> background;
  bool device_times = false;
  StageTaps taps;
};

class Engine {
 public:
  virtual ~Engine() = default;
  // Starts detection on a frame (the CPU engine finishes it here).
  virtual void submit(const Submission& frame) = 0;
  // Writes the oldest submitted frame's detections into `out`, reusing its vectors' storage.
  virtual void receive(Detections& out) = 0;
  // True when submit() returns before the frame is done.
  virtual bool overlaps() const = 0;
  // The grey frame of the detections receive() last wrote as the stages saw it (equalised when
  // it was), valid until the next submit() (the second look reads it after either backend).
  virtual HostView<const std::uint8_t> received_frame() = 0;
};

// `config` is validated; its backend is the engine's.
std::unique_ptr<Engine> make_cpu_engine(const DetectorParams& config, const decode::TreeSet& set);
// Throws ErrorCode::unsupported in builds without CUDA, or for tree sets the device decoder does
// not handle (src/decode/cuda/decoder.hpp).
std::unique_ptr<Engine> make_cuda_engine(const DetectorParams& config, const decode::TreeSet& set);

}  // namespace gpuvis::pipeline

#pragma once
// One frame through the tracker's detection stages: threshold -> segment -> decode, fingers and
// blobs, all on the CPU or all on the GPU (one engine per backend behind this one type, in
// src/pipeline/cpu and src/pipeline/cuda). The detector owns every buffer, so a stream of frames of
// one size allocates nothing after the first.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpuvis/core/backend.hpp"
#include "gpuvis/core/image.hpp"
#include "gpuvis/cuda/device_memory.hpp"
#include "gpuvis/decode/detections.hpp"
#include "gpuvis/calibration/grid.hpp"
#include "gpuvis/threshold/threshold.hpp"

namespace gpuvis::pipeline {

using decode::Detections;
using decode::StageTimes;

// The second look: candidates that did not decode (fuzzy candidates and root candidates) are
// looked at again on the host, in the grey frame: their motion blur is estimated, taken out, and
// the patch thresholded, segmented and decoded again (src/pipeline/second_look). The same code runs
// after either backend, so both give the same detections.
struct SecondLookParams {
  bool enabled = true;
  int max_looks = 16;     // per frame, in the order of the candidates (fuzzy ones first)
  // Iterations per deblurred patch, and the weight of the smoothed total variation against the
  // data term (grey levels; second_look::deconvolve). 60 iterations at 0.2-0.3 decoded 225-227 of
  // the camera table's 240 prints smeared over 7 px with the true smear, one try each (0.1: 180 and
  // 8 other IDs, 0.5: 208, 40 iterations: 221, 150: 225; bench/probe_deblur).
  int iterations = 60;
  double smoothness = 0.25;
  // Patches whose gradients are this even in every direction are not motion-blurred. On generated
  // 640x480 frames a still symbol's patch measured 0-0.12, one smeared over 5 px 0.18-0.58.
  double min_anisotropy = 0.15;
  // In a frame where a look found motion, the first pass's symbols whose patches are smeared are
  // read again too: two deblurred lengths agreeing on another ID replace the first pass's, and a
  // patch that does not decode at all makes the symbol a fuzzy candidate.
  bool verify = true;
  // Where a tracked print (an ExpectedSymbol with a key) does not decode, it is looked for by how it
  // looked when it last decoded, turned by its spin and smeared along its motion, and a match of at
  // least this normalised cross-correlation is reported as that print, followed.
  bool follow_appearance = true;
  double least_appearance_score = 0.8;
  // Where a smeared candidate that decodes nothing moved from one such candidate of the last frame,
  // of about its size, the smear is first taken out along that way (a print slid from its first
  // frame, which the tracker does not know yet), then along the patch's own estimate.
  bool follow_travel = true;
  // With the CUDA backend, the looks' deconvolutions (nine tenths of a look's time) run on the
  // device, a group of trials at once, restoring the CPU's bits; off: on the host, as on the CPU
  // backend. The symbols reported are the same either way.
  bool on_device = true;
};

// What the backend computed for a frame, handed out beside its detections when asked for (for
// `gpuvis detect --debug` and the live view's binary picture): the CUDA backend then copies its
// device buffers back, so what is shown is what the detections came from.
struct StageTaps {
  bool threshold = false;  // Detections::binary: the threshold stage's binary frame
  // Detections::tree: the region tree with its runs (the CPU backend hands out its tree always,
  // without runs unless fingers, blobs or yamaarashi symbols need them).
  bool regions = false;
  bool any() const { return threshold || regions; }
};

struct DetectorParams {
  // reacTIVision's equaliser (<image equalize>, spec §2.3): each frame minus the empty table's
  // picture plus that picture's centre level, before the threshold (on the device for CUDA).
  // `background`: that picture; null: the first frame received once equalize is on, and again
  // after Detector::recapture_background().
  bool equalize = false;
  std::shared_ptr<const Image<std::uint8_t>> background;
  // The threshold's method and parameters; its `backend` is not consulted: the detector's is.
  threshold::Params threshold = default_threshold();
  std::string trees = "default";  // default | small | mini | path to a .trees file
  // reacTIVision's <fiducial max_fid>: symbols with a higher ID are reported as fuzzy candidates
  // (id -1), which can move an object but never create one. 0: no limit.
  int max_fid = 0;
  // reacTIVision's <fiducial yamaarashi> and <fiducial mirror>: also decode yamaarashi symbols
  // (IDs 0-65535, spec §6.10), reading their ring mirrored when the camera sees the prints so.
  bool yamaarashi = false, mirror = false;
  // cpu; cuda: threshold, segmentation, decoding, fingers and blobs on the device, only the results
  // come back; automatic: cuda when a device is usable, else cpu (resolve_backend).
  Backend backend = Backend::cpu;
  decode::FingerParams fingers;    // off unless fingers.size > 0
  decode::BlobParams blobs;        // off unless blobs.max_size > 0
  // CUDA: measure each frame's GPU time (Detections::times). Costs a few microseconds of latency
  // per frame (receive() then also waits for the frame's last event), so it is off unless asked.
  bool device_times = false;
  // reacTIVision's calibration grid (<calibration grid>, spec §9.5): every frame's detections are
  // moved from camera to table pixels (CalibrationMap::apply) on the host after the backend's
  // results arrive, the same on both backends. Its point count must suit the frame size.
  std::optional<calibration::CalibrationGrid> calibration;
  SecondLookParams second_look;
  StageTaps taps;

  // The threshold chosen for detection from measurements on generated scenes (docs/decoding.md).
  static threshold::Params default_threshold();
};

// One backend's stages and a frame for them (src/pipeline/engine.hpp).
class Engine;
struct Submission;
namespace second_look {
class SecondLooker;  // src/pipeline/second_look
}

class Detector {
 public:
  static constexpr int kMaxInFlight = 2;
  explicit Detector(DetectorParams config);
  ~Detector();
  Detector(Detector&&) noexcept;
  Detector& operator=(Detector&&) noexcept;

  const DetectorParams& config() const { return config_; }
  // The backend the frames run on (`automatic` resolved).
  Backend backend() const { return config_.backend; }
  void set_device_times(bool on) { config_.device_times = on; }
  // Replaces the calibration grid (none: no calibration) from the next received frame on; cheap
  // (the map is rebuilt on the host), so a grid being edited can be applied every frame.
  void set_calibration(std::optional<calibration::CalibrationGrid> grid) {
    config_.calibration = std::move(grid);
    calibration_.reset();
  }

  // The equaliser from the next submitted frame on: switching it on without a background picture, or
  // recapturing, makes that frame the empty table.
  void set_equalize(bool on);
  void recapture_background();
  // The equaliser's background picture (null when none was captured or given).
  std::shared_ptr<const Image<std::uint8_t>> background() const;
  // The stage taps from the next submitted frame on (cheap to change).
  void set_taps(StageTaps taps);

  // Runs the stages on an 8-bit grey frame. The result stays valid until the next call.
  const Detections& detect(HostView<const std::uint8_t> grey) {
    submit(grey);
    return receive();
  }

  // detect() in two steps, so that frames can be pipelined: submit() enqueues a frame, receive()
  // returns the detections of the oldest submitted frame (valid until the next receive()). Up to
  // kMaxInFlight frames may be submitted before receiving. On CUDA, submit() returns before the
  // frame is done, and a second frame in flight computes at the same time as the first (frames up
  // to 1920x1080; larger ones queue behind it); on the CPU, submit() does the work. Results are
  // the same however frames are submitted (the root-candidate band passes from frame to frame in
  // order). The frame may be reused when submit() returns, except a frame in pinned memory
  // (cuda::is_pinned) on CUDA, which goes up without a staging copy and must stay unchanged until
  // its results are received.
  void submit(HostView<const std::uint8_t> grey);
  // A frame already in CUDA device memory (CuPy, PyTorch, a capture that writes into the GPU), on
  // the CUDA backend only (ErrorCode::unsupported on the CPU's). It is read once the work queued on
  // `stream` so far is done, and copied on the device into the detector's own frame (its graphs
  // hold fixed addresses); work queued on `stream` after submit() waits for that copy, so it may
  // overwrite the frame. Nothing crosses the bus but the results, and the frame itself only when
  // the second look has something to look at. Detections equal those of the same frame from host
  // memory.
  void submit(DeviceView<const std::uint8_t> grey, cuda::StreamHandle stream = nullptr);
  const Detections& detect(DeviceView<const std::uint8_t> grey, cuda::StreamHandle stream = nullptr) {
    submit(grey, stream);
    return receive();
  }
  const Detections& receive();
  // The symbols a tracker expects in the next received frame (track::Tracker::expected_symbols):
  // the second look also looks where each of them should be when it did not decode there, and
  // the expected symbol found there replaces another ID the first pass read at its place. For the
  // next receive() only. Positions are those the detections are reported in (table pixels when a
  // calibration grid is set).
  void expect(const std::vector<decode::ExpectedSymbol>& symbols) { expected_ = symbols; }
  int in_flight() const { return in_flight_; }
  // The last received frame as the stages saw it (equalised when the equaliser is on), valid until
  // the next submit().
  HostView<const std::uint8_t> received_frame() const;
  // True when submit() returns before the frame is done (CUDA): only then does a second frame in
  // flight make the stream of frames faster.
  bool overlaps() const;

 private:
  std::shared_ptr<const threshold::Equalizer> background_for(HostView<const std::uint8_t> grey);
  std::shared_ptr<const threshold::Equalizer> background_for(DeviceView<const std::uint8_t> grey);
  void capture_background(HostView<const std::uint8_t> picture);
  // background_, checked against the frame's size.
  std::shared_ptr<const threshold::Equalizer> checked_background(int width, int height) const;
  void check_submission(int channels, int width, int height) const;
  // The frame `s` with this frame's settings and background, to the engine.
  void hand_over(Submission s, std::shared_ptr<const threshold::Equalizer> background);
  DetectorParams config_;
  std::unique_ptr<Engine> engine_;
  // The background the next submitted frame is equalised with (null: equaliser off, or the next
  // frame becomes the background). Shared with the frames in flight, which keep their own.
  std::shared_ptr<const threshold::Equalizer> background_;
  std::unique_ptr<second_look::SecondLooker> second_look_;
  std::vector<decode::ExpectedSymbol> expected_;
  Detections result_;  // the last received frame's
  std::optional<calibration::CalibrationMap> calibration_;  // config_.calibration bound to the last frame size
  int in_flight_ = 0;
};

}  // namespace gpuvis::pipeline

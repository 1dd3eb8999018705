#pragma once
// The frames of bench_detect's camera table, shared with the probes that explain its rows: frame
// `i` of a kind is 640x480 with 8 of the printed symbols 48-80 px wide (print sides 1.11 times
// that), its own seed; each kind then sets its effect on top.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "gpuvis/synth/scene.hpp"

namespace gpuvis::bench {

// `seed_base` picks another set of frames of the same kinds (bench_detect --seed-base N): the
// table's rows are measured at 5000; other bases check that a change holds beyond those frames.
inline synth::SceneParams camera_frame(int i, std::uint32_t seed_base = 5000) {
  synth::SceneParams q;
  q.symbols = 8;
  q.min_size = 48 * 1.11;
  q.max_size = 80 * 1.11;
  q.seed = seed_base + static_cast<std::uint32_t>(i) * 7919u;
  return q;
}

// The camera's effects on 640x480 frames of 8 printed symbols 48-80 px wide (print sides 1.11
// times that): each kind of frame at several strengths, the value of a range spread evenly over
// the frames.
struct CameraCondition {
  std::string name;
  std::function<void(synth::SceneParams&, double)> apply;  // t in [0, 1]: where in the range
};

inline double lerp(double a, double b, double t) { return a + (b - a) * t; }

inline std::vector<CameraCondition> camera_conditions() {
  std::vector<CameraCondition> c;
  c.push_back({"none", [](synth::SceneParams&, double) {}});
  c.push_back({"vignetting 0.25-0.45", [](synth::SceneParams& q, double t) { q.vignetting = lerp(0.25, 0.45, t); }});
  c.push_back({"JPEG quality 50-75", [](synth::SceneParams& q, double t) { q.jpeg = static_cast<int>(std::lround(lerp(50, 75, t))); }});
  for (double px : {3.0, 5.0, 7.0}) {
    char name[64];
    std::snprintf(name, sizeof name, "linear motion blur %g px", px);
    c.push_back({name, [px](synth::SceneParams& q, double) { q.motion_px = px; }});
  }
  c.push_back({"webcam mix: vignetting 0.25-0.45, motion 3-7 px, JPEG 50-75", [](synth::SceneParams& q, double t) {
                 q.vignetting = lerp(0.25, 0.45, t);
                 q.motion_px = lerp(3, 7, std::fmod(t * 7.3, 1.0));
                 q.jpeg = static_cast<int>(std::lround(lerp(50, 75, std::fmod(t * 3.7, 1.0))));
               }});
  c.push_back({"dim prints: contrast 30-80 over a 60-level gradient, noise 1.5-3", [](synth::SceneParams& q, double t) {
                 q.brightness = 130;
                 q.illumination = 60.0 / 130;
                 const double contrast = lerp(30, 80, t);
                 q.ink = 0.9 * (1 - contrast / 130);
                 q.noise = lerp(1.5, 3, std::fmod(t * 5.3, 1.0));
               }});
  c.push_back({"Gaussian blur sigma 1.1-1.5", [](synth::SceneParams& q, double t) { q.blur = lerp(1.1, 1.5, t); }});
  return c;
}

}  // namespace gpuvis::bench
